"""What every engine module shares: the start-up report, the :class:`Engine` interface, loader helpers.

An engine is registered by one module implementing :class:`Engine` and one line in
:mod:`planner.engines.registry`; ``tests/engines/test_registry.py`` proves each registered engine is
complete (profile, report, launch command, labels, behaviour note).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Annotated, ClassVar, NamedTuple, TypeVar

from pydantic import BaseModel, Field, model_validator

from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.core.overhead import EngineProfile, FailureKind
from planner.core.units import GiB
from planner.deploy.host import whole_card
from planner.deploy.options import SpeculativeOptions
from planner.engines.checkpoints import WeightLoading, weight_loading
from planner.engines.logfigures import ParsedLog
from planner.engines.logscan import Lines
from planner.engines.lora_flags import lora_refusal
from planner.engines.options import deployment_flags, options_refusal
from planner.engines.settings import SettingValue, flag_name
from planner.engines.support import EngineSupport, Family, family
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult, StageMemory

P = TypeVar("P", bound=EngineProfile)


class SettingCure(NamedTuple):
    """Launch settings (by their :meth:`Engine.profile` names) that start a set-up the engine refused, and why."""

    settings: Mapping[str, SettingValue]
    why: str


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
    # the memory fraction in force (vLLM gpu_memory_utilization, SGLang mem_fraction_static as its heuristic gives
    # it, TensorRT-LLM kv_cache_free_gpu_mem_fraction); None: the engine has none (llama.cpp)
    fraction: float | None = None
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
    # KV cache per GPU a first boot may hold less than planned, quoted from public start-ups, not planned (vLLM's
    # Model Runner V2 transient): the verdict's margin is held to it as to the planner's own miss
    first_boot_bytes: int = 0
    failure_kind: FailureKind | None = None  # why the engine does not start (machine-readable)
    failure: str | None = None  # the engine's own error line for it
    # The KV cache the engine allocates on one GPU of each pipeline stage when it sizes the cache itself
    # (llama.cpp: -c cells); empty when it takes the pool the plan leaves (vLLM, SGLang, TensorRT-LLM).
    kv_cache_bytes_per_stage: tuple[int, ...] = ()
    # The most sequences one replica runs at once, set or by default (vLLM --max-num-seqs, SGLang
    # max_running_requests, TensorRT-LLM max_batch_size, llama.cpp -np slots); None: no limit of its own. More
    # conversations than this wait in the engine's queue, whatever the pool holds.
    max_running: Annotated[int, Field(gt=0)] | None = None

    @model_validator(mode="after")
    def _fits_iff_no_failure(self) -> EngineReport:
        if self.fits != (self.failure_kind is None) or (self.failure_kind is None) != (self.failure is None):
            raise ValueError("engine report: fits must be False exactly when failure_kind and failure are set")
        return self


class CalibratedProfile(EngineProfile, frozen=True, extra="forbid"):
    """An engine profile whose working space was measured on a real start-up (:meth:`Engine.calibrate`); it
    travels in a shared link as a short string."""

    @abstractmethod
    def to_token(self) -> str:
        """The profile as a short, URL-safe string that reads back to it."""


class Engine(ABC):
    """A serving engine as the planner knows it. A subclass sets the labels, its profile type, the settings it
    takes (:attr:`setting_fields`) and what it supports (:attr:`support`), and writes :meth:`report` and
    :meth:`launch_command`; the base class builds profiles, checks requests against the support and sizes the
    largest context from the report."""

    name: ClassVar[str]  # the registry name, the profile's ``kind``, the CLI's ``--engine`` and the URL value
    label: ClassVar[str]  # as people write it: "vLLM"
    description: ClassVar[str]  # one line for the profile picker
    profile_type: ClassVar[type[EngineProfile]]
    fraction_flag: ClassVar[str | None]  # the engine's own memory-fraction setting, None when it has none
    default_fraction: ClassVar[float | None]  # that setting's default; None: none, or a heuristic (SGLang)
    # The settings a profile is built from, by their generic name (the CLI's and the link's): the profile field
    # each fills. ``fraction`` is the memory fraction; a setting the engine has no field for is refused.
    setting_fields: ClassVar[dict[str, str]] = {}
    # A launch setting the engine does not plan -> its own flag for the same thing, named when the setting is refused
    setting_counterparts: ClassVar[dict[str, str]] = {}
    # A launch setting the engine does not take -> what it plans instead, in words, said when the setting is refused
    setting_instead: ClassVar[dict[str, str]] = {}
    # A launch setting the engine has under the same flag but that is not planned for it -> why, said when refused
    setting_unplanned: ClassVar[dict[str, str]] = {}
    support: ClassVar[EngineSupport]  # what it runs (platforms, KV dtypes) and which options it takes
    full_pool_behaviour: ClassVar[str]  # what the engine does when the KV pool is full (for the advice)
    log_hint: ClassVar[str] = ""  # a start-up line the log reader looks for, for the message when none is found
    # What the report's activation and non-torch figures are in this engine's own terms (exports label them so;
    # an empty name: the engine has no such figure, e.g. SGLang's unprofiled activations)
    report_terms: ClassVar[tuple[str, str]] = ("Activation peak", "Non-torch memory")
    fixed_slots: ClassVar[bool] = False  # serves a number of conversations fixed at start-up (see for_users)
    running_flag: ClassVar[str] = "its own limit"  # the setting that limits EngineReport.max_running, as spelled
    # The engine's own spelling of a launch setting it takes, where it is not the generic flag (vLLM's)
    setting_flags: ClassVar[dict[str, str]] = {}
    # The launch setting (a flag of planner.engines.settings) that makes its cache keep only the window of a model's
    # sliding-window and chunked layers, for an engine whose default keeps every token (TensorRT-LLM); None: the
    # engine sizes them by their windows already, or has no such setting
    window_setting: ClassVar[str | None] = None
    # Its log reader also takes a log that shows nothing but a failure line, so it reads after the others.
    log_fallback: ClassVar[bool] = False

    def fraction_default(
        self, version: str | None = None, gpu: GpuSpec | None = None, settings: Mapping[str, object] | None = None
    ) -> float | None:
        """The memory fraction's default in ``version`` (``None``: the default release) on ``gpu`` (``None``: a
        CUDA device) with these launch settings (:meth:`profile`'s keywords); engines whose default changed between
        releases, differs by device or follows a setting override this."""
        return self.default_fraction

    def profile(
        self, *, fraction: float | None = None, version: str | None = None, **settings: object
    ) -> EngineProfile:
        """The profile with these settings (``None`` keeps each default); a setting the engine does not take is a
        :class:`PlannerError` that says so."""
        data: dict[str, object] = {"engine_version": version} if version else {}
        for setting, value in {"fraction": fraction, **settings}.items():
            if value is None:
                continue
            field = self.setting_fields.get(setting)
            if field is None:
                raise PlannerError(f"engine: {self.untaken(setting)}")
            data[field] = value
        return self.profile_type.model_validate(data)

    def untaken(self, setting: str) -> str:
        """Why a setting the engine takes no field for is refused, in one sentence (the CLI's error and the
        dashboard's note on a link's value): it has no such setting, or its own flag of that name is not planned.

        >>> from planner.engines.registry import get_engine
        >>> get_engine("sglang").untaken("load_format")[:43]
        "SGLang's --load-format is not planned here:"
        """
        if setting in self.setting_unplanned:
            return f"{self.label}'s {flag_name(setting)} is not planned here: {self.setting_unplanned[setting]}"
        what = "memory fraction" if setting == "fraction" else flag_name(setting)
        own, instead = self.setting_counterparts.get(setting), self.setting_instead.get(setting)
        also = f"; {instead}" if instead else (f"; its own {own} is not planned here" if own else "")
        return f"{self.label} has no {what} setting{also}"

    def flag_for(self, setting: str, version: str | None = None) -> str:
        """A launch setting as this engine spells it in ``version`` (``None``: its default release):
        :attr:`setting_flags`, else the generic flag; engines that renamed a flag between releases override this."""
        return self.setting_flags.get(setting) or flag_name(setting)

    def own(self, profile: EngineProfile | None) -> EngineProfile:
        """``profile`` when it is this engine's, the defaults when ``None``; another engine's is refused."""
        return own_profile(profile, self.profile_type, f"a {self.label} profile")

    @abstractmethod
    def report(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> EngineReport:
        """What the engine prints at start-up for this plan."""

    def report_figures(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> EngineReport:
        """:meth:`report` without its notes (``notes`` empty): the same figures, lines and verdict, for a caller that
        reads no notes (the advisor assesses hundreds of set-ups). An engine whose notes cost work overrides it to
        skip them."""
        return self.report(request, result, profile).model_copy(update={"notes": ()})

    @abstractmethod
    def launch_command(self, request: PlanRequest, result: PlanResult, profile: EngineProfile | None) -> str:
        """A ready-to-paste start command (``profile`` None: the engine's defaults); every value in it is shell-quoted
        (:mod:`planner.engines.commands`)."""

    def max_model_len(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> int:
        """The largest context the set-up accepts, capped at the model's maximum; 0 when nothing fits. By default the
        tokens the KV pool holds (engines that size a context otherwise override it)."""
        return min(request.model.context_limit, max(0, self.report(request, result, profile).kv_cache_tokens))

    def context_limit_words(self) -> str:
        """The largest-context setting in the engine's own words, for "Largest … this set-up allows"."""
        return f"`{self.support.context_flag}`"

    def refusal(self, request: PlanRequest) -> str | None:
        """Why this engine does not run ``request`` as planned (its weights, KV dtype or deployment options on this
        GPU), in the engine's terms; ``None`` when it does."""
        fam, moe = family(request.gpu), request.model.moe is not None
        found = self._format_refusal(request.resolved_weights, request.resolved_kv_dtype, fam, moe)
        if found is None and request.model.linear_attention is not None:  # every release: before the release's own
            found = self.support.state_layers_refusal or None
        version = self.planned_version(request)
        if found is None and version is not None:
            found = self.support.model_refusal(request.model.model_type, version)
            found = found or self.support.format_release_refusal(version, request.resolved_weights, fam, moe)
        if found is None and request.model.mla is not None:
            sparse_at = version if request.model.indexer is not None else None  # DeepSeek sparse attention's rules
            found = self.support.mla_kv_refusal(request.resolved_kv_dtype, fam, sparse_at)
        found = found or options_refusal(self.support, request.deployment)
        speculating = request.deployment is not None and request.deployment.speculative is not None
        if found is None and speculating and request.resolved_parallelism[1] > 1:
            found = self.support.pipeline_speculation_refusal or None
        found = found or self.speculation_setting_refusal(request)
        lora = request.deployment.lora if request.deployment is not None else None
        if found is None and lora is not None and self.support.lora is not None:
            found = lora_refusal(self.support, request.model, lora)  # the pool as the engine sizes it for the model
        return found

    def speculation_setting_refusal(self, request: PlanRequest) -> str | None:
        """Why the engine does not start the request's speculative method with one of its launch settings on
        (:attr:`EngineSupport.speculation_setting_refusals`); ``None`` when it does."""
        spec = request.deployment.speculative if request.deployment is not None else None
        overhead = request.overhead
        if spec is None or not isinstance(overhead, self.profile_type):
            return None
        for refusal in self.support.speculation_setting_refusals:
            field = self.setting_fields.get(refusal.setting) if refusal.method == spec.method else None
            if field is not None and getattr(overhead, field, None):
                return refusal.reason
        return None

    def planned_version(self, request: PlanRequest) -> str | None:
        """The release ``request`` plans this engine at (``None``: another engine's profile or a generic one)."""
        overhead = request.overhead
        return overhead.engine_version if isinstance(overhead, self.profile_type) else None

    def _format_refusal(self, weights: str, kv: str, fam: Family | None, moe: bool) -> str | None:
        """The support table's refusal of the weights and KV dtype on ``fam``, asked once per engine and set of them
        (every assessment asks it; the table is the engine's constant, and a new table starts a new memo)."""
        support = self.support
        memo: tuple[EngineSupport, dict[tuple[str, str, Family | None, bool], str | None]] | None
        memo = self.__dict__.get("_format_refusals")
        if memo is None or memo[0] is not support:
            memo = (support, {})
            self.__dict__["_format_refusals"] = memo
        found = memo[1]
        key = (weights, kv, fam, moe)
        if key not in found:
            found[key] = support.weights_refusal(weights, fam, moe) or support.kv_refusal(kv, weights, fam)
        return found[key]

    def ranks_refusal(self, tensor_parallel: int) -> str | None:
        """Why the engine's data-parallel attention does not run ranks of ``tensor_parallel`` GPUs (``None``: it
        does; an engine whose ranks attend on one GPU overrides this)."""
        return None

    def check(self, request: PlanRequest) -> None:
        """:meth:`refusal` as an error: a request the engine cannot run is invalid input for it."""
        reason = self.refusal(request)
        if reason is not None:
            raise PlannerError(f"engine: {reason}")

    def weight_loading(self, model: ModelSpec, weights: str) -> WeightLoading:
        """How the launch command gets the planned weights (:func:`planner.engines.checkpoints.weight_loading`)."""
        return weight_loading(self.support, model, weights)

    def kv_cache_flags(self, kv_dtype: str) -> tuple[str, ...]:
        """The launch arguments that store the KV cache in ``kv_dtype`` (none for the engine's default)."""
        return ()

    def parse_log(self, lines: Lines) -> dict[str, object] | None:
        """The figures this engine's start-up log prints (``None`` when ``lines`` are not its log); the fields of
        :class:`planner.engines.logfigures.ParsedLog`, with ``format`` naming the log kind."""
        return None

    def calibrate(
        self, parsed: ParsedLog, engine_version: str | None, gpu_memory_utilization: float | None
    ) -> CalibratedProfile | None:
        """A profile whose measured figures (weights, activation peak, non-torch, CUDA graphs, device total) from
        ``parsed`` replace the estimates; ``None`` when this engine makes none."""
        return None

    def footprint_bytes(
        self, report: EngineReport, stage: StageMemory, profile: EngineProfile, request: PlanRequest
    ) -> int:
        """What the started engine holds on each GPU, seen by another engine started after it: everything but the
        memory it leaves free, and but a reserve it leaves unused (``reserve_is_spare``)."""
        spare = stage.reserved_bytes if profile.reserve_is_spare else 0
        return stage.gpu_memory_bytes - stage.free_bytes - spare

    def deployment_flags(self, request: PlanRequest, result: PlanResult, kv_offload_host_bytes: int) -> list[str]:
        """The launch arguments the request's deployment options add (split, offload, LoRA, speculation), each
        a shell-quoted argument list joined by spaces."""
        flags = deployment_flags(self.support, request, result, kv_offload_host_bytes)
        spec = request.deployment.speculative if request.deployment is not None else None
        return flags if spec is None else [*flags, *self.speculative_flags(spec, request, result)]

    def speculative_flags(self, spec: SpeculativeOptions, request: PlanRequest, result: PlanResult) -> list[str]:
        """The engine's own arguments for speculative decoding (an engine with :attr:`EngineSupport.
        speculative_methods` overrides this; a method it does not run is refused before, by ``options_refusal``)."""
        return []

    def for_users(
        self, request: PlanRequest, result: PlanResult, profile: EngineProfile, users_per_replica: int
    ) -> EngineProfile:
        """``profile`` as launched to serve ``users_per_replica`` conversations at once. Engines that batch
        whatever fits in their pool (vLLM, SGLang, TensorRT-LLM) need nothing; an engine that fixes its slots at
        start-up (llama.cpp ``-np``) sets them, unless the profile already does."""
        return profile

    def setting_cures(self, report: EngineReport) -> tuple[SettingCure, ...]:
        """The launch settings that cure the engine's refusal in ``report`` as its own rule says, each alone; none
        by default (the nearest set-ups' other levers are tried for every engine)."""
        return ()

    def slots_room(self, request: PlanRequest, result: PlanResult, profile: EngineProfile, most: int) -> int | None:
        """For an engine that fixes its slots at start-up (:attr:`fixed_slots`), the most, up to ``most``, its
        memory holds beside the weights and buffers; ``None`` for one whose pool holds whatever fits."""
        return None

    def releases(self) -> tuple[str, ...]:
        """The releases the engine's rules cover, oldest first (default: only the profile's default release)."""
        return (self.profile().engine_version,)

    def prefill_chunk_tokens(self, gpu_memory_bytes: int, gpu_name: str, tensor_parallel: int) -> int | None:
        """Prompt tokens one serving step takes at the engine's defaults on a GPU of ``gpu_memory_bytes`` (the speed
        model's prompt reads every weight once per chunk); ``None``: no default of the engine's own by GPU (the speed
        model's 8,192, TensorRT-LLM's ``max_num_tokens``; llama.cpp's micro-batch is priced apart)."""
        return None


# Failures met before the engine sizes its KV cache: it prints none of its cache lines, only the error
# (vLLM's free-memory check runs in ``gpu_worker.init_device``, before the model loads; the context and TP checks
# in ``ModelConfig``; a weights OOM while loading, before the profile run).
BEFORE_KV_CACHE: frozenset[FailureKind] = frozenset(
    {"max-model-len", "tp-indivisible", "free-memory", "weights-oom", "graph-profile-oom", "mm-item-batch"}
)
# Failures a shorter context cures (a smaller pool, or one conversation's cache, fits); the others (memory in use,
# the TP split, the weights, the sampler's room) stop the engine at any context.
CONTEXT_CURES: frozenset[FailureKind] = frozenset(
    {"kv-cache-too-small", "no-kv-memory", "max-model-len", "out-of-memory"}
)


def engine_total_bytes(request: PlanRequest) -> int:
    """The device total the engine prints: ``GpuSpec.engine_visible_bytes`` when known, else the request's; the
    request's under Windows, where CUDA reports the whole card (:func:`planner.deploy.host.device_memory_bytes`)."""
    gpu, options = request.gpu, request.deployment
    if gpu is not None and gpu.engine_visible_bytes is not None and not (options and whole_card(options.host)):
        return gpu.engine_visible_bytes
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
