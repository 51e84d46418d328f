"""What every engine module shares: the start-up report, the :class:`Engine` interface, loader helpers.

An engine is registered by one module implementing :class:`Engine` and one line in
:mod:`planner.engines.registry`; ``tests/engines/test_registry.py`` proves each registered engine is
complete (profile, report, launch command, labels, behaviour note).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import ClassVar, TypeVar

from pydantic import BaseModel, model_validator

from planner.bounds.errors import PlannerError
from planner.core.overhead import EngineProfile, FailureKind
from planner.core.units import GiB
from planner.engines.loading import loader_extra
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult

P = TypeVar("P", bound=EngineProfile)


def own_profile(profile: EngineProfile | None, kind: type[P], what: str) -> P:
    """``profile`` when it is of the engine's own ``kind``, ``kind``'s defaults when ``None``; another engine's
    profile is a :class:`PlannerError` (``what``: the engine's profile in words, "an SGLang profile")."""
    if profile is None:
        return kind.model_validate({})  # the defaults
    if not isinstance(profile, kind):
        raise PlannerError(f"engine: a {profile.kind!r} profile is not {what}")
    return profile


class EngineReport(BaseModel, frozen=True, extra="forbid"):
    """What the engine prints (per GPU, bytes), and whether it starts."""

    engine: str  # the registry name
    engine_version: str
    total_memory_bytes: int  # the device total as the engine sees it
    budget_bytes: int  # util x total (vLLM), mem_fraction_static x total (SGLang), free memory (TRT-LLM)
    weights_bytes: int  # as loaded on the printing rank (padding included)
    activation_bytes: int
    non_torch_bytes: int
    cuda_graph_bytes: int  # subtracted from the budget (vLLM >= 0.21) or only estimated
    available_kv_cache_bytes_per_gpu: int  # as printed by rank 0 (may be negative: the engine fails)
    min_available_kv_cache_bytes: int  # the tightest rank
    block_size: int
    gpu_blocks: int
    kv_cache_groups: int
    kv_cache_tokens: int  # the engine's printed token capacity
    max_model_len: int
    max_concurrency: float  # as printed, at max_model_len
    fits_max_model_len: bool
    estimated_max_model_len: int | None  # when one request of max_model_len does not fit
    fits: bool  # the engine starts and serves one request of max_model_len; False exactly when failure is set
    lines: tuple[str, ...]
    notes: tuple[str, ...] = ()
    failure_kind: FailureKind | None = None  # why the engine does not start (machine-readable)
    failure: str | None = None  # the engine's own error line for it

    @model_validator(mode="after")
    def _fits_iff_no_failure(self) -> EngineReport:
        if self.fits != (self.failure_kind is None) or (self.failure_kind is None) != (self.failure is None):
            raise ValueError("engine report: fits must be False exactly when failure_kind and failure are set")
        return self


class Engine(ABC):
    """A serving engine as the planner knows it. Subclasses set the labels and implement the four methods."""

    name: ClassVar[str]  # the registry name, the profile's ``kind``, the CLI's ``--engine`` and the URL value
    label: ClassVar[str]  # as people write it: "vLLM"
    description: ClassVar[str]  # one line for the profile picker
    profile_type: ClassVar[type[EngineProfile]]
    fraction_flag: ClassVar[str | None]  # the engine's own memory-fraction setting, None when it has none
    default_fraction: ClassVar[float | None]  # that setting's default; None: none, or a heuristic (SGLang)

    def fraction_default(self, version: str | None = None) -> float | None:
        """The memory fraction's default in ``version`` (``None``: the default release); engines whose default
        changed between releases override this."""
        return self.default_fraction

    full_pool_behaviour: ClassVar[str]  # what the engine does when the KV pool is full (for the advice)
    fixed_slots: ClassVar[bool] = False  # serves a number of conversations fixed at start-up (see for_users)

    @abstractmethod
    def profile(
        self,
        *,
        fraction: float | None = None,
        version: str | None = None,
        max_num_batched_tokens: int | None = None,
    ) -> EngineProfile:
        """The profile with the engine's memory fraction and release; ``None`` keeps each default."""

    @abstractmethod
    def report(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> EngineReport:
        """What the engine prints at start-up for this plan."""

    @abstractmethod
    def launch_command(self, request: PlanRequest, result: PlanResult, profile: EngineProfile | None) -> str:
        """A ready-to-paste start command (``profile`` None: the engine's defaults)."""

    @abstractmethod
    def max_model_len(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> int:
        """The largest context the set-up accepts, capped at the model's maximum; 0 when nothing fits."""

    def for_users(
        self, request: PlanRequest, result: PlanResult, profile: EngineProfile, users_per_replica: int
    ) -> EngineProfile:
        """``profile`` as launched to serve ``users_per_replica`` conversations at once. Engines that batch
        whatever fits in their pool (vLLM, SGLang, TensorRT-LLM) need nothing; an engine that fixes its slots at
        start-up (llama.cpp ``-np``) sets them, unless the profile already does."""
        return profile

    def releases(self) -> tuple[str, ...]:
        """The releases the engine's rules cover, oldest first (default: only the profile's default release)."""
        return (self.profile().engine_version,)


def engine_total_bytes(request: PlanRequest) -> int:
    """The device total the engine prints: ``GpuSpec.engine_visible_bytes`` when known, else the request's."""
    if request.gpu is not None and request.gpu.engine_visible_bytes is not None:
        return request.gpu.engine_visible_bytes
    return request.gpu_memory_bytes


def stage_total_bytes(request: PlanRequest, result: PlanResult, index: int) -> int:
    """The device total of pipeline stage ``index``: its own GPU's with mixed GPUs (``deployment.stage_gpus``), else
    :func:`engine_total_bytes`."""
    if request.deployment is not None and request.deployment.stage_gpus:
        return result.stages[index].gpu_memory_bytes
    return engine_total_bytes(request)


def round_up(value: int, multiple: int) -> int:
    """``value`` rounded up to a multiple of ``multiple``.

    >>> round_up(1440, 128)
    1536
    """
    return math.ceil(value / multiple) * multiple


def gib_text(n: float) -> str:
    """Bytes as the GiB figure engines print: ``gib_text(2**30) == '1.00'``."""
    return f"{n / GiB:.2f}"


def loader_extra_bytes(request: PlanRequest, tensor_parallel: int, layers: range) -> int:
    """Bytes an engine's loader adds to the checkpoint's weights on one GPU, by platform
    (:mod:`planner.engines.loading`: MXFP4 expert padding, Marlin's FP8 scales before Ada)."""
    return loader_extra(request, tensor_parallel, layers)
