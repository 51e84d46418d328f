"""Compare a pasted start-up log with what the planner predicts for the same set-up, and calibrate from it.

:func:`calibrate_log` is the pure function behind ``python -m planner calibrate --log FILE [--model ...]
--json``: it parses the log (:func:`planner.logparse.parse_log`), rebuilds the set-up it shows (model, GPU,
parallelism, precision, release, memory fraction; each taken from the log unless given), predicts what the
engine prints, and returns every figure predicted / printed / difference, the start-up verdicts, and the
calibrated profile (the printed weights, activation, non-torch and CUDA-graph terms replacing the estimates)
with what it predicts in turn.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from model_catalog import get_gpu, get_model, load_gpus, load_models
from planner.engines.calibrated import Calibrated
from planner.engines.common import EngineReport
from planner.engines.registry import engine_profile, engine_report
from planner.errors import PlannerError
from planner.gpu import GpuSpec
from planner.logparse import ParsedLog, calibrate, parse_log
from planner.model import ModelSpec
from planner.plan import PlanRequest, plan
from planner.units import GiB

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
    """The catalog model a log names, matched on the id with an -Instruct/-Chat/-it suffix removed if needed."""
    models = {key.lower(): entry for key, entry in load_models().items()}
    for candidate in (name, name.removesuffix("-Instruct"), name.removesuffix("-Chat"), name.removesuffix("-it")):
        entry = models.get(candidate.lower())
        if entry is not None:
            return entry.spec
    raise PlannerError(f"calibration: the log's model {name!r} is not in the catalog; name it (model=...)")


def _catalog_gpu(parsed: ParsedLog) -> GpuSpec:
    """The catalog GPU whose engine-visible total matches the printed one (to 0.01 GiB)."""
    if parsed.total_memory_gib is not None:
        for gpu in load_gpus().values():
            visible = gpu.engine_visible_bytes
            if visible is not None and abs(visible / GiB - parsed.total_memory_gib) < 0.011:
                return gpu
    raise PlannerError("calibration: the log does not say which GPU; name it (gpu=..., a catalog id)")


def _weights(parsed: ParsedLog, model: ModelSpec) -> str:
    quantization = (parsed.quantization or "None").lower()
    if quantization in QUANTIZATION_WEIGHTS:
        return QUANTIZATION_WEIGHTS[quantization]
    if quantization not in ("none", ""):
        raise PlannerError(
            f"calibration: the log's checkpoint is {parsed.quantization}; name the weight format (weights=...)"
        )
    return DTYPE_WEIGHTS.get((parsed.dtype or "").lower(), model.native_dtype)


def _comparisons(report: EngineReport, parsed: ParsedLog) -> tuple[FigureComparison, ...]:
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
    if parsed.format not in ("vllm-v1", "vllm-v0"):
        raise PlannerError(f"calibration: only vLLM logs are compared so far (this log is {parsed.format})")
    read: list[str] = []
    spec = model if isinstance(model, ModelSpec) else None
    if spec is None:
        name = model if isinstance(model, str) else parsed.model
        if name is None:
            raise PlannerError("calibration: the log does not name its model; name it (model=...)")
        spec = get_model(name).spec if isinstance(model, str) else _catalog_model(name)
        read += [] if isinstance(model, str) else ["model"]
    device = gpu if isinstance(gpu, GpuSpec) else get_gpu(gpu) if isinstance(gpu, str) else _catalog_gpu(parsed)
    read += [] if gpu is not None else ["gpu"]

    def pick(given: int | None, from_log: int | None, field: str, default: int) -> int:
        if given is None and from_log is not None:
            read.append(field)
        return given if given is not None else from_log if from_log is not None else default

    tp = pick(tensor_parallel, parsed.tensor_parallel, "tensor_parallel", 1)
    pp = pick(pipeline_parallel, parsed.pipeline_parallel, "pipeline_parallel", 1)
    length = pick(max_model_len, parsed.max_model_len, "max_model_len", spec.max_position_embeddings)
    version = engine_version or parsed.engine_version
    read += ["engine_version"] if engine_version is None and parsed.engine_version else []
    util = gpu_memory_utilization or parsed.gpu_memory_utilization
    read += ["gpu_memory_utilization"] if gpu_memory_utilization is None and parsed.gpu_memory_utilization else []
    fmt = weights or _weights(parsed, spec)
    kv = kv_dtype or ("fp8" if (parsed.kv_cache_dtype or "").startswith("fp8") else None)
    profile = engine_profile("vllm", fraction=util, version=version)
    memory = device.engine_visible_bytes or device.memory_bytes
    request = PlanRequest.model_validate(
        {
            "model": spec, "gpu": device, "gpu_memory_bytes": memory, "gpu_count": tp * pp, "tensor_parallel": tp,
            "pipeline_parallel": pp, "weights": fmt, "kv_dtype": kv, "context_tokens": length,
            "max_model_len": length, "overhead": profile,
        }
    )  # fmt: skip
    report = engine_report(request, plan(request))
    calibrated = calibrate(parsed, engine_version=profile.engine_version, gpu_memory_utilization=util)
    cal_request = request.model_copy(update={"overhead": calibrated})
    cal_report = engine_report(cal_request, plan(cal_request))
    setup = CalibrationSetup(
        model=spec.id, gpu=device.id, tensor_parallel=tp, pipeline_parallel=pp, weights=fmt, kv_dtype=kv,
        max_model_len=length, engine_version=profile.engine_version,
        gpu_memory_utilization=calibrated.gpu_memory_utilization, from_log=tuple(read),
    )  # fmt: skip
    notes = (
        [] if parsed.model is None or parsed.model == spec.id else [f"log model {parsed.model} planned as {spec.id}"]
    )
    return CalibrationResult(
        parsed=parsed,
        setup=setup,
        comparisons=_comparisons(report, parsed),
        predicted_failure=report.failure_kind,
        printed_failure=parsed.failure_kind,
        calibrated=calibrated,
        calibration_token=calibrated.to_token(),
        calibrated_kv_gib=cal_report.available_kv_cache_bytes_per_gpu / GiB,
        notes=tuple(notes + list(report.notes)),
    )
