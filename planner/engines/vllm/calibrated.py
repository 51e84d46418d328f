"""Overheads measured on a real start-up (:func:`calibrated_from_log`, behind :func:`planner.sources.logs.calibrate`).

The measured weights, activation peak, non-torch memory and device total replace vLLM's estimates; absent
figures fall back to the vLLM profile's. A calibration travels in a shared link as a short string
(:meth:`Calibrated.to_token`).
"""

from __future__ import annotations

import math
import re
from typing import Annotated, ClassVar, Literal

from pydantic import Field, ValidationError

from planner.bounds.errors import PlannerError, describe_validation_error
from planner.bounds.limits import MAX_GPU_MEMORY_BYTES, GpuMemoryBytes
from planner.core.overhead import Fraction, LoadContext, OverheadBytes, StageContext, VllmRelease
from planner.core.units import GiB
from planner.engines.base import CalibratedProfile
from planner.engines.logfigures import ParsedLog
from planner.engines.platform import platform_of
from planner.engines.vllm.blocks import StageOverrides
from planner.engines.vllm.estimates import vllm_cudagraph_bytes
from planner.engines.vllm.profile import VLLM_DEFAULT_VERSION, VllmProfile

# The short form's fields, by letter (Calibrated.to_token).
CALIBRATION_LETTERS = (
    ("t", "total_memory_bytes"),
    ("w", "weights_bytes"),
    ("a", "activation_bytes"),
    ("n", "non_torch_bytes"),
    ("g", "cuda_graph_bytes"),
)
# Measured bytes: at most what one GPU may hold (planner.bounds.limits), so every calibration fits a link's 15 digits.
NonNegative = Annotated[int, Field(ge=0, le=MAX_GPU_MEMORY_BYTES)]
ENGINES = ("vllm", "sglang", "llamacpp")
MAX_TOKEN_CHARS = 200  # ui.settings.MAX_TEXT_CHARS: what a link may carry
MAX_FIGURE_DIGITS = 15  # bytes: 10^15 is a petabyte, beyond any GPU's memory
_DIGITS = re.compile(r"[0-9]+")  # ASCII digits only (str.isdigit() accepts "²", which int() refuses)
_FRACTION = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,16})?(?:e-?[0-9]{1,2})?")


class Calibrated(CalibratedProfile, frozen=True, extra="forbid"):
    """A vLLM profile whose working space was measured: figures given replace the estimates."""

    kind: Literal["calibrated"] = "calibrated"
    reserve_is_spare: ClassVar[bool] = True  # vLLM's accounting
    engine: Literal["vllm", "sglang", "llamacpp"] = "vllm"  # the engine whose log it was
    engine_version: VllmRelease = VLLM_DEFAULT_VERSION
    gpu_memory_utilization: Fraction = 0.90
    total_memory_bytes: GpuMemoryBytes | None = None
    weights_bytes: NonNegative | None = None
    activation_bytes: NonNegative | None = None
    non_torch_bytes: NonNegative | None = None
    cuda_graph_bytes: NonNegative | None = None

    @property
    def engine_name(self) -> str:
        """Calibrations are reported and launched through vLLM's accounting."""
        return "vllm"

    def base_profile(self) -> VllmProfile:
        return VllmProfile(engine_version=self.engine_version, gpu_memory_utilization=self.gpu_memory_utilization)

    def stage_overrides(self, pipeline_parallel: int) -> StageOverrides:
        """The measured figures as overrides of vLLM's per-rank estimates (the weights reach the plan:
        :meth:`loaded_weights_bytes`)."""
        return StageOverrides(
            activation=self.activation_bytes,
            non_torch=self.non_torch_bytes,
            cuda_graph=self.cuda_graph_bytes,
            util_total=self.total_memory_bytes,
        )

    def loaded_weights_bytes(self, ctx: LoadContext) -> int:
        """The measured weights ("Model loading took", one stage: the log's rank holds them all), else vLLM's."""
        if self.weights_bytes is not None and ctx.pipeline_parallel == 1:
            return self.weights_bytes
        return self.base_profile().loaded_weights_bytes(ctx)

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        """Measured figures where given. The device total is folded into the reserve, which stays non-negative:
        ``memory - util x total``."""
        base = self.base_profile()
        activation = self.activation_bytes
        if activation is None:
            activation = base.activation_bytes(ctx)
        framework = (
            self.non_torch_bytes
            if self.non_torch_bytes is not None
            else base.non_torch_bytes(
                ctx.tensor_parallel, ctx.pipeline_parallel, platform_of(ctx.platform), ctx.weights_bytes
            )
        )
        if base.cudagraph_in_budget:
            graph = self.cuda_graph_bytes
            framework += graph if graph is not None else vllm_cudagraph_bytes(ctx.model, ctx, base)
        total = self.total_memory_bytes or ctx.gpu_memory_bytes
        reserved = ctx.gpu_memory_bytes - math.floor(self.gpu_memory_utilization * total)
        return OverheadBytes(activation_bytes=activation, framework_bytes=framework, reserved_bytes=max(0, reserved))

    def to_token(self) -> str:
        """``"cal1~vllm~0.19.0~0.95~t85029615043~w16095..."``: short, URL-safe, round-trips exactly."""
        parts = ["cal1", self.engine, self.engine_version, f"{self.gpu_memory_utilization:g}"]
        for letter, name in CALIBRATION_LETTERS:
            value = getattr(self, name)
            if value is not None:
                parts.append(f"{letter}{value}")
        return "~".join(parts)

    @classmethod
    def from_token(cls, token: str) -> Calibrated:
        """Inverse of :meth:`to_token`; a malformed string raises :class:`planner.bounds.errors.PlannerError` naming the
        part: at most :data:`MAX_TOKEN_CHARS` characters, a known engine, a short release, a fraction in (0, 1],
        and figures of ASCII digits, at most :data:`MAX_FIGURE_DIGITS` each, each given once."""
        text = token.strip()
        if len(text) > MAX_TOKEN_CHARS:
            raise PlannerError(f"calibration: longer than {MAX_TOKEN_CHARS} characters; not one Headroom made")
        parts = text.split("~")
        if len(parts) < 4 or parts[0] != "cal1":
            raise PlannerError(f"calibration: expected 'cal1~engine~version~util~...', got {text[:60]!r}")
        engine, version, util = parts[1:4]
        if engine not in ENGINES:
            raise PlannerError(f"calibration: unknown engine {engine[:20]!r} (one of {', '.join(ENGINES)})")
        if not _FRACTION.fullmatch(util) or not 0 < float(util) <= 1:
            raise PlannerError(f"calibration: the memory fraction {util[:20]!r} is not a number in (0, 1]")
        fields: dict[str, object] = {"engine": engine, "engine_version": version, "gpu_memory_utilization": float(util)}
        names = dict(CALIBRATION_LETTERS)
        for part in parts[4:]:
            name, digits = names.get(part[:1]), part[1:]
            if name is None or not _DIGITS.fullmatch(digits):
                raise PlannerError(f"calibration: unreadable field {part[:20]!r}")
            if len(digits) > MAX_FIGURE_DIGITS:
                raise PlannerError(
                    f"calibration: {name} has {len(digits)} digits; at most {MAX_FIGURE_DIGITS} (a petabyte)"
                )
            if name in fields:
                raise PlannerError(f"calibration: {name} is given twice")
            fields[name] = int(digits)
        try:
            return cls.model_validate(fields)
        except ValidationError as exc:
            raise PlannerError(f"calibration: {describe_validation_error(exc)}") from None


V0_RELEASE = "0.6.4"  # a V0 log that names no release: the V0 rules the planner has (vllm#10517's v0.6.4 lines)


def calibrated_from_log(
    parsed: ParsedLog, engine_version: str | None = None, gpu_memory_utilization: float | None = None
) -> Calibrated:
    """A calibrated profile from a parsed log: the measured weights, activation peak, non-torch memory, CUDA-graph
    memory and device total replace the estimates (any engine's log; vLLM's accounting)."""

    def to_bytes(gib: float | None) -> int | None:
        return None if gib is None or gib < 0 else round(gib * GiB)

    if parsed.engine not in ENGINES:
        raise PlannerError(f"calibration: {parsed.engine}'s figures are not calibrated (one of {', '.join(ENGINES)})")
    version = engine_version or parsed.engine_version
    version = version or (V0_RELEASE if parsed.format == "vllm-v0" else VLLM_DEFAULT_VERSION)
    util = gpu_memory_utilization or parsed.gpu_memory_utilization or VllmProfile(engine_version=version).utilization
    graph = parsed.cuda_graph_estimate_gib if parsed.cudagraph_in_budget else parsed.cuda_graph_gib
    if parsed.peak_includes_graphs:  # the activation figure holds the estimate the budget subtracted
        graph = 0.0
    return Calibrated(
        engine=parsed.engine,
        engine_version=version,
        gpu_memory_utilization=util,
        total_memory_bytes=to_bytes(parsed.total_memory_gib) or None,
        weights_bytes=to_bytes(parsed.weights_gib),
        activation_bytes=to_bytes(parsed.activation_peak_gib),
        non_torch_bytes=to_bytes(parsed.non_torch_gib),
        cuda_graph_bytes=to_bytes(graph),
    )
