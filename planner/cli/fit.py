"""``fit``: will a model fit on a GPU set-up, and how many sequences at once (with an engine profile: what that
engine prints at start-up)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from planner.assessment.alternatives import nearest_for
from planner.assessment.assess import Assessment, VerdictState, setup_label
from planner.assessment.other_engines import engines_that_start
from planner.assessment.words import replica_word, shares_experts, split_label
from planner.bounds.errors import PlannerError
from planner.bounds.limits import MAX_CONTEXT, MAX_GPU_MEMORY_BYTES, MAX_GPUS, MAX_PARALLEL, MAX_USERS
from planner.cli.args import decimal, release, tokens, whole
from planner.cli.catalog import add_model_arguments, model_from_args
from planner.cli.deploy import (
    add_deployment_arguments,
    answers,
    colocated,
    deployment_from_args,
    deployment_rows,
    fit_gpus,
    with_stages,
)
from planner.cli.fit_data import fit_data, nearest_data
from planner.cli.schema import with_deprecated_names
from planner.cli.table import print_table
from planner.core.defaults import DEFAULT_CONTEXT_TOKENS, DEFAULT_USERS, default_context_tokens
from planner.core.gpu import GpuSpec
from planner.core.kv_formats import KV_FORMATS
from planner.core.model import ModelSpec
from planner.core.overhead import OverheadModel
from planner.core.precision import WEIGHT_FORMATS
from planner.core.units import GB, GiB, format_bytes
from planner.deploy.host import device_memory_bytes
from planner.engines.registry import default_engine, engine_names, fraction_default_text, get_engine, overhead_profile
from planner.engines.settings import (
    BY_NAME,
    ENGINE_SETTINGS,
    EngineSetting,
    SettingValue,
    option_flag,
    profile_values,
    shown_name,
    switch_words,
)
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult


def _add_set_up_arguments(parser: Any) -> None:
    """The GPUs, how the model is split over them, its precisions and the context."""
    gpu = parser.add_mutually_exclusive_group(required=True)
    gpu.add_argument(
        "--gpu", action="append", help="catalog GPU id, e.g. h100-sxm-80gb; repeat for mixed GPUs (one per stage)"
    )
    gpu.add_argument(
        "--gpu-memory-gb",
        type=decimal(0, MAX_GPU_MEMORY_BYTES / GB, above_low=True),
        help="GPU memory in GB (10^9 bytes)",
    )
    parser.add_argument("--gpus", type=whole(1, MAX_GPUS), default=1, help="number of GPUs (default 1)")
    parser.add_argument(
        "--tp",
        type=whole(1, MAX_PARALLEL),
        help="tensor-parallel size (default: the largest legal one; 1 on MIG slices and one-GPU machines, a replica "
        "each); for llama.cpp, which splits whole layers, the GPUs each llama-server takes",
    )
    parser.add_argument("--pp", type=whole(1, MAX_PARALLEL), default=1, help="pipeline-parallel size (default 1)")
    parser.add_argument("--weights", choices=list(WEIGHT_FORMATS), help="weight precision (default: native)")
    parser.add_argument(
        "--kv-dtype",
        choices=list(KV_FORMATS),
        help="KV cache dtype (default: the engine's for the model on the GPU: the model dtype, llama.cpp's f16, "
        "SGLang's FP8 for DeepSeek sparse attention on Blackwell)",
    )
    parser.add_argument(
        "--context",
        type=tokens(1, MAX_CONTEXT),
        help="tokens per sequence, in digits or as the dashboard labels them (32k = 32,768; default "
        f"{DEFAULT_CONTEXT_TOKENS:,}, or the model's maximum where shorter, as the dashboard)",
    )


def add_fit_parser(sub: Any) -> None:
    """Add ``fit`` to ``sub`` (an argparse sub-parsers action)."""
    fit = sub.add_parser("fit", help="will it fit, and how many sequences at once")
    add_model_arguments(fit)
    _add_set_up_arguments(fit)
    fit.add_argument(
        "--engine",
        choices=("generic", *engine_names()),
        help="the server to plan for and predict (its start-up lines, refusals and launch command); default "
        f"{default_engine()}, as the dashboard (generic: memory only, no engine's rules; with --overhead-fraction: "
        "the simple model)",
    )
    fit.add_argument(
        "--engine-version", type=release, help="engine release, e.g. 0.19.0 (vLLM); default: the profile's"
    )
    fit.add_argument(
        "--gpu-util",
        type=decimal(0, 1, above_low=True),
        help="the engine's memory fraction: " + "; ".join(filter(None, map(fraction_default_text, engine_names()))),
    )
    fit.add_argument(
        "--overhead-fraction",
        type=decimal(0, 1, below_high=True),
        help="simple model: this share of memory is overhead",
    )
    add_engine_setting_arguments(fit)
    fit.add_argument(
        "--users",
        type=whole(1, MAX_USERS),
        default=DEFAULT_USERS,
        help=f"target concurrent users: the verdict says whether they are served (default {DEFAULT_USERS}, as the "
        "dashboard)",
    )
    add_deployment_arguments(fit)


def with_engine(args: argparse.Namespace) -> argparse.Namespace:
    """``args`` with the engine filled in as the dashboard fills it (:func:`default_engine`; the simple model where
    ``--overhead-fraction`` is given alone) and ``engine_given`` recorded. ``--overhead-fraction`` is the simple
    model's whole overhead: beside an engine, its release, its memory fraction or its launch settings (which the
    simple model would ignore) it is refused."""
    if args.overhead_fraction is not None:
        engine_flags = {"--gpu-util": args.gpu_util, "--engine-version": args.engine_version}
        beside = [f"--engine {args.engine}"] if args.engine not in (None, "generic") else []
        beside += [flag for flag, value in engine_flags.items() if value is not None]
        beside += [cli_flag(BY_NAME[name], value) for name, value in engine_settings(args).items()]
        if beside:
            raise PlannerError(
                "--overhead-fraction is the simple model's share of memory, which no engine's rules apply to: "
                f"give it or {', '.join(beside)}, not both (an engine's own fraction is --gpu-util)"
            )
    engine = args.engine or ("generic" if args.overhead_fraction is not None else default_engine())
    return argparse.Namespace(**{**vars(args), "engine": engine, "engine_given": args.engine is not None})


def with_context(args: argparse.Namespace, model: ModelSpec) -> argparse.Namespace:
    """``args`` with the context filled in as the dashboard fills it for ``model``
    (:func:`planner.core.defaults.default_context_tokens`)."""
    return argparse.Namespace(
        **{**vars(args), "context": args.context or default_context_tokens(model.max_position_embeddings)}
    )


def _overhead_from_args(args: argparse.Namespace) -> OverheadModel:
    """The ``--engine`` profile (``--gpu-util`` is that engine's own memory fraction), else ``generic``:
    the simple fraction or the estimate."""
    if args.engine == "generic" and args.overhead_fraction is not None:
        return overhead_profile("simple", fraction=args.overhead_fraction)
    return overhead_profile(args.engine, fraction=args.gpu_util, version=args.engine_version, **engine_settings(args))


def cli_flag(setting: EngineSetting, value: SettingValue | None = None) -> str:
    """The command line's flag of a launch setting: the engine's own, a size in GiB as a person types it
    (``--kv-cache-memory-gib``, the name a link uses: :func:`shown_name`; the engine takes bytes), a switch's side
    ``value`` (``--no-enable-prefix-caching``)."""
    if setting.kind == "switch" and value is not None:
        return switch_words(option_flag(setting), bool(value))
    return "--" + shown_name(setting).replace("_", "-") if setting.kind == "bytes" else setting.flag


def add_engine_setting_arguments(parser: argparse.ArgumentParser) -> None:
    """The launch settings of :mod:`planner.engines.settings` as flags (:func:`cli_flag`)."""
    for setting in ENGINE_SETTINGS:
        if setting.kind == "flag":
            parser.add_argument(setting.flag, action="store_true", default=None, help=setting.help)
        elif setting.kind == "switch":  # --X / --no-X, not given: None (the engine's default)
            option = option_flag(setting)  # an environment variable is typed as an option (--use-v2-model-runner)
            parser.add_argument(option, action=argparse.BooleanOptionalAction, default=None, help=setting.help)
        elif setting.kind == "choice":
            parser.add_argument(setting.flag, choices=setting.choices, help=setting.help)
        elif setting.kind == "bytes":
            parser.add_argument(
                cli_flag(setting), type=decimal(0, setting.high / GiB, above_low=True), help=setting.help + " (GiB)"
            )
        else:
            parser.add_argument(setting.flag, type=whole(setting.low, setting.high), help=setting.help)


def engine_settings(args: argparse.Namespace) -> dict[str, SettingValue]:
    """The launch settings given on the command line, by their :meth:`Engine.profile` names."""
    return profile_values(vars(args))


def _request(args: argparse.Namespace, model: ModelSpec, gpus: tuple[GpuSpec | None, list[GpuSpec]]) -> PlanRequest:
    gpu, stages = gpus
    engine = args.engine != "generic"
    share = args.unified_memory_share
    memory = device_memory_bytes(gpu, engine, args.host, share) if gpu is not None else round(args.gpu_memory_gb * GB)
    overhead = _overhead_from_args(args)
    if overhead.splits_layers and args.pp > 1:
        raise PlannerError(
            f"--pp: {get_engine(args.engine).label} has no pipeline-parallel size: one server splits whole layers "
            "over the GPUs it is given (--split-mode layer); --tp sets how many GPUs each server takes, --gpus how "
            "many in all"
        )
    request = PlanRequest(
        model=model,
        gpu=gpu,
        gpu_memory_bytes=memory,
        gpu_count=args.gpus,
        tensor_parallel=args.tp,
        pipeline_parallel=args.pp,
        weights=args.weights,
        kv_dtype=args.kv_dtype,
        context_tokens=args.context,
        max_model_len=args.context if engine else None,
        overhead=overhead,
        deployment=deployment_from_args(args),
    )
    return with_stages(request, stages, args) if stages else request


def _assessed(request: PlanRequest, args: argparse.Namespace) -> tuple[Assessment, list[dict[str, Any]]]:
    """:func:`colocated`; where the engine refuses the set-up, its reason and the engines that run it as asked."""
    try:
        return colocated(request, args)
    except PlannerError as exc:
        running = engines_that_start(request)
        if not running:
            raise
        instead = ", ".join(f"{engine.label} (--engine {engine.name})" for engine in running)
        raise PlannerError(f"{exc}. The same set-up starts under {instead}") from exc


def _ranks_words(request: PlanRequest, result: PlanResult) -> str:
    """The replicas, or with data-parallel attention the ranks sharing the experts."""
    if shares_experts(request, result.replicas):
        return f"{result.replicas} data-parallel ranks sharing the experts"
    return f"{result.replicas} replica{'s' if result.replicas > 1 else ''}"


def _split_words(request: PlanRequest, result: PlanResult) -> str:
    """How the model is split, as the page says it: 'TP 2, PP 1', or llama.cpp's 'layers split over 2 GPUs' (whole
    layers a GPU, no tensor parallelism: the plan's TP there only sizes each GPU's share)."""
    if request.overhead.splits_layers:
        return split_label(request, result).split(" · ")[0]  # the replicas have their own words in the row
    return f"TP {result.tensor_parallel}, PP {result.pipeline_parallel}"


def cmd_fit(args: argparse.Namespace) -> int:
    args = with_engine(args)
    gpus = fit_gpus(args)  # a GPU that is not in the catalog is named before a model is fetched from the Hub
    model = model_from_args(args)
    args = with_context(args, model)
    asked = _request(args, model, gpus)
    a, others = _assessed(asked, args)
    request = a.request
    nearest = [] if others else nearest_for(asked, a, args.users)  # beside another vLLM: its own set-up
    data = with_deprecated_names(
        {
            **fit_data(a),
            **answers(a, args),
            **({"colocated": others} if others else {}),
            "nearest": [nearest_data(alt) for alt in nearest],
        }
    )
    if args.json:
        print(json.dumps(data, indent=2))
        return 0 if a.fits else 1
    result, unit = a.result, "GiB"
    print_table(
        [
            ("model", f"{request.model.display_name} in {result.weights}, KV cache {result.kv_dtype}"),
            (
                "set-up",
                f"{setup_label(request)} ({_split_words(request, result)}, {_ranks_words(request, result)})",
            ),
            ("verdict", f"{_verdict_word(a)} ({data['fit_status']}): {data['verdict_sentence']}"),
            ("GPU memory", format_bytes(data["gpu_memory_bytes"], unit) + " per GPU"),
            ("weights", format_bytes(data["weights_bytes_per_gpu"], unit) + " per GPU"),
            ("activations", format_bytes(data["activation_bytes_per_gpu"], unit) + " per GPU"),
            ("framework", format_bytes(data["overhead_bytes_per_gpu"], unit) + " per GPU"),
            ("reserved", format_bytes(data["reserved_bytes_per_gpu"], unit) + " per GPU"),
            ("KV cache pool", format_bytes(data["kv_cache_bytes_per_gpu"], unit) + " per GPU"),
            ("room for KV", _room_words(data["headroom_bytes_per_gpu"], unit)),
            ("KV per token", f"{data['kv_bytes_per_token']:,} bytes (whole model{_window_words(request.model)})"),
            (
                "KV budget",
                f"{a.kv_budget_tokens_per_replica:,} tokens per {replica_word(a.request, a.replicas)}, "
                f"{a.kv_budget_tokens:,} in total",
            ),
            ("conversations", f"{a.conversations:,} of {args.context:,} tokens at once ({a.concurrency:.2f} exact)"),
            *deployment_rows(data, unit),
            *[("warning", w) for w in result.warnings],
            *[(f"{a.engine_label} prints", line) for line in (a.report.lines if a.report else ())],
            *[("engine note", note) for note in (a.report.notes if a.report else ())],
            *([("how close", data["kv_accuracy"]["sentence"])] if data["kv_accuracy"] else []),
            *([("how close", data["kv_accuracy_unchecked"])] if data["kv_accuracy_unchecked"] else []),
            *[("nearest", f"{n['change']}: {n['sentence']}") for n in data["nearest"]],
        ]
    )
    return 0 if a.fits else 1


def _window_words(model: ModelSpec) -> str:
    """For a model with windowed layers, that the per-token figure counts every layer at every token, which its
    windowed layers do not keep (an outside review read Gemma 3's 507,904 bytes as what vLLM stores a token)."""
    window = model.sliding_window or model.attention_chunk_size
    return f", as if every layer kept every token: its windowed layers keep at most {window:,}" if window else ""


def _verdict_word(a: Assessment) -> str:
    """The verdict's first words: whether it fits, and when it fits whether it meets the target (a set-up that
    fits and holds fewer conversations than the users asked read 'FITS' above '390 short of the target')."""
    if not a.fits:
        return "DOES NOT FIT"
    return "FITS, BELOW TARGET" if a.state is VerdictState.MISSES_TARGET else "FITS"


def _room_words(headroom_bytes: int, unit: str) -> str:
    """The room left for the KV cache, or by how much it is short.

    >>> _room_words(2**30, "GiB"), _room_words(-(2**29), "GiB")
    ('1.00 GiB per GPU', 'short by 0.50 GiB per GPU')
    """
    if headroom_bytes < 0:
        return f"short by {format_bytes(-headroom_bytes, unit)} per GPU"
    return format_bytes(headroom_bytes, unit) + " per GPU"
