"""The one list of serving engines. Adding an engine is one module implementing
:class:`planner.engines.base.Engine` and one line in :data:`REGISTERED`.

Every lookup by name goes through :func:`get_engine`: an unknown name raises :class:`PlannerError` naming the
known ones (never a silent fallback to vLLM). Besides engines, three generic overhead profiles can be chosen by
name (:data:`GENERIC_PROFILES`): they plan memory without predicting an engine's start-up lines.
"""

from __future__ import annotations

import planner.engines.llamacpp.engine as llamacpp
import planner.engines.sglang as sglang
import planner.engines.trtllm as trtllm
import planner.engines.vllm.engine as vllm
from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.core.kv import has_windows
from planner.core.model import ModelSpec
from planner.core.overhead import (
    EngineProfile,
    Estimate,
    OverheadModelBase,
    SimpleFixed,
    SimpleFraction,
    parse_version,
)
from planner.core.precision import WEIGHT_FORMATS, weight_format
from planner.engines.base import CONTEXT_CURES, Engine, EngineReport
from planner.engines.evidence import SupportedVersion, log_counts
from planner.engines.formats_kept import formats_of, kv_dtypes_of
from planner.engines.settings import BY_NAME, ENGINE_SETTINGS, EngineSetting
from planner.engines.support import ModelKind, as_kind, family
from planner.planning.plan import PlanRequest, plan
from planner.planning.results import PlanResult

REGISTERED: tuple[Engine, ...] = (
    vllm.ENGINE,
    sglang.ENGINE,
    trtllm.ENGINE,
    llamacpp.ENGINE,
)
_ENGINES: dict[str, Engine] = {engine.name: engine for engine in REGISTERED}

# Overhead profiles that are not an engine: name -> label (the founding texts' simple models and a vLLM-like estimate).
GENERIC_PROFILES: dict[str, str] = {
    "generic": "Generic serving-engine estimate (vLLM-like)",
    "simple": "Simple: 10 % of memory for overhead (as in “Memory Planning for LLMs”)",
    "simple-fixed": "Simple: 1.5 GB framework + 1 GB activations (as in “The Memory Math of Serving a Model”)",
}


def default_engine() -> str:
    """The engine a new view starts with, and the one another instance beside the plan (``--colocate``) is taken
    to be: the first registered."""
    return next(iter(_ENGINES))


# The KV dtypes a comparison shows, one per storage size (planner.core.kv_formats): 16-bit, FP8, INT8, 4-bit.
COMPARED_KV_DTYPES = ("bf16", "fp8", "int8", "int4")


def formats_run(
    name: str, gpu: GpuSpec | None, moe: bool | ModelKind, kv_also: str | None = None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The weight formats and the compared KV dtypes (:data:`COMPARED_KV_DTYPES`, and ``kv_also``, the set-up's own,
    when not among them: llama.cpp's default FP16 cache) the engine ``name`` runs on ``gpu`` (every format, when
    ``name`` is a generic profile rather than an engine); kept (:mod:`planner.engines.formats_kept`)."""
    compared = COMPARED_KV_DTYPES + ((kv_also,) if kv_also and kv_also not in COMPARED_KV_DTYPES else ())
    return formats_of(_ENGINES.get(name), family(gpu), as_kind(moe), compared)


def kv_dtypes_run(name: str, weights: str, gpu: GpuSpec | None, moe: bool | ModelKind) -> tuple[str, ...]:
    """Every KV dtype (:data:`planner.core.kv_formats.KV_FORMATS`) the engine ``name`` keeps with ``weights`` on
    ``gpu`` (every one, when ``name`` is a generic profile); kept as :func:`formats_run` is."""
    return kv_dtypes_of(_ENGINES.get(name), weights, family(gpu), as_kind(moe))


def weights_run(name: str, gpu: GpuSpec | None, moe: bool | ModelKind) -> tuple[str, ...]:
    """Every weight format the engine ``name`` runs on ``gpu`` with some KV dtype (all, for a generic profile)."""
    return formats_run(name, gpu, moe)[0]


def runs_on(name: str, gpu: GpuSpec | None) -> bool:
    """Whether the engine ``name`` runs any weight format on ``gpu``, dense or mixture-of-experts (a generic
    profile: always). vLLM, SGLang and TensorRT-LLM run nothing on an Apple GPU."""
    return any(weights_run(name, gpu, moe) for moe in (False, True))


def pair_runs(name: str, weights: str, kv_dtype: str, gpu: GpuSpec | None, moe: bool | ModelKind) -> bool:
    """Whether the engine ``name`` runs ``weights`` with a ``kv_dtype`` cache on ``gpu`` (a generic profile: always)."""
    if name not in _ENGINES:
        return True
    return _ENGINES[name].support.runs(weights, kv_dtype, family(gpu), moe)


def not_offered(engine: str, setting: str, value: str, weights: str, gpu: GpuSpec | None, moe: bool | ModelKind) -> str:
    """Why ``engine`` does not offer ``value`` for ``setting`` (``weights`` or ``kv``) for a model of this kind, in
    the engine's words (a mixture-of-experts checkpoint's layout on a dense model: the model's).

    >>> not_offered("vllm", "kv", "fp8", "bf16", None, ModelKind(moe=True, mla=True))  # no GPU: every family
    'vLLM does not run fp8 here'
    """
    kind = as_kind(moe)
    if setting == "weights" and not kind.moe and value in WEIGHT_FORMATS and weight_format(value).moe_only:
        return f"{value} is a mixture-of-experts checkpoint's layout, and this model has no experts"
    if setting == "weights" and kind.moe and value in WEIGHT_FORMATS and weight_format(value).dense_only:
        return f"{value} is a layout read from a dense checkpoint, and this model has routed experts"
    if engine not in _ENGINES:
        return f"{value} is not offered here"
    support, fam = _ENGINES[engine].support, family(gpu)
    if setting == "weights":
        found = support.weights_refusal(value, fam, kind.moe)
    else:
        found = support.kv_refusal(value, weights, fam, kind.mla)
    return found or f"{support.label} does not run {value} here"


def engines() -> tuple[Engine, ...]:
    """Every registered engine, in registration order."""
    return tuple(_ENGINES.values())


def engine_names() -> tuple[str, ...]:
    return tuple(_ENGINES)


def register(engine: Engine) -> None:
    """Add ``engine`` (a plug-in, or a test's toy engine); a second engine of the same name is refused."""
    if engine.name in _ENGINES or engine.name in GENERIC_PROFILES:
        raise PlannerError(f"engine: {engine.name!r} is already registered")
    _ENGINES[engine.name] = engine


def unregister(name: str) -> None:
    """Remove a registered engine (tests)."""
    get_engine(name)
    del _ENGINES[name]


def engine_labelled(text: str) -> Engine | None:
    """The registered engine a text names by its label at the start ("SGLang 0.5.3": SGLang), ``None`` if none does
    (a benchmark row's engine as its source writes it)."""
    for engine in engines():
        if text.startswith(engine.label):
            return engine
    return None


def get_engine(name: str) -> Engine:
    """The engine called ``name``; an unknown name raises :class:`PlannerError`."""
    try:
        return _ENGINES[name]
    except KeyError:
        raise PlannerError(f"engine: unknown engine {name!r}; choose one of {', '.join(_ENGINES)}") from None


def supported_versions(engine: str) -> tuple[SupportedVersion, ...]:
    """The releases ``engine`` can be planned for, oldest first, each with the number of public start-up logs
    behind it, whether it is extrapolated (no log) and whether it is the default; releases seen only in logs are
    included. The default is the engine profile's (the newest release with a log, where the engine has one)."""
    chosen = get_engine(engine)
    default = chosen.profile().engine_version
    counts = log_counts().get(engine, {})
    releases = sorted({*chosen.releases(), *counts, default}, key=parse_version)
    return tuple(
        SupportedVersion(
            engine=engine,
            version=version,
            logs=counts.get(version, 0),
            extrapolated=counts.get(version, 0) == 0,
            default=version == default,
        )
        for version in releases
    )


def version_warning(engine: str, version: str | None) -> str | None:
    """A sentence for the UI when ``version`` of ``engine`` has no public start-up log behind it (``None``: the
    default release), else ``None``."""
    chosen = get_engine(engine)
    wanted = version or chosen.profile().engine_version
    known = {v.version: v for v in supported_versions(engine)}
    if wanted in known and not known[wanted].extrapolated:
        return None
    with_logs = [v.version for v in known.values() if not v.extrapolated]
    nearest = ", ".join(with_logs[-3:]) or "none"
    return (
        f"{chosen.label} {wanted} is extrapolated: no public start-up log of it among the fixtures; its rules come "
        f"from the engine's source and its fitted terms from the releases with logs ({nearest})."
    )


def fraction_default_text(name: str) -> str | None:
    """How engine ``name``'s memory fraction defaults, in words: its flag, the default at its default release and,
    where that default changed between releases, from which one (``None``: the engine has no memory fraction).

    >>> fraction_default_text("trtllm")
    'TensorRT-LLM --kv_cache_free_gpu_memory_fraction (default 0.9)'
    >>> fraction_default_text("llamacpp") is None
    True
    """
    chosen = get_engine(name)
    if chosen.fraction_flag is None:
        return None
    own = f"{chosen.label} {chosen.fraction_flag}"
    release = chosen.profile().engine_version
    current = chosen.fraction_default(release)
    if current is None:
        return f"{own} (default: its heuristic by GPU memory)"
    steps: list[tuple[str, float | None]] = []
    for supported in supported_versions(name):
        value = chosen.fraction_default(supported.version)
        if not steps or value != steps[-1][1]:
            steps.append((supported.version, value))
    if len(steps) < 2:
        return f"{own} (default {current:g})"
    history = [f"{steps[0][1]:g} before {steps[1][0]}"] + [f"{value:g} from {since}" for since, value in steps[1:]]
    return f"{own} (default {current:g} at {release}, the default release; {', '.join(history)})"


def profile_names() -> tuple[str, ...]:
    """Every name a set-up may choose: the engines, then the generic profiles."""
    return (*_ENGINES, *GENERIC_PROFILES)


# The launch settings a generic profile takes (planner.core.overhead.Estimate; the simple ones take none).
GENERIC_SETTINGS: dict[str, tuple[str, ...]] = {"generic": ("max_num_batched_tokens",)}


def settings_taken(name: str) -> tuple[EngineSetting, ...]:
    """The launch settings (:mod:`planner.engines.settings`) the profile called ``name`` takes, in their declared
    order: an engine's are those its :attr:`Engine.setting_fields` name; any other is refused by
    :func:`overhead_profile` with the engine's own reason.

    >>> [s.flag for s in settings_taken("generic")], settings_taken("simple")
    (['--max-num-batched-tokens'], ())
    """
    if name in GENERIC_PROFILES:
        return tuple(BY_NAME[field] for field in GENERIC_SETTINGS.get(name, ()))
    fields = get_engine(name).setting_fields
    return tuple(setting for setting in ENGINE_SETTINGS if setting.name in fields)


def setting_flag(overhead: OverheadModelBase, setting: str) -> str:
    """A launch setting as the engine ``overhead`` plans with spells it (:meth:`Engine.flag_for`; the generic flag
    without an engine).

    >>> setting_flag(overhead_profile("trtllm"), "max_num_seqs"), setting_flag(overhead_profile("vllm"), "max_num_seqs")
    ('--max_batch_size', '--max-num-seqs')
    """
    if isinstance(overhead, EngineProfile):
        return get_engine(overhead.engine_name).flag_for(setting, overhead.engine_version)
    return BY_NAME[setting].flag


def launch_values(overhead: OverheadModelBase) -> dict[str, object]:
    """The launch settings ``overhead`` holds, by their generic names (:mod:`planner.engines.settings`), read from
    the profile fields its engine's :attr:`Engine.setting_fields` name (a generic profile's fields are the names);
    unset ones are left out.

    >>> launch_values(overhead_profile("trtllm", max_attention_window=True))
    {'enable_dp_attention': False, 'max_attention_window': True}
    """
    if isinstance(overhead, EngineProfile):
        fields = get_engine(overhead.engine_name).setting_fields
    else:
        fields = {field: field for field in GENERIC_SETTINGS.get(overhead.kind, ())}
    values = {name: getattr(overhead, fields[name], None) for name in BY_NAME if name in fields}
    return {name: value for name, value in values.items() if value is not None}


def window_setting_off(model: ModelSpec, overhead: OverheadModelBase) -> str | None:
    """The engine's window setting (:attr:`Engine.window_setting`) when ``overhead`` leaves it off for a model with
    sliding-window or chunked layers, so that its cache keeps every token of them (TensorRT-LLM's default); ``None``
    otherwise (no windowed layer, an engine that sizes them by their windows, or the setting on)."""
    if not isinstance(overhead, EngineProfile) or not has_windows(model):
        return None
    setting = get_engine(overhead.engine_name).window_setting
    return None if setting is None or launch_values(overhead).get(setting) else setting


def profile_label(name: str) -> str:
    """One line describing the profile called ``name``."""
    if name in GENERIC_PROFILES:
        return GENERIC_PROFILES[name]
    return get_engine(name).description


def engine_profile(
    engine: str, *, fraction: float | None = None, version: str | None = None, **settings: object
) -> EngineProfile:
    """The profile of ``engine`` with its own memory fraction (vLLM ``gpu_memory_utilization``, SGLang
    ``mem_fraction_static``, TensorRT-LLM ``kv_cache_free_gpu_mem_fraction``; llama.cpp has none); ``None``
    keeps each engine's default."""
    return get_engine(engine).profile(fraction=fraction, version=version, **settings)


def overhead_profile(
    name: str, *, fraction: float | None = None, version: str | None = None, **settings: object
) -> OverheadModelBase:
    """The overhead model called ``name``: an engine's profile, or a generic one (``generic``: the estimate
    with ``fraction`` as its utilization; ``simple``: ``fraction`` of memory, 10 % by default; ``simple-fixed``:
    The Memory Math of Serving a Model's fixed bytes). A release is an engine's: a generic profile given one
    raises."""
    if name in GENERIC_PROFILES and version is not None:
        raise PlannerError(
            f"engine: the {name} profile has no release; --engine-version needs an engine ({', '.join(_ENGINES)})"
        )
    if name == "generic":
        values: dict[str, object] = {"gpu_memory_utilization": fraction} if fraction is not None else {}
        for setting, value in settings.items():
            if value is None:
                continue
            if setting not in GENERIC_SETTINGS["generic"]:
                raise PlannerError(f"engine: the generic profile has no {setting.replace('_', ' ')} setting")
            values[setting] = value
        return Estimate.model_validate(values)
    if name in GENERIC_PROFILES and any(value is not None for value in settings.values()):
        raise PlannerError(f"engine: the {name} profile takes no engine settings; choose an engine")
    if name == "simple":
        return SimpleFraction() if fraction is None else SimpleFraction(fraction=fraction)
    if name == "simple-fixed":
        return SimpleFixed()
    return engine_profile(name, fraction=fraction, version=version, **settings)


def engine_of(overhead: OverheadModelBase) -> tuple[Engine, EngineProfile]:
    """The engine that reports and launches ``overhead``, with the profile; a generic overhead model raises."""
    if not isinstance(overhead, EngineProfile):
        raise PlannerError(
            f"engine: the {overhead.kind!r} overhead model is not an engine profile; choose one of "
            f"{', '.join(_ENGINES)}"
        )
    return get_engine(overhead.engine_name), overhead


def engines_that_run(request: PlanRequest) -> tuple[Engine, ...]:
    """Where ``request``'s own engine refuses it (:meth:`Engine.refusal`): the other registered engines that run it
    as asked, each at its own defaults (release, memory fraction, launch settings), in registration order; none
    when its engine runs it or it names no engine. What a page offers beside the refusal, so a reader is not left
    to guess which engine to try."""
    if not isinstance(request.overhead, EngineProfile):
        return ()
    own = get_engine(request.overhead.engine_name)
    if own.refusal(request) is None:
        return ()
    return tuple(
        other
        for other in engines()
        if other is not own and other.refusal(request.model_copy(update={"overhead": other.profile()})) is None
    )


def release_that_loads(request: PlanRequest) -> str | None:
    """Where ``request``'s own engine does not load its model at the planned release (its ``model_releases``): the
    oldest release the engine offers (:meth:`Engine.releases`) that does; None when the release loads it, or none
    offered does."""
    if not isinstance(request.overhead, EngineProfile):
        return None
    engine = get_engine(request.overhead.engine_name)
    version, model_type = engine.planned_version(request), request.model.model_type
    if version is None or engine.support.model_refusal(model_type, version) is None:
        return None
    return next((r for r in engine.releases() if engine.support.model_refusal(model_type, r) is None), None)


def engine_report(request: PlanRequest, result: PlanResult) -> EngineReport:
    """What the request's engine prints at start-up."""
    engine, profile = engine_of(request.overhead)
    return engine.report(request, result, profile)


def max_model_len_allowed(request: PlanRequest, result: PlanResult | None = None) -> int:
    """The largest ``--max-model-len`` (SGLang ``--context-length``, llama.cpp ``-c`` per slot) the set-up
    accepts, capped at the model's ``max_position_embeddings``; 0 when nothing fits or the engine refuses to
    start for a reason no context cures."""
    engine, profile = engine_of(request.overhead)
    result = result or plan(request)
    failure = engine.report(request, result, profile).failure_kind
    if failure is not None and failure not in CONTEXT_CURES:
        return 0  # it does not start at any context (memory in use, the split, the weights)
    return engine.max_model_len(request, result, profile)
