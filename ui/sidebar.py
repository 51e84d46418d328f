"""The shared set-up in the sidebar: every widget bound to its URL parameter (``bind="query-params"``), so
any view is a link. Returns a validated :class:`Selection`; pages never read widgets themselves."""

from __future__ import annotations

import streamlit as st

from ui import state
from ui.state import Selection

EXACT_CONTEXT_KEY = "context_exact"  # the exact-number twin of the context slider (not in the URL)


def _index(options: list, value: object) -> int:
    return options.index(value) if value in options else 0


def _sync_context_from_exact() -> None:
    """Typing an exact number moves the slider (the slider holds the URL-bound value)."""
    st.session_state[state.CONTEXT.key] = st.session_state[EXACT_CONTEXT_KEY]


def _sync_exact_from_context() -> None:
    st.session_state[EXACT_CONTEXT_KEY] = st.session_state[state.CONTEXT.key]


def render_sidebar() -> Selection:
    """Draw the set-up widgets and return what they hold."""
    sb = st.sidebar
    sb.markdown("### Set-up")
    models = state.model_options()
    model_id = sb.selectbox(
        state.MODEL.label,
        models,
        index=_index(models, state.DEFAULT_MODEL),
        key=state.MODEL.key,
        bind="query-params",
        help=state.MODEL.help,
    )
    gpus = state.gpu_options()
    gpu_id = sb.selectbox(
        state.GPU.label,
        gpus,
        index=_index(gpus, state.DEFAULT_GPU),
        key=state.GPU.key,
        bind="query-params",
        help=state.GPU.help,
    )
    gpu = state.get_gpu(gpu_id)
    sb.caption(f"{gpu.name} · {gpu.memory_bytes / 2**30:,.1f} GiB as the device reports")
    counts = list(state.GPU_COUNT_OPTIONS)
    col1, col2, col3 = sb.columns(3)
    gpu_count = col1.selectbox(state.GPUS.label, counts, key=state.GPUS.key, bind="query-params", help=state.GPUS.help)
    tps = state.tp_options(model_id, gpu_count)
    tp = col2.selectbox(
        "TP",
        tps,
        index=_index(tps, state.default_tp(model_id, gpu_count)),
        key=state.TP.key,
        bind="query-params",
        help=state.TP.help,
    )
    pps = state.pp_options(model_id, gpu_count, tp)
    pp = col3.selectbox("PP", pps, key=state.PP.key, bind="query-params", help=state.PP.help)
    weights = state.weight_options()
    weight = sb.selectbox(
        state.WEIGHTS.label,
        weights,
        index=_index(weights, state.native_weights(model_id)),
        key=state.WEIGHTS.key,
        bind="query-params",
        help=state.WEIGHTS.help,
    )
    kvs = state.kv_options()
    kv = sb.selectbox(
        state.KV.label,
        kvs,
        index=_index(kvs, state.native_kv(model_id)),
        key=state.KV.key,
        bind="query-params",
        help=state.KV.help,
    )
    engines = list(state.ENGINE_PROFILES)
    engine = sb.selectbox(
        state.ENGINE.label, engines, key=state.ENGINE.key, bind="query-params", help=state.ENGINE.help
    )
    sb.caption(state.ENGINE_PROFILES[engine])
    low, high = state.context_range(model_id)
    context = sb.slider(
        state.CONTEXT.label,
        min_value=low,
        max_value=high,
        value=state.default_context(model_id),
        step=1,
        key=state.CONTEXT.key,
        bind="query-params",
        help=state.CONTEXT.help,
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
        key=state.USERS.key,
        bind="query-params",
        help=state.USERS.help,
    )
    unit = (
        sb.segmented_control(
            state.UNIT.label,
            list(state.UNITS),
            default="GiB",
            key=state.UNIT.key,
            bind="query-params",
            help=state.UNIT.help,
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
        context_tokens=int(context),
        users=int(users),
        unit=unit,
    )
