"""``python -m planner``: the catalog, a model's shape, and capacity checks, for scripts and CI pipelines.

Errors are one clear line on stderr and exit status 2; ``--json`` output is stable for scripts.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from pydantic import ValidationError

from model_catalog import CatalogError, get_gpu, get_model, load_gpus, load_models
from planner.advise_cli import add_advise_parser, cmd_advise
from planner.engine_profiles import ENGINE_NAMES, engine_profile
from planner.errors import PlannerError
from planner.hf_config import describe_validation_error, load_config_file
from planner.kv import kv_bytes_per_token
from planner.model import ModelSpec
from planner.overhead import Estimate, OverheadModel, SimpleFraction
from planner.params import parameter_breakdown
from planner.plan import PlanRequest, PlanResult, plan
from planner.precision import KV_FORMATS, WEIGHT_FORMATS
from planner.units import GB, format_bytes

ENGINES = ("generic", *ENGINE_NAMES)


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message}\n")


def _print_table(rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


def _model_from_args(args: argparse.Namespace) -> ModelSpec:
    if args.config:
        return load_config_file(args.config)
    if getattr(args, "hf", None):
        from planner.hub import fetch_model  # imported here: requests is only needed for --hf

        hub = fetch_model(args.hf, use_env_token=True)  # the command line runs as the operator: HF_TOKEN applies
        if hub.spec is None:
            fields = ", ".join(m.field for m in hub.missing)
            raise PlannerError(f"{hub.repo_id}: config.json lacks {fields}; pass a completed copy with --config")
        return hub.spec
    return get_model(args.model).spec


def cmd_models(args: argparse.Namespace) -> int:
    models = load_models()
    if args.json:
        print(json.dumps(sorted(models), indent=2))
        return 0
    rows = [("id", "parameters", "attention", "max context")]
    for model_id in sorted(models):
        spec = models[model_id].spec
        total = parameter_breakdown(spec).total
        rows.append((model_id, f"{total / 1e9:.2f} B", spec.attention_kind, f"{spec.max_position_embeddings:,}"))
    _print_table(rows)
    return 0


def cmd_gpus(args: argparse.Namespace) -> int:
    gpus = load_gpus()
    if args.json:
        print(json.dumps(sorted(gpus), indent=2))
        return 0
    rows = [("id", "name", "memory")]
    for gpu_id in sorted(gpus):
        gpu = gpus[gpu_id]
        rows.append((gpu_id, gpu.name, format_bytes(gpu.memory_bytes, "GiB")))
    _print_table(rows)
    return 0


def inspect_data(spec: ModelSpec) -> dict[str, Any]:
    """What ``inspect --json`` prints: counts, layer kinds and KV bytes per token by KV dtype."""
    params = parameter_breakdown(spec)
    return {
        "id": spec.id,
        "model_type": spec.model_type,
        "attention": spec.attention_kind,
        "parameters_total": params.total,
        "parameters_active": params.active,
        "parameters_served": params.served,
        "parameters_by_category": params.model_dump(),
        "native_dtype": spec.native_dtype,
        "num_hidden_layers": spec.num_hidden_layers,
        "layer_kinds": spec.layer_kind_counts,
        "sliding_window": spec.sliding_window,
        "max_position_embeddings": spec.max_position_embeddings,
        "kv_bytes_per_token": {name: kv_bytes_per_token(spec, name) for name in KV_FORMATS},
    }


def cmd_inspect(args: argparse.Namespace) -> int:
    data = inspect_data(_model_from_args(args))
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    kinds = ", ".join(f"{n} {k}" for k, n in data["layer_kinds"].items() if n)
    _print_table(
        [
            ("model", data["id"]),
            ("attention", f"{data['attention']} ({kinds})"),
            ("parameters", f"{data['parameters_total']:,} total, {data['parameters_active']:,} active"),
            ("native dtype", data["native_dtype"]),
            ("max context", f"{data['max_position_embeddings']:,} tokens"),
            *[(f"KV/token {k}", f"{v:,} bytes") for k, v in data["kv_bytes_per_token"].items()],
        ]
    )
    return 0


def _overhead_from_args(args: argparse.Namespace) -> OverheadModel:
    """The ``--engine`` profile (``--gpu-util`` is that engine's own memory fraction), else ``generic``:
    the simple fraction or the estimate."""
    if getattr(args, "engine", "generic") != "generic":
        return engine_profile(
            args.engine,
            fraction=args.gpu_util,
            version=args.engine_version,
            max_num_batched_tokens=args.max_num_batched_tokens,
        )
    if args.overhead_fraction is not None:
        return SimpleFraction(fraction=args.overhead_fraction)
    settings: dict[str, Any] = {}
    if args.gpu_util is not None:
        settings["gpu_memory_utilization"] = args.gpu_util
    if args.max_num_batched_tokens is not None:
        settings["max_num_batched_tokens"] = args.max_num_batched_tokens
    return Estimate(**settings)


def fit_data(result: PlanResult) -> dict[str, Any]:
    """What ``fit --json`` prints (bytes are per GPU of the limiting stage unless named otherwise)."""
    gpu = result.per_gpu
    return {
        "model": result.model_id,
        "fits": result.fits,
        "fit_status": result.fit_status,
        "weights": result.weights,
        "kv_dtype": result.kv_dtype,
        "gpu_count": result.gpu_count,
        "tensor_parallel": result.tensor_parallel,
        "pipeline_parallel": result.pipeline_parallel,
        "replicas": result.replicas,
        "context_tokens": result.context_tokens,
        "gpu_memory_bytes": gpu.gpu_memory_bytes,
        "weights_bytes_per_gpu": gpu.weights_bytes,
        "kv_cache_bytes_per_gpu": gpu.kv_cache_bytes,
        "activation_bytes_per_gpu": gpu.activation_bytes,
        "overhead_bytes_per_gpu": gpu.overhead_bytes,
        "reserved_bytes_per_gpu": gpu.reserved_bytes,
        "headroom_bytes_per_gpu": gpu.headroom_bytes,
        "weights_bytes_total": result.weights_bytes_total,
        "kv_bytes_per_token": result.kv_bytes_per_token,
        "kv_bytes_per_sequence": result.capacity.kv_bytes_per_sequence,
        "kv_budget_tokens": result.kv_budget_tokens,
        "gpu_blocks": result.gpu_blocks,
        "max_concurrency": result.max_concurrency,
        "max_concurrency_exact": result.capacity.sequences,
        "max_concurrency_contiguous": result.capacity.sequences_contiguous,
        "parameters_total": result.parameters_total,
        "parameters_active": result.parameters_active,
        "warnings": list(result.warnings),
    }


def engine_data(report: Any) -> dict[str, Any]:
    """What ``fit --engine E --json`` adds or replaces: the figures the engine prints at start-up."""
    return {
        "engine": report.engine,
        "engine_version": report.engine_version,
        "fits": report.fits,
        "fit_status": "fits" if report.fits else "engine-does-not-start",
        "available_kv_cache_bytes_per_gpu": report.available_kv_cache_bytes_per_gpu,
        "gpu_blocks": report.gpu_blocks,
        "kv_budget_tokens": report.kv_cache_tokens,
        "max_concurrency": report.max_concurrency,
        "max_model_len": report.max_model_len,
        "estimated_max_model_len": report.estimated_max_model_len,
        "engine_lines": list(report.lines),
    }


def cmd_fit(args: argparse.Namespace) -> int:
    spec = _model_from_args(args)
    gpu = get_gpu(args.gpu) if args.gpu else None
    engine = args.engine != "generic"
    memory = gpu.memory_bytes_for(engine) if gpu is not None else round(args.gpu_memory_gb * GB)
    request = PlanRequest(
        model=spec,
        gpu=gpu,
        gpu_memory_bytes=memory,
        gpu_count=args.gpus,
        tensor_parallel=args.tp,
        pipeline_parallel=args.pp,
        weights=args.weights,
        kv_dtype=args.kv_dtype,
        context_tokens=args.context,
        max_model_len=args.context if engine else None,
        overhead=_overhead_from_args(args),
    )
    result = plan(request)
    data = fit_data(result)
    report = None
    if engine:
        from planner.engines import engine_report

        report = engine_report(request, result)
        data.update(engine_data(report))
        result = result.model_copy(update={"fits": report.fits})
    if args.json:
        print(json.dumps(data, indent=2))
        return 0 if result.fits else 1
    unit = "GiB"
    gpu_label = gpu.name if gpu else f"{args.gpu_memory_gb:g} GB GPU"
    verdict = "FITS" if result.fits else f"DOES NOT FIT ({result.fit_status})"
    _print_table(
        [
            ("model", f"{spec.display_name} in {result.weights}, KV cache {result.kv_dtype}"),
            (
                "set-up",
                f"{result.gpu_count} x {gpu_label} (TP {result.tensor_parallel}, PP {result.pipeline_parallel}, "
                f"{result.replicas} replica{'s' if result.replicas > 1 else ''})",
            ),
            ("verdict", verdict),
            ("GPU memory", format_bytes(data["gpu_memory_bytes"], unit) + " per GPU"),
            ("weights", format_bytes(data["weights_bytes_per_gpu"], unit) + " per GPU"),
            ("activations", format_bytes(data["activation_bytes_per_gpu"], unit) + " per GPU"),
            ("framework", format_bytes(data["overhead_bytes_per_gpu"], unit) + " per GPU"),
            ("reserved", format_bytes(data["reserved_bytes_per_gpu"], unit) + " per GPU"),
            ("KV cache pool", format_bytes(data["kv_cache_bytes_per_gpu"], unit) + " per GPU"),
            ("headroom", format_bytes(data["headroom_bytes_per_gpu"], unit) + " per GPU (signed)"),
            ("KV per token", f"{data['kv_bytes_per_token']:,} bytes (whole model)"),
            ("KV budget", f"{data['kv_budget_tokens']:,} tokens"),
            ("max concurrency", f"{data['max_concurrency']:.2f} sequences of {args.context:,} tokens"),
            *[("warning", w) for w in result.warnings],
            *[(f"{args.engine} prints", line) for line in (report.lines if report else ())],
        ]
    )
    return 0 if result.fits else 1


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m planner", description="Headroom: LLM serving-memory planner")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, helptext in (("models", "list catalog model ids"), ("gpus", "list catalog GPU ids")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--json", action="store_true")

    def add_model(p: argparse.ArgumentParser) -> None:
        group = p.add_mutually_exclusive_group(required=True)
        group.add_argument("--model", help="catalog model id (a Hugging Face repo id)")
        group.add_argument("--config", help="path to a Hugging Face config.json")
        group.add_argument(
            "--hf",
            metavar="REPO[@REVISION]",
            help="a model on the Hugging Face Hub (HF_ENDPOINT, HF_TOKEN for gated repos)",
        )
        p.add_argument("--json", action="store_true")

    add_model(sub.add_parser("inspect", help="parameter counts, layer kinds and KV bytes per token"))
    fit = sub.add_parser("fit", help="will it fit, and how many sequences at once")
    add_model(fit)
    gpu = fit.add_mutually_exclusive_group(required=True)
    gpu.add_argument("--gpu", help="catalog GPU id, e.g. h100-sxm-80gb")
    gpu.add_argument("--gpu-memory-gb", type=float, help="GPU memory in GB (10^9 bytes)")
    fit.add_argument("--gpus", type=int, default=1, help="number of GPUs (default 1)")
    fit.add_argument("--tp", type=int, help="tensor-parallel size (default: the largest legal one)")
    fit.add_argument("--pp", type=int, default=1, help="pipeline-parallel size (default 1)")
    fit.add_argument("--weights", choices=list(WEIGHT_FORMATS), help="weight precision (default: native)")
    fit.add_argument("--kv-dtype", choices=list(KV_FORMATS), help="KV cache dtype (default: model dtype)")
    fit.add_argument("--context", type=int, default=4096, help="tokens per sequence (default 4096)")
    fit.add_argument("--engine", choices=ENGINES, default="generic", help="engine profile")
    fit.add_argument("--engine-version", help="engine release, e.g. 0.19.0 (vLLM); default: the profile's")
    fit.add_argument(
        "--gpu-util",
        type=float,
        help="the engine's memory fraction: vLLM gpu_memory_utilization (default 0.9), SGLang mem_fraction_static "
        "(default: its heuristic), TensorRT-LLM kv_cache_free_gpu_mem_fraction (default 0.9)",
    )
    fit.add_argument("--overhead-fraction", type=float, help="simple model: this share of memory is overhead")
    fit.add_argument("--max-num-batched-tokens", type=int, help="tokens per forward step (default 8192)")
    add_advise_parser(sub)
    return parser


COMMANDS = {"models": cmd_models, "gpus": cmd_gpus, "inspect": cmd_inspect, "fit": cmd_fit, "advise": cmd_advise}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "gpu_memory_gb", None) is not None and not args.gpu_memory_gb > 0:
        print("error: --gpu-memory-gb must be a positive number", file=sys.stderr)
        return 2
    try:
        return COMMANDS[args.command](args)
    except (PlannerError, CatalogError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ValidationError as exc:
        print(f"error: {describe_validation_error(exc)}", file=sys.stderr)
        return 2
