"""The shared set-up in the sidebar. Every widget holds a declared setting (:mod:`ui.settings`), so any view is
a link; returns a validated :class:`ui.state.Selection`. Pages never read widgets themselves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from model_catalog import get_gpu, get_model, model_label
from planner.assessment.assess import context_label
from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.core.kv_formats import KV_FORMATS, kv_format
from planner.core.model import ModelSpec
from planner.core.parallel import default_parallelism
from planner.core.precision import WEIGHT_FORMATS, weight_format
from planner.engines.registry import engine_names, get_engine, not_offered, profile_label, runs_on, version_warning
from planner.engines.support import kind_of
from planner.engines.vllm.calibrated import Calibrated
from ui import binding, model_defaults, settings, state
from ui.custom_spec import decode_spec
from ui.deferred import Deferred
from ui.guard import as_text
from ui.imports import import_from_hub, looks_like_token
from ui.sidebar_launch import render_launch
from ui.state import ModelOrigin, Selection
from ui.text import device_memory, sentence

TOKEN_KEY = "hf_token_session"  # the access token: session only, never in the link (not a setting)
LAST_MODEL_KEY = "_last_model"  # which model the previous run planned (a change resets its defaults)
LAST_ENGINE_KEY = "_last_engine"  # which engine release the previous run planned (its memory fraction follows)
LAST_KV_ENGINE_KEY = "_last_kv_engine"  # the engine and GPU the previous run planned (their KV default gives way)
PICK_KEY, EXACT_KEY = settings.CONTEXT.views


class Outside:
    """A model from outside the catalog: the spec, where it came from, and the precision its checkpoint implies."""

    def __init__(self, spec: ModelSpec, origin: ModelOrigin, note: str, precision: str | None = None) -> None:
        self.spec, self.origin, self.note, self.precision = spec, origin, note, precision


def _custom_model(sb: Any) -> Outside | None:
    token = binding.value_of(settings.CUSTOM_SPEC)
    if not token:
        return None
    try:
        spec = decode_spec(str(token))
    except PlannerError as exc:
        sb.error(as_text(f"{sentence(str(exc))} Using the catalog model."), icon=":material/error:")
        binding.drop_from_url(settings.CUSTOM_SPEC, "the model description is damaged")
        return None
    sb.info(
        as_text(
            f"Planning {spec.display_name}, a custom model (Custom model page): the model chosen above is not used."
        ),
        icon=":material/edit_note:",
    )
    return Outside(spec, "custom", "custom architecture described by hand (carried in the link)")


def _hub_model(sb: Any) -> Outside | None:
    typed = st.session_state.get(settings.HF.url)
    if isinstance(typed, str) and looks_like_token(typed):
        binding.scrub(settings.HF, "it looked like an access token, not a repository; it was removed")
    reference = binding.text(
        sb, settings.HF, "", placeholder="owner/name or owner/name@revision", max_chars=settings.MAX_TEXT_CHARS
    ).strip()
    if not reference:  # the token box only with a repository to read: one expander less on every first paint
        return None
    sb.expander("Access token for gated models", icon=":material/key:").text_input(
        "Hugging Face token",
        type="password",
        key=TOKEN_KEY,
        help="Used for this session only: never put in the link, the logs or the page.",
    )
    token = st.session_state.get(TOKEN_KEY, "")
    if looks_like_token(reference):
        sb.error(
            "That looks like an access token, not a repository: it was removed from the link.", icon=":material/key:"
        )
        binding.set_value(settings.HF, "")
        return None
    try:
        imported = import_from_hub(reference, token or None)
    except PlannerError as exc:
        sb.error(
            as_text(f"Import failed: {sentence(str(exc))} The catalog model stays in use."), icon=":material/cloud_off:"
        )
        return None
    if imported.spec is None:
        reason = sentence(imported.unplannable_reason)
        sb.warning(as_text(f"{imported.repo_id}: {reason} Complete it on the Custom model page."))
        st.session_state["_hub_prefill"] = imported.prefill
        return None
    note = f"Hugging Face Hub {imported.repo_id}" + (f" @ {imported.sha[:10]}" if imported.sha else "")
    if imported.parameters is not None:
        note += f"; {imported.parameters.value:,} parameters from {imported.parameters.source}"
    if imported.stored_bytes is not None:
        note += f"; {imported.stored_bytes.value:,} bytes stored ({imported.stored_bytes.source})"
    sb.success(as_text(f"Planning {imported.repo_id} from the Hub."), icon=":material/cloud_done:")
    return Outside(imported.spec, "hub", note, imported.weight_precision)


def _follow(memory_key: str, identity: str, defaults: dict[str, Any]) -> None:
    """When what the settings depend on changed since the last run (not on the session's first run, where the
    link's values hold), those settings take their new defaults (drawn later in this run)."""
    last = st.session_state.get(memory_key)
    st.session_state[memory_key] = identity
    if last is not None and last != identity:
        st.session_state.update(defaults)


def _follow_kv_default(spec: ModelSpec, engine: str, gpu: str) -> None:
    """Another engine or GPU than last run: a KV dtype left at the previous default takes the new one (vLLM's BF16
    -> llama.cpp's f16; SGLang's FP8 for DeepSeek sparse attention on Blackwell); one the reader chose stays."""
    last = st.session_state.get(LAST_KV_ENGINE_KEY)
    st.session_state[LAST_KV_ENGINE_KEY] = (engine, gpu)
    if not isinstance(last, tuple) or last == (engine, gpu):
        return
    if st.session_state.get(settings.KV.url) == model_defaults.kv_default(spec, *last):
        st.session_state[settings.KV.url] = model_defaults.kv_default(spec, engine, gpu)


def _reset_for_new_model(spec: ModelSpec, identity: str, precision: str | None) -> None:
    """A different model than last run: its serving precision, KV dtype and a context it has."""
    engine, gpu = st.session_state.get(settings.ENGINE.url), st.session_state.get(settings.GPU.url)
    _follow(LAST_MODEL_KEY, identity, model_defaults.model_defaults(spec, engine, precision, gpu))


def _parallelism(sb: Any, spec: ModelSpec, engine: str, apart: bool = False) -> tuple[int, int | None, int]:
    """Any number of GPUs up to 64 (tensor and pipeline splits the model allows, data-parallel replicas for the
    rest); an engine that splits whole layers (llama.cpp) has no split to choose and says so."""
    # one horizontal container, not three columns: one element the browser re-renders each run instead of four
    row = sb.container(horizontal=True, wrap=False)
    count = int(binding.number(row, settings.GPUS, 1, state.MAX_GPU_COUNT, 1, step=1))
    if state.splits_layers(engine):
        label = get_engine(engine).support.label
        binding.record(settings.TP, binding.ensure(settings.TP, lambda v: v is None, None, f"{label} splits layers"))
        binding.record(settings.PP, binding.ensure(settings.PP, lambda v: v == 1, 1, f"{label} splits layers"))
        row.caption(f"{label} splits whole layers over the GPUs (--split-mode layer): no TP or PP to choose.")
        return count, None, 1
    widest, stages = default_parallelism(spec, count)  # beyond one server: a pipeline stage a server
    widest, stages = (1, 1) if apart else (widest, stages)  # one GPU a machine: a replica each (PlanRequest)
    tp = binding.choose(
        row,
        settings.TP,
        state.tp_options(spec, count),
        None,
        format_func=lambda v: f"auto ({widest})" if v is None else str(v),
        placeholder=f"auto ({widest})",  # Streamlit shows a None value as the placeholder, not as its option
    )
    auto = tp is None and stages > 1  # the PP box's one option then stands for the automatic split's stages
    pp = binding.choose(
        row,
        settings.PP,
        state.pp_options(spec, count, tp),
        1,
        format_func=lambda v: f"auto ({stages})" if auto else str(v),
    )
    return count, tp, pp


def _offered(
    sb: Any, setting: settings.Setting, options: list[str], wanted: str, size: Callable[[str], float], why: str | None
) -> str:
    """A select box over what the engine runs; a value it does not run (from the link, or kept from another
    engine) gives way to the one of the nearest size it does, and ``why`` (the engine's reason) is said."""
    current = st.session_state.get(setting.url)
    default = state.nearest(wanted, options, size)
    if isinstance(current, str) and current not in options and why is not None:
        default = state.nearest(current, options, size)
        reason = f"{why}; planned with {default}"
        binding.ensure(setting, lambda v: v in options, default, as_text(reason))
        sb.caption(as_text(sentence(reason)))
    return str(binding.choose(sb, setting, options, default))


def _formats(sb: Any, spec: ModelSpec, engine: str, gpu: GpuSpec, defaults: dict[str, Any]) -> tuple[str, str]:
    """The weight format and KV dtype, among those the engine runs on this GPU with this model."""
    moe = kind_of(spec)

    def why(name: str, value: object, weights: str = "") -> str | None:
        known = isinstance(value, str) and value in (WEIGHT_FORMATS if name == "weights" else KV_FORMATS)
        return not_offered(engine, name, str(value), weights, gpu, moe) if known else None

    options = state.weight_options(engine, gpu, moe)
    current = st.session_state.get(settings.WEIGHTS.url)
    weights = _offered(
        sb, settings.WEIGHTS, options, defaults[settings.WEIGHTS.url], _weight_bits, why("weights", current)
    )
    kvs = state.kv_options(engine, weights, gpu, moe)
    current = st.session_state.get(settings.KV.url)
    kv = _offered(sb, settings.KV, kvs, defaults[settings.KV.url], _kv_bits, why("kv", current, weights))
    return weights, kv


def _weight_bits(name: str) -> float:
    return weight_format(name).bits_per_weight


def _kv_bits(name: str) -> float:
    return kv_format(name).bits_per_value


def _engine_label(name: str) -> str:
    return get_engine(name).support.label if name in engine_names() else name


def _engine_choice(sb: Any, gpu: GpuSpec) -> str:
    """The engine, among those that run on ``gpu`` (the registry's first there by default); one asked for that runs
    nothing there (vLLM on a Mac) gives way to it, and the reason is said."""
    options = [e for e in state.engine_options() if runs_on(e, gpu)]
    default = state.DEFAULT_ENGINE if state.DEFAULT_ENGINE in options else options[0]
    current = st.session_state.get(settings.ENGINE.url)
    if isinstance(current, str) and current not in options and current in state.engine_options():
        reason = f"{_engine_label(current)} runs nothing on {gpu.name}; planned with {_engine_label(default)}"
        binding.ensure(settings.ENGINE, lambda v: v in options, default, as_text(reason))
        sb.caption(as_text(sentence(reason)))
    return str(binding.choose(sb, settings.ENGINE, options, default))


def _engine(sb: Any, gpu: GpuSpec) -> tuple[str, str | None, float | None, str | None]:
    engine = _engine_choice(sb, gpu)
    sb.caption(profile_label(engine))
    version = _engine_version(sb, engine)
    launch = state.launch_in_session(st.session_state)  # drawn later in the run; read already (ui.deferred)
    default = state.default_util(engine, version, gpu, launch)
    identity = f"{engine} {version} {gpu.platform.runtime} {default}"  # the default follows a launch setting too
    _follow(LAST_ENGINE_KEY, identity, {settings.UTIL.url: default})
    util = binding.ensure(settings.UTIL, lambda v: isinstance(v, float) and 0.05 <= v <= 1.0, default)
    if state.heuristic_fraction(engine):  # optional: empty is the engine's own heuristic
        label = get_engine(engine).fraction_flag
        sb.number_input(
            f"{settings.UTIL.label} ({label})", min_value=0.05, max_value=1.0, value=None, step=0.01, format="%.2f",
            key=settings.UTIL.url, help=settings.UTIL.help, placeholder="the engine's own heuristic",
        )  # fmt: skip
        util = binding.record(settings.UTIL, binding.drawn(settings.UTIL))
    elif state.uses_fraction(engine):
        util = binding.number(sb, settings.UTIL, 0.05, 1.0, default or state.DEFAULT_UTIL, step=0.01, format="%.2f")
    calibration = binding.value_of(settings.CALIBRATION)
    if calibration:
        try:
            Calibrated.from_token(str(calibration))
        except PlannerError as exc:
            sb.error(as_text(f"{sentence(str(exc))} Estimates are used instead."), icon=":material/error:")
            binding.drop_from_url(settings.CALIBRATION, "not a calibration Headroom made")
            calibration = None
        else:
            sb.info("Overheads measured from a pasted start-up log are in use (Memory page).", icon=":material/tune:")
    fraction = float(util) if state.uses_fraction(engine) and util is not None else None
    return engine, version, fraction, str(calibration) if calibration else None


def _engine_version(sb: Any, engine: str) -> str | None:
    """The engine's release (with the logs behind each); a warning when it is extrapolated."""
    versions = state.engine_versions(engine)
    if not versions:
        return None
    labels = {v.version: state.version_label(v) for v in versions}
    default = next(v.version for v in versions if v.default)
    version = binding.choose(sb, settings.ENGINE_VERSION, list(labels), default, format_func=labels.__getitem__)
    warning = version_warning(engine, version)
    if warning:
        sb.warning(as_text(warning), icon=":material/science:")
    return str(version)


def _from_pick() -> None:
    st.session_state[settings.CONTEXT.url] = st.session_state[PICK_KEY]


def _from_exact() -> None:
    st.session_state[settings.CONTEXT.url] = st.session_state[EXACT_KEY]


def _context(sb: Any, spec: ModelSpec) -> int:
    """A log-scale slider snapping to common lengths, and a box for the exact number; one setting."""
    low, high = state.context_range(spec)
    context = int(
        binding.ensure(
            settings.CONTEXT,
            lambda v: isinstance(v, int) and low <= v <= high,
            state.default_context(spec),
            f"outside this model's {low:,}–{high:,} tokens",
        )
    )
    binding.put(PICK_KEY, context)
    binding.put(EXACT_KEY, context)
    sb.select_slider(
        settings.CONTEXT.label,
        state.context_snaps(spec, context),
        key=PICK_KEY,
        format_func=context_label,
        help=settings.CONTEXT.help,
        on_change=_from_pick,
    )
    sb.number_input(
        "Exact context (tokens)", min_value=low, max_value=high, step=1, key=EXACT_KEY, on_change=_from_exact
    )
    return context


HARDWARE_NOT_HERE = (
    "GPU, engine, split and precisions: this page plans every set-up in the catalog under its own; yours apply on the "
    "Memory, what-if and Compare pages."
)


def render_sidebar(sb: Any = None, hardware: bool = True) -> Selection:
    """Draw the set-up widgets in ``sb`` (the sidebar, or a :class:`ui.deferred.Deferred` standing in for it) and
    return what they hold. ``hardware`` False (a page that plans every set-up under its own, the advisor): the GPU,
    engine, launch, split and precision settings are read, checked and kept in the session and the link as always,
    and their widgets are not drawn (a sink that is never drawn takes them), so the page shows no setting it does not
    read and the browser renders ~15 fewer elements a run."""
    sb = st.sidebar if sb is None else sb
    sb.markdown("### Set-up")
    model_id = binding.choose(sb, settings.MODEL, state.model_options(), state.DEFAULT_MODEL, format_func=model_label)
    outside = _custom_model(sb) or _hub_model(sb)
    spec = outside.spec if outside is not None else get_model(model_id).spec
    _reset_for_new_model(spec, outside.note if outside else model_id, outside.precision if outside else None)
    hw = sb if hardware else Deferred(lambda: st.sidebar)  # not drawn: the settings are kept all the same
    if not hardware:
        sb.caption(HARDWARE_NOT_HERE)
    gpu_id = binding.choose(hw, settings.GPU, state.gpu_options(), state.DEFAULT_GPU)
    gpu = get_gpu(gpu_id)
    hw.caption(device_memory(gpu, "GB" if st.session_state.get(settings.UNIT.url) == "GB" else "GiB"))
    engine, version, util, calibration = _engine(hw, gpu)  # first: what it runs decides the options below
    launch = render_launch(hw, engine, version, calibration)
    count, tp, pp = _parallelism(hw, spec, engine, gpu.one_per_machine)
    _follow_kv_default(spec, engine, gpu_id)
    defaults = model_defaults.model_defaults(spec, engine, outside.precision if outside else None, gpu_id)
    weights, kv = _formats(hw, spec, engine, gpu, defaults)
    context = _context(sb, spec)
    users = binding.number(sb, settings.USERS, 1, settings.MAX_USERS, state.DEFAULT_USERS, step=1)
    unit = binding.segmented(sb, settings.UNIT, state.UNITS, "GiB")
    return Selection(
        model_id=model_id,
        hub_reference=(binding.value_of(settings.HF) or None) if outside is None or outside.origin == "hub" else None,
        custom_spec=binding.value_of(settings.CUSTOM_SPEC)
        if outside is not None and outside.origin == "custom"
        else None,
        gpu_id=gpu_id,
        gpu_count=count,
        tensor_parallel=tp,
        pipeline_parallel=pp,
        weights=weights,
        kv_dtype=kv,
        engine=engine,
        engine_version=version,
        util=util,
        calibration=calibration,
        **launch,
        context_tokens=context,
        users=int(users),
        unit="GB" if unit == "GB" else "GiB",
        imported=outside.spec if outside else None,
        model_origin=outside.origin if outside else "catalog",
        model_source_note=outside.note if outside else None,
    )
