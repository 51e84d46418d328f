"""The shared set-up in the sidebar: every widget bound to its URL parameter (``bind="query-params"``), so
any view is a link. Returns a validated :class:`Selection`; pages never read widgets themselves."""

from __future__ import annotations

from typing import Any

import streamlit as st

from planner.engines.calibrated import Calibrated
from planner.engines.registry import profile_label
from planner.errors import PlannerError
from planner.model import ModelSpec
from planner.plan import serving_kv_dtype, serving_weights
from ui import state
from ui.custom_spec import decode_spec
from ui.imports import import_from_hub
from ui.state import Selection

EXACT_CONTEXT_KEY = "context_exact"  # the exact-number twin of the context slider (not in the URL)
TOKEN_KEY = "hf_token_session"  # the access token: session only, never bound to the URL


def _index(options: list[Any], value: object) -> int:
    return options.index(value) if value in options else 0


def _sync_context_from_exact() -> None:
    """Typing an exact number moves the slider (the slider holds the URL-bound value)."""
    st.session_state[state.CONTEXT.key] = st.session_state[EXACT_CONTEXT_KEY]


def _sync_exact_from_context() -> None:
    st.session_state[EXACT_CONTEXT_KEY] = st.session_state[state.CONTEXT.key]


def _outside_model(sb: Any) -> tuple[ModelSpec | None, str | None, str | None]:
    """A model from the link's ``spec`` (described by hand) or from the Hub import field.

    Returns (spec, where it came from, the weight precision the checkpoint implies). A failure says why on
    the page and leaves the catalog model in use.
    """
    custom = st.query_params.get(state.CUSTOM_SPEC.key)
    if custom:
        try:
            spec = decode_spec(custom)
        except PlannerError as exc:
            sb.error(f"{exc}. Using the catalog model.", icon=":material/error:")
        else:
            return spec, "custom architecture described by hand (carried in the link)", None
    reference = sb.text_input(
        state.HF.label,
        **state.HF.bound(),
        placeholder="owner/name or owner/name@revision",
        max_chars=200,
    ).strip()
    with sb.expander("Access token for gated models", icon=":material/key:"):
        token = st.text_input(
            "Hugging Face token",
            type="password",
            key=TOKEN_KEY,
            help="Used for this session only: never put in the link, the logs or the page.",
        )
    if not reference:
        return None, None, None
    try:
        imported = import_from_hub(reference, token or None)
    except PlannerError as exc:
        sb.error(f"Import failed: {exc} The catalog model stays in use.", icon=":material/cloud_off:")
        return None, None, None
    if imported.spec is None:
        missing = ", ".join(m.field for m in imported.missing)
        sb.warning(
            f"{imported.repo_id}: config.json lacks {missing}. Complete it on the Custom model page.",
            icon=":material/edit_note:",
        )
        st.session_state["_hub_prefill"] = imported.prefill
        return None, None, None
    counts = imported.parameters
    source = f"Hugging Face Hub {imported.repo_id}" + (f" @ {imported.sha[:10]}" if imported.sha else "")
    if counts is not None:
        source += f"; {counts.value:,} parameters from {counts.source}"
    if imported.stored_bytes is not None:
        source += f"; {imported.stored_bytes.value:,} bytes stored ({imported.stored_bytes.source})"
    sb.success(f"Planning {imported.repo_id} from the Hub.", icon=":material/cloud_done:")
    return imported.spec, source, imported.weight_precision


def render_sidebar() -> Selection:
    """Draw the set-up widgets and return what they hold."""
    sb = st.sidebar
    sb.markdown("### Set-up")
    models = state.model_options()
    model_id = sb.selectbox(
        state.MODEL.label,
        models,
        index=_index(models, state.DEFAULT_MODEL),
        **state.MODEL.bound(),
    )
    imported, imported_source, checkpoint_precision = _outside_model(sb)
    spec = imported if imported is not None else state.get_model(model_id).spec
    gpus = state.gpu_options()
    gpu_id = sb.selectbox(
        state.GPU.label,
        gpus,
        index=_index(gpus, state.DEFAULT_GPU),
        **state.GPU.bound(),
    )
    gpu = state.get_gpu(gpu_id)
    sb.caption(f"{gpu.name} · {gpu.memory_bytes / 2**30:,.2f} GiB as the device reports")
    counts = list(state.GPU_COUNT_OPTIONS)
    col1, col2, col3 = sb.columns(3)
    gpu_count = col1.selectbox(state.GPUS.label, counts, **state.GPUS.bound())
    tps = state.tp_options(spec, gpu_count)
    tp = col2.selectbox(
        "TP",
        tps,
        index=_index(tps, state.default_tp(spec, gpu_count)),
        **state.TP.bound(),
    )
    pps = state.pp_options(spec, gpu_count, tp)
    pp = col3.selectbox("PP", pps, **state.PP.bound())
    weights = state.weight_options()
    weight = sb.selectbox(
        state.WEIGHTS.label,
        weights,
        index=_index(weights, checkpoint_precision or serving_weights(spec)),
        **state.WEIGHTS.bound(),
    )
    kvs = state.kv_options()
    kv = sb.selectbox(
        state.KV.label,
        kvs,
        index=_index(kvs, serving_kv_dtype(spec)),
        **state.KV.bound(),
    )
    engines = state.engine_options()
    engine = sb.selectbox(
        state.ENGINE.label,
        engines,
        index=_index(engines, state.DEFAULT_ENGINE),
        **state.ENGINE.bound(),
    )
    sb.caption(profile_label(engine))
    util = sb.number_input(
        state.UTIL.label,
        min_value=0.30,
        max_value=0.99,
        value=state.DEFAULT_UTIL,
        step=0.01,
        format="%.2f",
        **state.UTIL.bound(),
    )
    calibration = st.query_params.get(state.CALIBRATION.key) or None
    if calibration:
        try:
            Calibrated.from_token(calibration)
        except PlannerError as exc:
            sb.error(f"{exc}. Estimates are used instead.", icon=":material/error:")
            calibration = None
        else:
            sb.info("Overheads measured from a pasted start-up log are in use (Memory page).", icon=":material/tune:")
    low, high = state.context_range(spec)
    context = sb.slider(
        state.CONTEXT.label,
        min_value=low,
        max_value=high,
        value=state.default_context(spec),
        step=1,
        **state.CONTEXT.bound(),
        on_change=_sync_exact_from_context,
    )
    if st.session_state.get(EXACT_CONTEXT_KEY) != context:
        st.session_state[EXACT_CONTEXT_KEY] = context
    sb.number_input(
        "Exact context (tokens)",
        min_value=low,
        max_value=high,
        step=1,
        key=EXACT_CONTEXT_KEY,
        on_change=_sync_context_from_exact,
    )
    users = sb.number_input(
        state.USERS.label,
        min_value=1,
        max_value=state.MAX_USERS,
        value=state.DEFAULT_USERS,
        step=1,
        **state.USERS.bound(),
    )
    unit = (
        sb.segmented_control(
            state.UNIT.label,
            list(state.UNITS),
            default="GiB",
            **state.UNIT.bound(),
        )
        or "GiB"
    )
    return Selection(
        model_id=model_id,
        gpu_id=gpu_id,
        gpu_count=gpu_count,
        tensor_parallel=tp,
        pipeline_parallel=pp,
        weights=weight,
        kv_dtype=kv,
        engine=engine,
        util=float(util),
        calibration=calibration,
        context_tokens=int(context),
        users=int(users),
        unit=unit,
        imported=imported,
        imported_source=imported_source,
        hf=st.session_state.get(state.HF.key) or "",
        custom_spec=st.query_params.get(state.CUSTOM_SPEC.key)
        if imported_source and "by hand" in imported_source
        else None,
    )
