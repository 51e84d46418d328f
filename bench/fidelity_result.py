"""One engine-log case's outcome: what the log printed, what the planner predicts in sample and left out."""

from __future__ import annotations

from pydantic import BaseModel

from bench.fidelity_cases import Setup
from planner.core.units import GiB
from planner.engines.base import EngineReport


class CaseResult(BaseModel, frozen=True, extra="forbid"):
    """One case: what the log printed, what the profiles predict (in sample and left out), and the errors."""

    id: str
    engine: str
    engine_version: str  # the release the set-up models
    family: str
    setup: Setup
    source: str
    reported_kv_gib: float | None
    reported_tokens: int | None
    reported_blocks: int | None
    reported_concurrency: float | None
    reported_failure: str | None  # the failure kind the log shows ("other" when not a memory reason)
    report: EngineReport | None  # None when the planner refuses the set-up (error)
    error: str | None = None  # the PlannerError the set-up raises
    cv_kv_gib: float | None = None  # leave-one-family-out prediction (vLLM V1)
    loro_kv_gib: float | None = None  # leave-one-release-out prediction (vLLM V1)
    kv_how: str = ""  # how the log gives its KV budget: printed, from blocks, from tokens (bench.derived)
    reported_weights_gib: float | None = None

    @property
    def predicted_kv_gib(self) -> float | None:
        return None if self.report is None else self.report.available_kv_cache_bytes_per_gpu / GiB

    @property
    def kv_error_gib(self) -> float | None:
        if self.reported_kv_gib is None or self.predicted_kv_gib is None:
            return None
        return self.predicted_kv_gib - self.reported_kv_gib

    @property
    def cv_error_gib(self) -> float | None:
        if self.reported_kv_gib is None or self.cv_kv_gib is None:
            return None
        return self.cv_kv_gib - self.reported_kv_gib

    @property
    def loro_error_gib(self) -> float | None:
        if self.reported_kv_gib is None or self.loro_kv_gib is None:
            return None
        return self.loro_kv_gib - self.reported_kv_gib

    @property
    def weights_error_gib(self) -> float | None:
        """Weights as loaded on the printing rank, predicted less printed ("Model loading took")."""
        printed = self.reported_weights_gib
        if printed is None or self.report is None:
            return None
        return self.report.weights_bytes / GiB - printed

    @property
    def token_error(self) -> float | None:
        if not self.reported_tokens or self.report is None:
            return None
        return self.report.kv_cache_tokens / self.reported_tokens - 1

    @property
    def predicted_failure(self) -> str | None:
        if self.error is not None:
            return "tp-indivisible" if "tensor_parallel" in self.error else "planner-error"
        return None if self.report is None else self.report.failure_kind

    @property
    def verdict_right(self) -> bool | None:
        """Whether the planner says the same as the log: starts, or fails for the same reason (None: out of
        scope, the log failed for a reason no memory plan sees)."""
        if self.setup.out_of_scope:
            return None
        return self.predicted_failure == self.reported_failure
