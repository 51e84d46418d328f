"""``fit``'s deployment flags: partial offload, KV offload tiers, LoRA slots, speculative decoding, memory already
in use, MIG slices, engines side by side and mixed GPUs (:mod:`planner.deploy`). Each flag is bounded and a bad
value is one line naming it (a :class:`PlannerError`)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from model_catalog import get_gpu, get_model
from planner.assessment.assess import Assessment, assess
from planner.assessment.search import (
    best_layer_split,
    deployment_answers,
    footprint_bytes,
    side_by_side,
)
from planner.assessment.summary import deployment_data
from planner.bounds.errors import PlannerError
from planner.bounds.limits import field_range
from planner.cli.args import decimal
from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.core.units import GB, GiB, format_bytes
from planner.deploy.host import HOSTS
from planner.deploy.mixed import stage_gpu
from planner.deploy.options import (
    DEFAULT_HOST_BANDWIDTH,
    DEFAULT_PCIE_BANDWIDTH,
    LORA_MODULES,
    DeploymentOptions,
    KvOffloadOptions,
    LoraOptions,
    SpeculativeOptions,
)
from planner.deploy.sharing import MAX_SMI_CHARS, mig_gpu, parse_nvidia_smi, used_memory_bytes
from planner.engines.options import options_refusal
from planner.engines.registry import default_engine, engine_names, get_engine, overhead_profile
from planner.planning.request import PlanRequest

MAX_GB = 1_000_000.0  # a petabyte: nothing planned here comes near
SPECULATIVE_METHODS = ("draft", "eagle", "eagle3", "medusa", "mtp")


def add_deployment_arguments(fit: argparse.ArgumentParser) -> None:
    """The deployment flags of ``fit`` (``--gpu`` itself is repeatable for mixed GPUs: see ``fit``)."""
    d = fit.add_argument_group("deployment (planner.deploy)")
    d.add_argument("--gpu-layers", type=int, help="llama.cpp -ngl: layers on the GPU (the output layer counts)")
    d.add_argument("--cpu-moe-layers", type=int, help="llama.cpp --n-cpu-moe: experts of the first N layers on CPU")
    d.add_argument("--cpu-offload-gb", type=float, help="vLLM/SGLang --cpu-offload-gb, in GiB as they read it")
    host, pcie = DEFAULT_HOST_BANDWIDTH / GB, DEFAULT_PCIE_BANDWIDTH / GB
    d.add_argument("--host-bandwidth-gbs", type=float, help=f"host RAM, GB/s (default {host:g}, DDR5-5600 x2)")
    d.add_argument("--pcie-bandwidth-gbs", type=float, help=f"host-GPU link, GB/s (default {pcie:g}, PCIe 4.0 x16)")
    d.add_argument("--kv-offload-gib", type=float,
                   help="vLLM --kv-offloading-size: GiB (2^30 bytes) of host KV tier, all ranks")  # fmt: skip
    d.add_argument("--kv-offload-gb", type=float, help="the same tier in GB (10^9 bytes)")
    d.add_argument("--kv-offload-backend", choices=("native", "lmcache"), default="native")
    d.add_argument("--prefix-tokens", type=int, help="KV tier working set: prompt-prefix tokens per user")
    d.add_argument("--prefix-users", type=int, help="KV tier working set: users (default --users)")
    d.add_argument("--prefix-hit-rate", type=float, help="KV tier working set: share of prefixes kept (0-1)")
    d.add_argument("--max-loras", type=int, help="LoRA slots on the GPU (vLLM --max-loras, SGLang per batch)")
    rank = LoraOptions.model_fields["max_lora_rank"].default
    d.add_argument("--max-lora-rank", type=int, default=rank, help=f"largest LoRA rank (default {rank})")
    d.add_argument("--max-cpu-loras", type=int, help="adapters kept in host RAM (default --max-loras)")
    d.add_argument("--lora-target-modules", help=f"comma list of {','.join(LORA_MODULES)} (default all)")
    d.add_argument("--draft-model", help="speculative decoding with this catalog model as the draft")
    d.add_argument("--speculative-method", choices=SPECULATIVE_METHODS, help="draft (with --draft-model), eagle, ...")
    d.add_argument("--num-speculative-tokens", type=int, help="tokens proposed per step (default 1)")
    d.add_argument("--mig", metavar="PROFILE", help="plan on a MIG slice of --gpu, e.g. 3g.40gb")
    d.add_argument("--used-memory-gib", type=float,
                   help="GiB (2^30 bytes) already held on each GPU by other processes (under --host windows, "
                        "the desktop's included)")  # fmt: skip
    d.add_argument("--used-memory-gb", type=float, help="the same in GB (10^9 bytes)")
    d.add_argument("--host", choices=HOSTS, default="linux",
                   help="the machine: Linux (default) or Windows (WSL2, Docker Desktop: the whole card and the "
                        "desktop's memory)")  # fmt: skip
    d.add_argument("--unified-memory-share", type=decimal(0, 1, above_low=True),
                   help="a Mac's (or Strix Halo's) GPU share of its memory (default: the OS default, macOS 0.75; "
                        "raise it with sudo sysctl iogpu.wired_limit_mb=<MB>)")  # fmt: skip
    d.add_argument("--nvidia-smi", metavar="FILE", help="a saved nvidia-smi output: memory in use per GPU")
    d.add_argument("--colocate", action="append", metavar="MODEL[@UTIL]", help="another vLLM started first (repeat)")
    d.add_argument("--layer-split", help="mixed GPUs: layers per GPU, e.g. 20,12 (default: the best split)")


def _count(value: int | None, flag: str, low: int = 0, high: int = 100_000) -> int | None:
    if value is not None and not low <= value <= high:
        raise PlannerError(f"{flag} must be a whole number from {low:,} to {high:,}")
    return value


def _amount(value: float | None, flag: str, high: float = MAX_GB, low: float = 0.0) -> float | None:
    if value is not None and not (math.isfinite(value) and low <= value <= high):
        raise PlannerError(f"{flag} must be a number from {low:g} to {high:,.0f}")
    return value


def _gib(value: float | None, flag: str) -> int:
    amount = _amount(value, flag)
    return round(amount * GiB) if amount else 0


def _gib_or_gb(args: argparse.Namespace, name: str) -> int:
    """Bytes from the pair ``--<name>-gib`` / ``--<name>-gb``, each read in the unit it names (one of them only).

    >>> _gib_or_gb(argparse.Namespace(used_memory_gib=None, used_memory_gb=2.0), "used-memory")
    2000000000
    """
    key = name.replace("-", "_")
    gib, gb = getattr(args, f"{key}_gib"), getattr(args, f"{key}_gb")
    if gib is not None and gb is not None:
        raise PlannerError(f"give --{name}-gib or --{name}-gb, not both")
    if gb is not None:
        amount = _amount(gb, f"--{name}-gb")
        return round(amount * GB) if amount else 0
    return _gib(gib, f"--{name}-gib")


def _rate(value: float | None, flag: str) -> dict[str, int]:
    field = flag.strip("-").replace("-", "_").replace("gbs", "bytes_per_s")
    low, high, _ = field_range(DeploymentOptions, field)  # the option's own range, in GB/s
    amount = _amount(value, flag, high=high / GB, low=low / GB)
    return {} if amount is None else {field: round(amount * GB)}


def _lora(args: argparse.Namespace) -> LoraOptions | None:
    slots = _count(args.max_loras, "--max-loras", 1)
    if slots is None:
        return None
    modules = tuple(m.strip() for m in (args.lora_target_modules or "").split(",") if m.strip()) or LORA_MODULES
    unknown = [m for m in modules if m not in LORA_MODULES]
    if unknown:
        raise PlannerError(
            f"--lora-target-modules: unknown {', '.join(unknown)}; choose from {', '.join(LORA_MODULES)}"
        )
    host = _count(args.max_cpu_loras, "--max-cpu-loras", 1)
    if host is not None and host < slots:
        raise PlannerError(f"--max-cpu-loras ({host}) must be at least --max-loras ({slots}): the engines refuse less")
    return LoraOptions.model_validate(
        {
            "max_loras": slots,
            "max_lora_rank": _count(args.max_lora_rank, "--max-lora-rank", 1, 4096),
            "max_cpu_loras": host,
            "target_modules": modules,
        }
    )


def _speculative(args: argparse.Namespace) -> SpeculativeOptions | None:
    method = args.speculative_method or ("draft" if args.draft_model else None)
    if method is None:
        if args.num_speculative_tokens is not None:
            raise PlannerError("--num-speculative-tokens needs --draft-model or --speculative-method")
        return None
    if (method == "draft") != bool(args.draft_model):
        raise PlannerError("--draft-model goes with --speculative-method draft (the default when it is given)")
    draft = get_model(args.draft_model).spec if args.draft_model else None
    tokens = _count(args.num_speculative_tokens, "--num-speculative-tokens", 1, 64) or 1
    return SpeculativeOptions(method=method, draft_model=draft, num_speculative_tokens=tokens)


def _kv_offload(args: argparse.Namespace) -> KvOffloadOptions | None:
    size = _gib_or_gb(args, "kv-offload")
    prefix = _count(args.prefix_tokens, "--prefix-tokens", *field_range(KvOffloadOptions, "prefix_tokens")[:2]) or 0
    if not size and not prefix:
        return None
    users = _count(args.prefix_users, "--prefix-users", 1) or args.users or 1
    rate = _amount(args.prefix_hit_rate, "--prefix-hit-rate", 1.0)
    return KvOffloadOptions(
        size_bytes=size, backend=args.kv_offload_backend, prefix_tokens=prefix, users=users if prefix else 0,
        hit_rate=1.0 if rate is None else rate,
    )  # fmt: skip


def _used_memory(args: argparse.Namespace) -> int:
    used = _gib_or_gb(args, "used-memory")
    if args.nvidia_smi:
        path = Path(args.nvidia_smi)
        if not path.exists():
            raise PlannerError(f"--nvidia-smi: {args.nvidia_smi}: no such file")
        if not path.is_file() or path.stat().st_size > MAX_SMI_CHARS * 4:
            raise PlannerError(f"--nvidia-smi: {args.nvidia_smi} is not a file of at most {MAX_SMI_CHARS:,} characters")
        used = max(used, used_memory_bytes(parse_nvidia_smi(path.read_text(errors="replace")), args.gpus or 1))
    return used


def check_engine(args: argparse.Namespace, options: DeploymentOptions) -> None:
    """Flags the ``--engine`` does not take (:func:`planner.engines.options.options_refusal`): one line naming the
    engine's own alternative. A generic profile takes every option."""
    if args.engine not in engine_names():
        return
    reason = options_refusal(get_engine(args.engine).support, options)
    if reason is not None and not getattr(args, "engine_given", True):  # the dashboard's engine, not asked for
        raise PlannerError(f"no --engine given, so {args.engine} (the dashboard's default): {reason}")
    if reason is not None:
        raise PlannerError(f"--engine {args.engine}: {reason}")


def deployment_from_args(args: argparse.Namespace) -> DeploymentOptions | None:
    """The :class:`DeploymentOptions` the flags ask for (None when none is given; mixed GPUs are added by ``fit``)."""
    settings: dict[str, Any] = {
        "gpu_layers": _count(args.gpu_layers, "--gpu-layers"),
        "cpu_moe_layers": _count(args.cpu_moe_layers, "--cpu-moe-layers") or 0,
        "cpu_offload_bytes": _gib(args.cpu_offload_gb, "--cpu-offload-gb"),
        "kv_offload": _kv_offload(args),
        "lora": _lora(args),
        "speculative": _speculative(args),
        "used_memory_bytes": _used_memory(args),
        "host": args.host,
        "unified_share": args.unified_memory_share,
        "mig_profile": args.mig,
        **_rate(args.host_bandwidth_gbs, "--host-bandwidth-gbs"),
        **_rate(args.pcie_bandwidth_gbs, "--pcie-bandwidth-gbs"),
    }
    options = DeploymentOptions.model_validate(settings)
    check_engine(args, options)
    return options if options.active else None


def fit_gpus(args: argparse.Namespace) -> tuple[GpuSpec | None, list[GpuSpec]]:
    """The ``--gpu`` of the plan (its MIG slice with ``--mig``) and, with several, every stage's GPU."""
    ids = args.gpu or []
    if len(ids) > 64:
        raise PlannerError("--gpu: at most 64 GPUs")
    gpus = [get_gpu(i) for i in ids]
    if args.layer_split and len(ids) < 2:
        raise PlannerError("--layer-split: give two or more --gpu (one per pipeline stage)")
    if args.mig:
        if len(ids) != 1:
            raise PlannerError("--mig: give one catalog --gpu to slice")
        return mig_gpu(gpus[0], ids[0], args.mig), []
    return (gpus[0] if gpus else None), (gpus if len(gpus) > 1 else [])


def with_stages(request: PlanRequest, stages: list[GpuSpec], args: argparse.Namespace) -> PlanRequest:
    """Mixed GPUs: one pipeline stage per GPU, TP 1, the given split or the one that holds the most."""
    engine = args.engine != "generic"
    options = (request.deployment or DeploymentOptions()).model_copy(
        update={"stage_gpus": tuple(stage_gpu(g, engine, args.host) for g in stages)}
    )
    split = None
    if args.layer_split:
        parts = args.layer_split.split(",")
        if len(parts) > 64 or not all(
            p.strip().isascii() and p.strip().isdigit() and len(p.strip()) < 7 for p in parts
        ):
            raise PlannerError("--layer-split: whole numbers separated by commas, one per --gpu")
        split = tuple(int(p) for p in parts)
    n = len(stages)
    mixed = request.model_copy(
        update={"gpu_count": n, "tensor_parallel": 1, "pipeline_parallel": n, "deployment": options}
    )
    if split is None:
        split = best_layer_split(mixed).split
    return mixed.model_copy(update={"deployment": options.model_copy(update={"layer_split": split})})


def colocated(request: PlanRequest, args: argparse.Namespace) -> tuple[Assessment, list[dict[str, Any]]]:
    """This engine after every ``--colocate MODEL[@UTIL]`` (vLLM instances on the same GPUs, started first)."""
    others = []
    if len(args.colocate or []) > 8:
        raise PlannerError("--colocate: at most 8 other engines")
    for item in args.colocate or []:
        model_id, _, util_text = item.partition("@")
        if util_text and not (util_text.replace(".", "", 1).isdigit() and len(util_text) < 12):
            raise PlannerError(f"--colocate: {item[:60]!r} is not MODEL or MODEL@UTIL (a fraction such as 0.45)")
        util = _amount(float(util_text) if util_text else 0.9, "--colocate utilisation", 1.0, 0.01)
        model: ModelSpec = get_model(model_id).spec
        overhead = overhead_profile(default_engine(), fraction=util)  # another instance of the default engine
        update = {"model": model, "weights": None, "kv_dtype": None, "overhead": overhead, "deployment": None}
        others.append(request.model_copy(update=update))
    if not others:
        return assess(request, args.users), []
    started = side_by_side([*others, request], args.users)
    rows = [
        {
            "model": a.request.model.id,
            "gpu_memory_utilization": getattr(a.request.overhead, "gpu_memory_utilization", None),
            "footprint_bytes_per_gpu": footprint_bytes(a),
            "starts": a.fits,
            "verdict": a.state.value,
        }
        for a in started[:-1]
    ]
    return started[-1], rows


def answers(a: Assessment, args: argparse.Namespace) -> dict[str, Any]:
    """What the deployment flags ask the planner (:func:`planner.assessment.search.deployment_answers`): how many
    layers fit (llama.cpp), how much to offload (vLLM, SGLang) — asked when the flag is given or the set-up does
    not fit and offloading can cure it — and the memory fraction that starts the engine when memory in use stops
    it."""
    if args.engine not in engine_names():
        return {}
    return deployment_answers(a, args.users, args.gpu_layers is not None, bool(args.cpu_offload_gb))


def deployment_rows(data: dict[str, Any], unit: str = "GiB") -> list[tuple[str, str]]:
    """The table rows of the deployment figures (``fit`` without ``--json``)."""
    rows: list[tuple[str, str]] = []
    for key, label in (
        ("lora_bytes_per_gpu", "LoRA slots"),
        ("draft_bytes_per_gpu", "draft / heads"),
        ("other_bytes_per_gpu", "in use by others"),
        ("offloaded_weights_bytes_per_gpu", "weights offloaded"),
    ):
        if data.get(key):
            rows.append((label, format_bytes(data[key], unit) + " per GPU"))
    for key, label in (
        ("host_weights_bytes", "host RAM: weights"),
        ("kv_offload_host_bytes", "host RAM: KV tier"),
        ("kv_offload_shm_bytes", "/dev/shm: KV tier"),
        ("lora_host_bytes", "host RAM: LoRA cache"),
    ):
        if data.get(key):
            rows.append((label, format_bytes(data[key], unit) + " in total"))
    details = data.get("deployment") or {}
    decode = details.get("decode")
    if decode:
        rows.append(("decode bound", f"{decode['tokens_per_s']:.1f} tokens/s per sequence ({decode['host_link']}; "
                                     f"{decode['tokens_per_s_all_on_gpu']:.1f} all on the GPU)"))  # fmt: skip
    tier = details.get("kv_offload")
    if tier:
        rows.append(
            ("KV tier holds", f"{tier['tokens']:,} tokens = {tier['conversations']:,} more conversations parked")
        )
    for key, label, none in (
        ("gpu_layers_that_fit", "layers that fit", "none fits"),
        ("cpu_offload_gib_needed", "offload needed (GiB)", "none fits"),
        ("memory_fraction_that_starts", "memory fraction that starts", "none: another limit stops it at every one"),
    ):
        if key in data:
            rows.append((label, none if data[key] is None else f"{data[key]:g}"))
    if data.get("cpu_offload_needs") and data.get("cpu_offload_gib_needed") is not None:
        rows.append(("offload needs", f"{data['cpu_offload_needs']} (the release ignores --cpu-offload-gb without it)"))
    if details.get("launch_settings"):
        rows.append(("engine settings", " ".join(details["launch_settings"])))
    for other in data.get("colocated", []):
        rows.append(
            ("started before", f"{other['model']} (holds {format_bytes(other['footprint_bytes_per_gpu'], unit)})")
        )
    return rows


__all__ = [
    "add_deployment_arguments",
    "answers",
    "colocated",
    "deployment_data",
    "deployment_from_args",
    "deployment_rows",
    "fit_gpus",
    "with_stages",
]
