"""Compare a pasted start-up log with what the planner predicts for the same set-up, and calibrate from it.

:func:`calibrate_log` is the pure function behind ``python -m planner calibrate --log FILE [--model ...]
--json``: it parses the log (:func:`planner.sources.logs.parse_log`), rebuilds the set-up it shows (model, GPU,
parallelism, precision, release, memory fraction; each taken from the log unless given), predicts what the
engine prints, and returns every figure predicted / printed / difference, the start-up verdicts, and the
calibrated profile (the printed weights, activation, non-torch and CUDA-graph terms replacing the estimates)
with what it predicts in turn.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from model_catalog import CatalogError, alias_note, get_gpu, get_model, load_gpus
from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.core.units import GiB
from planner.deploy.host import printed_on, printed_total_bytes
from planner.deploy.options import DeploymentOptions
from planner.engines.base import EngineReport
from planner.engines.registry import engine_profile, engine_report, get_engine
from planner.engines.vllm.calibrated import Calibrated
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest, plan
from planner.sources.logs import ParsedLog, calibrate, parse_log

Unit = Literal["GiB", "tokens", "blocks", "x"]
# vLLM's config-line precision -> the planner's weight format (None: the dtype decides).
QUANTIZATION_WEIGHTS = {
    "fp8": "fp8",
    "mxfp4": "mxfp4",
    "gptq": "int4-gptq",
    "gptq_marlin": "int4-gptq",
    "awq": "int4-awq",
    "awq_marlin": "int4-awq",
}
DTYPE_WEIGHTS = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "half": "fp16"}


class FigureComparison(BaseModel, frozen=True, extra="forbid"):
    """One figure: what the planner predicts, what the log printed, predicted - printed."""

    name: str
    unit: Unit
    predicted: float | None
    printed: float | None

    @property
    def difference(self) -> float | None:
        return None if self.predicted is None or self.printed is None else self.predicted - self.printed


class CalibrationSetup(BaseModel, frozen=True, extra="forbid"):
    """The set-up the comparison planned, and where each part came from."""

    model: str
    gpu: str
    tensor_parallel: int
    pipeline_parallel: int
    weights: str
    kv_dtype: str | None
    max_model_len: int
    engine_version: str
    gpu_memory_utilization: float
    from_log: tuple[str, ...]  # the fields read from the log rather than given


class CalibrationResult(BaseModel, frozen=True, extra="forbid"):
    """What :func:`calibrate_log` returns."""

    parsed: ParsedLog
    setup: CalibrationSetup
    comparisons: tuple[FigureComparison, ...]
    predicted_failure: str | None  # the planner's failure_kind for the set-up (None: starts)
    printed_failure: str | None  # the log's
    calibrated: Calibrated
    calibration_token: str  # the calibrated profile in a shared link
    calibrated_kv_gib: float  # the KV the calibrated profile predicts (the printed KV up to rounding)
    notes: tuple[str, ...] = ()


def _catalog_model(name: str) -> ModelSpec:
    """The catalog model a log names: the entry or an entry's alias (:func:`model_catalog.resolve_model_id`, the
    one resolution every surface uses), else a refusal naming the CLI's flag."""
    try:
        return get_model(name).spec
    except CatalogError:
        raise PlannerError(
            f"calibration: the log's model {name!r} is not in the catalog; name it with --model (a catalog id)"
        ) from None


WINDOWS_NOTE = (
    "the log's device total ({total:.2f} GiB) is the card's whole memory, as CUDA reports it under Windows (WSL2, "
    "Docker Desktop): planned on the Windows machine (the Memory page's Machine, fit --host windows)"
)


def _catalog_gpu(parsed: ParsedLog) -> GpuSpec:
    """The catalog GPU whose engine-visible total matches the printed one (to 0.01 GiB), else the one card whose
    whole memory does (a Windows start-up: :func:`planner.deploy.host.printed_on`)."""
    found: dict[str, list[GpuSpec]] = {"linux": [], "windows": []}
    for gpu in load_gpus().values():
        machine = printed_on(gpu, parsed.total_memory_gib)
        if machine is not None:
            found[machine].append(gpu)
    if found["linux"]:
        return found["linux"][0]
    if len(found["windows"]) == 1:
        return found["windows"][0]
    raise PlannerError("calibration: the log does not say which GPU; name it with --gpu (a catalog id)")


def _weights(parsed: ParsedLog, model: ModelSpec) -> str:
    quantization = (parsed.quantization or "None").lower()
    if quantization in QUANTIZATION_WEIGHTS:
        return QUANTIZATION_WEIGHTS[quantization]
    if quantization not in ("none", ""):
        raise PlannerError(
            f"calibration: the log's checkpoint is {parsed.quantization}; name the weight format with --weights"
        )
    return DTYPE_WEIGHTS.get((parsed.dtype or "").lower(), model.native_dtype)


def log_comparisons(report: EngineReport, parsed: ParsedLog) -> tuple[FigureComparison, ...]:
    """Each figure the engine prints, predicted beside a log's: one comparison for ``calibrate`` and the Memory
    page's table alike."""

    def gib(n: int) -> float:
        return n / GiB

    graph = parsed.cuda_graph_estimate_gib if parsed.cuda_graph_estimate_gib is not None else parsed.cuda_graph_gib
    rows: list[tuple[str, Unit, float | None, float | None]] = [
        ("device total", "GiB", gib(report.total_memory_bytes), parsed.total_memory_gib),
        ("weights", "GiB", gib(report.weights_bytes), parsed.weights_gib),
        ("activation peak", "GiB", gib(report.activation_bytes), parsed.activation_peak_gib),
        ("non-torch memory", "GiB", gib(report.non_torch_bytes), parsed.non_torch_gib),
        ("CUDA-graph estimate", "GiB", gib(report.cuda_graph_bytes), graph),
        ("available KV cache", "GiB", gib(report.available_kv_cache_bytes_per_gpu), parsed.kv_cache_gib),
        ("KV cache tokens", "tokens", float(report.kv_cache_tokens), _float(parsed.kv_cache_tokens)),
        ("GPU blocks", "blocks", float(report.gpu_blocks), _float(parsed.gpu_blocks)),
        ("maximum concurrency", "x", report.max_concurrency, parsed.max_concurrency),
    ]
    return tuple(FigureComparison(name=n, unit=u, predicted=p, printed=q) for n, u, p, q in rows)


def _float(value: int | None) -> float | None:
    return None if value is None else float(value)


def _resolve_setup(parsed: ParsedLog, given: dict[str, Any]) -> tuple[ModelSpec, GpuSpec, CalibrationSetup]:
    """The set-up to plan: each field as given, else as the log shows it, else the default."""
    read: list[str] = []
    model = given["model"]
    if isinstance(model, ModelSpec):
        spec = model
    elif isinstance(model, str):
        spec = get_model(model).spec
    elif parsed.model is not None:
        spec, read = _catalog_model(parsed.model), ["model"]
    else:
        raise PlannerError("calibration: the log does not name its model; name it with --model (a catalog id)")
    gpu = given["gpu"]
    device = gpu if isinstance(gpu, GpuSpec) else get_gpu(gpu) if isinstance(gpu, str) else _catalog_gpu(parsed)
    read += [] if gpu is not None else ["gpu"]
    defaults = {"tensor_parallel": 1, "pipeline_parallel": 1, "max_model_len": spec.max_position_embeddings}
    values: dict[str, Any] = {}
    for field in ("tensor_parallel", "pipeline_parallel", "max_model_len", "engine_version", "gpu_memory_utilization"):
        from_log = getattr(parsed, field)
        if given[field] is None and from_log is not None:
            read.append(field)
        values[field] = given[field] if given[field] is not None else from_log
        values[field] = values[field] if values[field] is not None else defaults.get(field)
    profile = engine_profile(parsed.engine, fraction=values["gpu_memory_utilization"], version=values["engine_version"])
    util = profile.utilization if isinstance(profile, VllmProfile) else values["gpu_memory_utilization"]
    kv = given["kv_dtype"] or ("fp8" if (parsed.kv_cache_dtype or "").startswith("fp8") else None)
    setup = CalibrationSetup(
        model=spec.id, gpu=device.id, tensor_parallel=values["tensor_parallel"],
        pipeline_parallel=values["pipeline_parallel"], weights=given["weights"] or _weights(parsed, spec),
        kv_dtype=kv, max_model_len=values["max_model_len"], engine_version=profile.engine_version,
        gpu_memory_utilization=util, from_log=tuple(read),
    )  # fmt: skip
    return spec, device, setup


def calibrate_log(
    text: str,
    *,
    model: ModelSpec | str | None = None,
    gpu: GpuSpec | str | None = None,
    tensor_parallel: int | None = None,
    pipeline_parallel: int | None = None,
    max_model_len: int | None = None,
    weights: str | None = None,
    kv_dtype: str | None = None,
    engine_version: str | None = None,
    gpu_memory_utilization: float | None = None,
) -> CalibrationResult:
    """Parse a vLLM start-up log, predict the same set-up, compare figure by figure, and calibrate.

    Every argument left ``None`` is read from the log (the model from vLLM's config line, matched in the
    catalog; the GPU from the printed device total). Raises :class:`PlannerError` naming what is missing.
    """
    parsed = parse_log(text)
    if not isinstance(get_engine(parsed.engine).profile(), VllmProfile):
        raise PlannerError(f"calibration: only vLLM logs are compared so far (this log is {parsed.format})")
    given = dict(locals())
    spec, device, setup = _resolve_setup(parsed, given)
    profile = engine_profile(parsed.engine, fraction=setup.gpu_memory_utilization, version=setup.engine_version)
    tp, pp, length = setup.tensor_parallel, setup.pipeline_parallel, setup.max_model_len
    windows = printed_on(device, parsed.total_memory_gib) == "windows"  # CUDA's whole-card total: WSL2, Docker Desktop
    memory = printed_total_bytes(device, "windows" if windows else "linux")
    request = PlanRequest.model_validate(
        {
            "model": spec, "gpu": device, "gpu_memory_bytes": memory,
            "gpu_count": tp * pp, "tensor_parallel": tp, "pipeline_parallel": pp, "weights": setup.weights,
            "kv_dtype": setup.kv_dtype, "context_tokens": length, "max_model_len": length, "overhead": profile,
            "deployment": DeploymentOptions(host="windows") if windows else None,
        }
    )  # fmt: skip
    report = engine_report(request, plan(request))
    calibrated = calibrate(parsed, setup.engine_version, setup.gpu_memory_utilization)
    if not isinstance(calibrated, Calibrated):  # the registry's calibrating engine is vLLM (checked above)
        raise PlannerError(f"calibration: a {parsed.format} log gives no vLLM calibration")
    cal_request = request.model_copy(update={"overhead": calibrated})
    cal_report = engine_report(cal_request, plan(cal_request))
    renamed = parsed.model is not None and parsed.model != spec.id
    note = alias_note(parsed.model) if parsed.model is not None and "model" in setup.from_log else None
    return CalibrationResult(
        parsed=parsed,
        setup=setup,
        comparisons=log_comparisons(report, parsed),
        predicted_failure=report.failure_kind,
        printed_failure=parsed.failure_kind,
        calibrated=calibrated,
        calibration_token=calibrated.to_token(),
        calibrated_kv_gib=cal_report.available_kv_cache_bytes_per_gpu / GiB,
        notes=(
            *([note or f"log model {parsed.model} planned as {spec.id}"] if renamed else []),
            *([WINDOWS_NOTE.format(total=parsed.total_memory_gib)] if windows else []),
            *report.notes,
        ),
    )
