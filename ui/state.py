"""The shared set-up every page plans with (:class:`Selection`), the options each setting offers, and the
defaults; pure Python, tested without a browser. The settings themselves (URL names, parsing) are declared
once in :mod:`ui.settings`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field

from model_catalog import CatalogModel, get_gpu, get_model, load_gpus, load_models
from planner.assessment.assess import Assessment, assess
from planner.core import defaults
from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.core.overhead import OverheadModel
from planner.core.parallel import default_parallelism, parallel_problem
from planner.deploy.host import deployment_memory_bytes
from planner.deploy.options import DeploymentOptions
from planner.deploy.sharing import mig_gpu
from planner.engines.evidence import SupportedVersion
from planner.engines.registry import (
    default_engine,
    engine_names,
    formats_run,
    get_engine,
    kv_dtypes_run,
    overhead_profile,
    pair_runs,
    profile_names,
    settings_taken,
    supported_versions,
    weights_run,
)
from planner.engines.settings import (
    ENGINE_SETTINGS,
    EngineSetting,
    SettingValue,
    profile_values,
    shown_name,
)
from planner.engines.support import ModelKind, kind_of
from planner.engines.vllm.calibrated import Calibrated
from planner.planning.plan import PlanRequest
from ui import settings

DEFAULT_MODEL = "meta-llama/Llama-3.1-8B"
DEFAULT_GPU = "h100-sxm-80gb"
MAX_GPU_COUNT = 64  # eight 8-GPU machines (the GPUs setting's bound, ui.settings.GPUS)
MIN_CONTEXT = 512
DEFAULT_CONTEXT = defaults.DEFAULT_CONTEXT_TOKENS  # the defaults the CLI reads too (planner.core.defaults)
DEFAULT_USERS = defaults.DEFAULT_USERS
UNITS = ("GiB", "GB")
DEFAULT_ENGINE = default_engine()  # the registry's first engine
DEFAULT_UTIL = 0.90
# Common context lengths the slider snaps to (log-spaced, as contexts are quoted: 2k, 4k, 8k …).
CONTEXT_SNAPS = tuple(2**n for n in range(9, 24))

ModelOrigin = Literal["catalog", "hub", "custom"]


def overhead_for(
    engine: str,
    util: float | None = None,
    calibration: str | None = None,
    version: str | None = None,
    launch: Mapping[str, object] | None = None,
) -> OverheadModel:
    """The overhead model behind an engine-profile name and release (a calibration token wins when given: it
    measured the overheads with the logged run's own launch settings). The util widget sets an engine's memory
    fraction (SGLang's left unset keeps its heuristic); ``launch`` holds the launch
    settings set (:meth:`Selection.launch_settings`, by their :meth:`Engine.profile` names)."""
    if calibration:
        return Calibrated.from_token(calibration)
    taken: dict[str, Any] = dict(launch or {})
    if engine in engine_names():
        takes = get_engine(engine).fraction_flag is not None
        return overhead_profile(engine, fraction=util if takes else None, version=version, **taken)
    if engine == "generic":
        return overhead_profile(engine, fraction=util or DEFAULT_UTIL, **taken)
    return overhead_profile(engine, **taken)


def engine_versions(engine: str) -> list[SupportedVersion]:
    """The releases offered for ``engine`` (newest first), each with its evidence; none for a generic profile."""
    if engine not in engine_names():
        return []
    return list(reversed(supported_versions(engine)))


def version_label(version: SupportedVersion) -> str:
    """``'0.19.0 · 81 logs'``, ``'0.21.0 · 1 log · default'``, ``'1.0.0 · extrapolated · default'``."""
    evidence = "extrapolated" if version.extrapolated else f"{version.logs} log{'s' if version.logs != 1 else ''}"
    return f"{version.version} · {evidence}" + (" · default" if version.default else "")


def default_util(
    engine: str, version: str | None = None, gpu: GpuSpec | None = None, launch: Mapping[str, object] | None = None
) -> float | None:
    """The memory fraction a profile starts from: the engine's default in that release on that GPU with these launch
    settings (vLLM 0.92 from 0.20.0, 1.0 from 0.34 on CUDA and ROCm unless its extensible KV cache is turned off),
    ``None`` for an engine whose default is a heuristic of the whole set-up (SGLang: left unset, the engine decides),
    or the generic estimate's 0.9."""
    if engine in engine_names():
        found = get_engine(engine).fraction_default(version, gpu, launch)
        return None if found is None and heuristic_fraction(engine) else found or DEFAULT_UTIL
    return DEFAULT_UTIL


def heuristic_fraction(engine: str) -> bool:
    """Whether ``engine`` takes a memory fraction whose default is its own heuristic (SGLang's
    ``--mem-fraction-static``): the setting is then optional, empty meaning the heuristic."""
    if engine not in engine_names():
        return False
    found = get_engine(engine)
    return found.fraction_flag is not None and found.default_fraction is None


def launch_in_session(values: Any) -> dict[str, SettingValue]:
    """The launch settings a session holds (``values``: its state, read by the names a link uses, before their boxes
    are drawn), as :meth:`Engine.profile` takes them; a value a box could not hold is left out.

    >>> launch_in_session({"enforce_eager": True, "max_num_seqs": "2", "kv_cache_memory_gib": 1.5})
    {'enforce_eager': True, 'kv_cache_memory_bytes': 1610612736}
    """
    return profile_values({shown_name(d): values.get(shown_name(d)) for d in ENGINE_SETTINGS})


def launch_settings_taken(engine: str) -> tuple[EngineSetting, ...]:
    """The launch settings the profile ``engine`` takes (the sidebar draws these; a link's others are dropped)."""
    return settings_taken(engine)


def uses_fraction(engine: str) -> bool:
    """Whether the memory-fraction setting changes this profile's numbers (hidden otherwise); SGLang's is optional
    (:func:`heuristic_fraction`)."""
    if engine in engine_names():
        return get_engine(engine).fraction_flag is not None
    return engine == "generic"


class Selection(BaseModel, frozen=True, extra="forbid"):
    """Every shared setting, validated: what a page plans with. Field names are the settings' ``field``."""

    model_id: str = DEFAULT_MODEL
    hub_reference: str | None = None  # the Hub import as typed (travels in the link)
    custom_spec: str | None = None  # the hand-described model's link token
    gpu_id: str = DEFAULT_GPU
    gpu_count: int = Field(default=1, ge=1)
    tensor_parallel: int | None = Field(default=None, ge=1)  # None: auto, the largest legal split
    pipeline_parallel: int = Field(default=1, ge=1)
    weights: str = "bf16"
    kv_dtype: str = "bf16"
    engine: str = DEFAULT_ENGINE
    engine_version: str | None = None  # None: the engine's default release (the newest with a public log)
    util: float | None = Field(default=None, gt=0, le=1)  # None: the engine release's own default
    calibration: str | None = None
    # The engine's launch settings (planner.engines.settings; None: not given, the engine's own default)
    max_num_batched_tokens: int | None = Field(default=None, ge=1)
    max_num_seqs: int | None = Field(default=None, ge=1)
    enforce_eager: bool | None = None
    no_enable_extensible_kv_cache: bool | None = None
    max_cudagraph_capture_size: int | None = Field(default=None, ge=1)
    kv_cache_memory_gib: float | None = Field(default=None, gt=0)
    max_total_tokens: int | None = Field(default=None, ge=1)
    language_model_only: bool | None = None
    skip_mm_profiling: bool | None = None
    limit_mm_per_prompt: int | None = Field(default=None, ge=0)
    limit_mm_audio: int | None = Field(default=None, ge=0)
    enable_prefix_caching: bool | None = None  # a switch: False is --no-enable-prefix-caching
    use_v2_model_runner: bool | None = None  # a switch: VLLM_USE_V2_MODEL_RUNNER=1 or =0
    compile_cache: str | None = None  # "cold" or "warm" (vLLM's torch.compile cache; None: warm, the default)
    load_format: str | None = None
    safetensors_load_strategy: str | None = None
    max_attention_window: bool | None = None
    enable_dp_attention: bool | None = None
    context_tokens: int = Field(default=DEFAULT_CONTEXT, ge=1)
    users: int = Field(default=DEFAULT_USERS, ge=1)
    unit: Literal["GiB", "GB"] = "GiB"
    imported: ModelSpec | None = None  # the model from the Hub or described by hand, when there is one
    model_origin: ModelOrigin = "catalog"
    model_source_note: str | None = None  # where an imported model's figures come from

    @property
    def catalog_model(self) -> CatalogModel:
        return get_model(self.model_id)

    @property
    def spec(self) -> ModelSpec:
        """The model planned: the imported one when there is one, else the catalog entry."""
        return self.imported if self.imported is not None else self.catalog_model.spec

    @property
    def model_source(self) -> str:
        """Where the architecture and parameter figures come from, for the page."""
        if self.imported is not None:
            return self.model_source_note or self.model_origin
        return f"catalog entry; parameters checked against: {self.catalog_model.reference.source}"

    @property
    def is_engine(self) -> bool:
        """An engine profile (or a calibration): plans with the engine-visible memory and max model length."""
        return self.engine in engine_names() or self.calibration is not None

    @property
    def gpu(self) -> GpuSpec:
        return get_gpu(self.gpu_id)

    @property
    def fraction(self) -> float | None:
        """The memory fraction planned with: the one set, else the engine release's default (as the sidebar
        shows it); ``None`` for SGLang's heuristic (its report gives the value it comes to)."""
        if self.util is not None:
            return self.util
        return default_util(self.engine, self.engine_version, self.gpu, self.launch_settings)

    @property
    def launch_settings(self) -> dict[str, SettingValue]:
        """The launch settings given (by their :meth:`Engine.profile` names), as ``fit``'s flags pass them."""
        return profile_values(
            {shown_name(declared): getattr(self, shown_name(declared)) for declared in ENGINE_SETTINGS}
        )

    def url_values(self) -> dict[str, Any]:
        """Every sidebar setting by its URL name (for links)."""
        return {s.url: getattr(self, s.field) for s in settings.SIDEBAR_SETTINGS}

    def request(
        self,
        *,
        weights: str | None = None,
        kv_dtype: str | None = None,
        gpu_id: str | None = None,
        context_tokens: int | None = None,
        deployment: DeploymentOptions | None = None,
    ) -> PlanRequest:
        """The :class:`PlanRequest` of this selection, with optional what-if overrides and a deployment (the Memory
        page's section: a MIG slice of the GPU, mixed GPUs as one pipeline stage each, ...)."""
        gpu = get_gpu(gpu_id) if gpu_id else self.gpu
        context = context_tokens or self.context_tokens
        count, tp, pp = self.gpu_count, self.tensor_parallel, self.pipeline_parallel
        if deployment is not None and deployment.mig_profile:
            gpu = mig_gpu(gpu, gpu.id, deployment.mig_profile)
        if deployment is not None and deployment.stage_gpus:
            count, tp, pp = len(deployment.stage_gpus), 1, len(deployment.stage_gpus)
        return PlanRequest(
            model=self.spec,
            gpu=gpu,
            gpu_memory_bytes=deployment_memory_bytes(gpu, self.is_engine, deployment),
            gpu_count=count,
            tensor_parallel=tp,
            pipeline_parallel=pp,
            weights=weights or self.weights,
            kv_dtype=kv_dtype or self.kv_dtype,
            context_tokens=context,
            max_model_len=context if self.is_engine else None,
            overhead=overhead_for(self.engine, self.util, self.calibration, self.engine_version, self.launch_settings),
            deployment=deployment,
        )

    def grid_formats(self) -> tuple[list[str], list[str]]:
        """The weight formats and KV dtypes a comparison shows: those the engine runs on this GPU
        (:func:`planner.engines.registry.formats_run`)."""
        weights, kvs = formats_run(self.engine, self.gpu, kind_of(self.spec), self.kv_dtype)
        return list(weights), list(kvs)

    def grid_caption(self) -> str:
        weights, kvs = self.grid_formats()
        if self.engine not in engine_names():
            return "Every weight format and KV dtype (a generic profile runs them all)."
        engine = get_engine(self.engine)
        slots = (  # llama.cpp: -np slots fixed at start-up, each its own -c / -np tokens
            f" {engine.label} starts with one slot a user ({self.users:,}), each its own context: a cell holds them "
            "where they fit, fewer where they do not (the What-if page gives each format's longest context a slot)."
            if engine.fixed_slots
            else ""
        )
        formats = f"{len(weights)} weight formats, KV cache in {', '.join(kvs)}"
        return f"What {engine.label} runs on {self.gpu.name}: {formats}.{slots}"

    def runs(self, weights: str, kv_dtype: str) -> bool:
        """Whether the selection's engine runs ``weights`` with a ``kv_dtype`` cache on its GPU."""
        return pair_runs(self.engine, weights, kv_dtype, self.gpu, kind_of(self.spec))

    def runnable_pairs(self) -> set[str]:
        """Every ``weights/kv`` pair of :meth:`grid_formats` the engine runs on this GPU."""
        weights, kvs = self.grid_formats()
        moe = kind_of(self.spec)
        return {f"{w}/{k}" for w in weights for k in kvs if pair_runs(self.engine, w, k, self.gpu, moe)}

    def assessment(self, **overrides: Any) -> Assessment:
        """The one answer for this set-up (:func:`planner.assessment.assess.assess`) against the target users."""
        return assess(self.request(**overrides), self.users)


# -- options offered for each setting (they depend on the model and the GPU count) ------------------------


def model_options() -> list[str]:
    return sorted(load_models(), key=str.lower)


def gpu_options() -> list[str]:
    return sorted(load_gpus())


def weight_options(engine: str, gpu: GpuSpec | None, moe: bool | ModelKind) -> list[str]:
    """The weight formats offered: those ``engine`` runs on ``gpu`` (every one for a generic profile)."""
    return list(weights_run(engine, gpu, moe))


def kv_options(engine: str, weights: str, gpu: GpuSpec | None, moe: bool | ModelKind) -> list[str]:
    """The KV dtypes offered: those ``engine`` keeps with ``weights`` on ``gpu`` (every one for a generic profile)."""
    return list(kv_dtypes_run(engine, weights, gpu, moe))


def nearest(wanted: str, options: list[str], bits: Callable[[str], float]) -> str:
    """``wanted`` when offered, else the offered option of the nearest size (the larger on a tie): what an engine
    that does not run a format is planned with instead (FP8 weights under llama.cpp: its Q8_0).

    >>> from planner.core.precision import weight_format
    >>> nearest("fp8", ["bf16", "q8_0", "q4_k_m"], lambda w: weight_format(w).bits_per_weight)
    'q8_0'
    """
    if wanted in options or not options:
        return wanted
    return min(options, key=lambda o: (abs(bits(o) - bits(wanted)), -bits(o)))


def splits_layers(engine: str) -> bool:
    """Whether the engine splits whole layers over its GPUs (llama.cpp): no tensor or pipeline sizes to choose."""
    return engine in engine_names() and get_engine(engine).support.parallelism == "layer-split"


def engine_options() -> list[str]:
    """Profile names offered: every registered engine, then the generic profiles (from the registry)."""
    return list(profile_names())


def tp_options(spec: ModelSpec, gpu_count: int) -> list[int | None]:
    """``None`` (auto: the largest legal split) and every legal tensor-parallel size on ``gpu_count`` GPUs."""
    legal = [
        tp for tp in range(1, gpu_count + 1) if gpu_count % tp == 0 and not parallel_problem(spec, tp, 1, gpu_count)
    ]
    return [None, *legal]


def pp_options(spec: ModelSpec, gpu_count: int, tensor_parallel: int | None) -> list[int]:
    tp = default_tp(spec, gpu_count) if tensor_parallel is None else tensor_parallel
    if tensor_parallel is None:
        return [1]  # auto splits every GPU with TP; choose a TP to pipeline the rest
    return [pp for pp in range(1, gpu_count // tp + 1) if not parallel_problem(spec, tp, pp, gpu_count)]


def default_tp(spec: ModelSpec, gpu_count: int) -> int:
    return default_parallelism(spec, gpu_count)[0]


def context_range(spec: ModelSpec) -> tuple[int, int]:
    """(min, max) context tokens offered: 512 to the model's longest context (its documented YaRN ceiling, else its
    maximum position)."""
    return MIN_CONTEXT, max(MIN_CONTEXT * 2, spec.longest_context)  # a documented YaRN: up to its ceiling


def default_context(spec: ModelSpec) -> int:
    """The context a view of ``spec`` starts at (:func:`planner.core.defaults.default_context_tokens`)."""
    return defaults.default_context_tokens(spec.max_position_embeddings)


def context_snaps(spec: ModelSpec, current: int) -> list[int]:
    """The slider's stops: powers of two from 512 to the model's maximum, its maximum, and the current value."""
    low, high = context_range(spec)
    return sorted({*(s for s in CONTEXT_SNAPS if low <= s <= high), high, min(max(current, low), high)})


def log_contexts(low: int, high: int, points: int = 64) -> list[int]:
    """``points`` context lengths spaced evenly on a log axis from ``low`` to ``high`` (whole tokens)."""
    if high <= low:
        return [low]
    ratio = math.log(high / low) / (points - 1)
    values = sorted({round(low * math.exp(ratio * i)) for i in range(points)})
    values[-1] = high
    return values
