"""The speed estimates against published measurements: the data file, its schema, and the error of each row.

``measurements.toml`` (next to this module) holds one ``[[measurement]]`` per published figure, with its
source, engine and role (``fit`` rows fix the constants of :mod:`planner.advisor.throughput`; ``held-out``
rows only measure the error). :func:`measurements` loads and validates it; :func:`validation_rows` compares
each with :func:`predict`.
"""

from __future__ import annotations

import math
import tomllib
from functools import cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from planner.advisor.support import family
from planner.advisor.throughput import FITTED, Roofline, decode_estimate, default_compute_path, prefill_seconds
from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.core.params import parameter_breakdown

MEASUREMENTS_FILE = Path(__file__).with_name("measurements.toml")

Metric = Literal["decode_per_user", "output_total", "output_per_gpu", "ttft_seconds", "prefill_per_s"]
Role = Literal["fit", "held-out"]
PositiveInt = Annotated[int, Field(gt=0)]


class Measurement(BaseModel, frozen=True, extra="forbid"):
    """A published speed figure and the set-up it maps to in the catalog."""

    label: Annotated[str, Field(min_length=1)]
    model_id: str  # a catalog model id
    gpu_id: str  # a catalog GPU id
    weights: str
    kv_dtype: str
    tensor_parallel: PositiveInt
    batch: PositiveInt
    prompt_tokens: Annotated[int, Field(ge=0)]
    output_tokens: PositiveInt
    metric: Metric
    value: Annotated[float, Field(gt=0)]  # tokens/s, or seconds for ttft
    engine: Annotated[str, Field(min_length=1)]
    source: Annotated[str, Field(min_length=1)]
    role: Role
    fixes: tuple[str, ...] = ()  # the Roofline constants a fit row fixes
    note: str = ""

    @model_validator(mode="after")
    def _check(self) -> Measurement:
        if (self.role == "fit") != bool(self.fixes):
            raise ValueError("fixes: a fit row names the constants it fixes, a held-out row none")
        unknown = [f for f in self.fixes if f not in Roofline._fields]
        if unknown:
            raise ValueError(f"fixes: {', '.join(unknown)} is not a constant of planner.advisor.throughput.Roofline")
        return self


class _MeasurementFile(BaseModel, frozen=True, extra="forbid"):
    measurement: tuple[Measurement, ...]


@cache
def measurements(path: Path = MEASUREMENTS_FILE) -> tuple[Measurement, ...]:
    """Every published measurement in ``path``, validated (a bad row raises :class:`PlannerError` naming it)."""
    try:
        data = _MeasurementFile.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    except tomllib.TOMLDecodeError as exc:
        raise PlannerError(f"{path.name}: not valid TOML: {exc}") from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise PlannerError(f"{path.name}: {problems}") from None
    labels = [m.label for m in data.measurement]
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        raise PlannerError(f"{path.name}: duplicate labels {', '.join(duplicates)}")
    return data.measurement


def predict(measurement: Measurement, model: ModelSpec, gpu: GpuSpec, roofline: Roofline = FITTED) -> float | None:
    """What the estimates give for a measurement's set-up, in its metric (arithmetic: the format's own tensor
    cores when the GPU has a figure for them, else 16-bit, :func:`default_compute_path`).

    Static-batch throughput (``output_total``, ``output_per_gpu``): ``batch x output`` tokens over the prefill of
    ``batch x prompt`` tokens plus ``output`` decode steps at the mean context ``prompt + output / 2`` (the KV
    read grows linearly, so the mean step is the step at the mean context).
    """
    m = measurement
    params = parameter_breakdown(model)
    path = default_compute_path(gpu, m.weights)
    if m.metric in ("ttft_seconds", "prefill_per_s"):
        seconds = prefill_seconds(model, gpu, path, m.tensor_parallel, m.prompt_tokens, params, roofline)[0]
        if seconds is None or m.metric == "ttft_seconds":
            return seconds
        return m.prompt_tokens / seconds
    context = m.prompt_tokens + m.output_tokens // 2
    decode = decode_estimate(
        model, gpu, m.weights, m.kv_dtype, m.tensor_parallel, m.batch, context, params, path, roofline
    )
    if decode is None:
        return None
    if m.metric == "decode_per_user":
        return decode.tokens_per_s_per_user
    prefill = prefill_seconds(model, gpu, path, m.tensor_parallel, m.prompt_tokens, params, roofline)[0] or 0.0
    total_seconds = prefill * m.batch + decode.step_seconds * m.output_tokens
    tokens_per_s = m.batch * m.output_tokens / total_seconds
    return tokens_per_s / m.tensor_parallel if m.metric == "output_per_gpu" else tokens_per_s


class ValidationRow(BaseModel, frozen=True, extra="forbid"):
    label: str
    gpu_family: str
    metric: Metric
    measured: float
    predicted: float | None
    error: float | None  # predicted / measured - 1
    role: Role
    engine: str
    source: str


def validation_rows(roofline: Roofline = FITTED, rows: tuple[Measurement, ...] | None = None) -> list[ValidationRow]:
    """Every published measurement against the estimate (the catalog supplies the model and the GPU)."""
    from model_catalog import get_gpu, get_model  # the catalog imports the planner: import late

    out = []
    for m in measurements() if rows is None else rows:
        gpu = get_gpu(m.gpu_id)
        predicted = predict(m, get_model(m.model_id).spec, gpu, roofline)
        out.append(
            ValidationRow(
                label=m.label,
                gpu_family=family(gpu) or "other",
                metric=m.metric,
                measured=m.value,
                predicted=predicted,
                error=None if predicted is None else predicted / m.value - 1,
                role=m.role,
                engine=m.engine,
                source=m.source,
            )
        )
    return out


def log_rms_error(rows: list[ValidationRow]) -> float:
    """Root-mean-square of ``ln(predicted / measured)`` over rows with a prediction."""
    logs = [math.log(1 + r.error) for r in rows if r.error is not None]
    return math.sqrt(sum(x * x for x in logs) / len(logs)) if logs else 0.0


class FamilyError(BaseModel, frozen=True, extra="forbid"):
    """The error of the estimates on one GPU family: log-RMS over the fit rows and the held-out rows, and the
    held-out row the model misses most."""

    gpu_family: str
    fit_rows: int
    fit_log_rms: float | None
    held_out_rows: int
    held_out_log_rms: float | None
    worst_label: str | None
    worst_error: float | None


def family_errors(rows: list[ValidationRow]) -> list[FamilyError]:
    """:func:`log_rms_error` per GPU family, fit and held-out rows apart."""
    out = []
    for fam in sorted({r.gpu_family for r in rows}):
        fit = [r for r in rows if r.gpu_family == fam and r.role == "fit" and r.error is not None]
        held = [r for r in rows if r.gpu_family == fam and r.role == "held-out" and r.error is not None]
        worst = max(held, key=lambda r: abs(math.log(1 + (r.error or 0.0))), default=None)
        out.append(
            FamilyError(
                gpu_family=fam,
                fit_rows=len(fit),
                fit_log_rms=log_rms_error(fit) if fit else None,
                held_out_rows=len(held),
                held_out_log_rms=log_rms_error(held) if held else None,
                worst_label=worst.label if worst else None,
                worst_error=worst.error if worst else None,
            )
        )
    return out
