"""The set-up on a cold link: a summary in words, with the editor one click away.

A link opened cold draws its answer with the set-up summarised at the top of the sidebar (model, GPUs, precisions,
engine, launch settings, context, users, unit) and an expander that opens the full editor; every later run of the
session (the expander opened, any widget changed, another page) draws the full editor, which then stays; the rerun
a cold link's first paint asks for once its chart is drawn, which the reader did not ask for, keeps what the run
before it drew (:mod:`ui.first_paint`, :func:`keep_summary`). The set-up's
~15 widgets are five widget kinds, each a script the browser fetches, evaluates and renders on the same main thread that
draws the chart: on a cold link they cost the first chart ~25 % (``make bench``, :mod:`bench.coldlink`), a summary in
two Markdown elements almost nothing. Nothing is lost: the settings are read, checked and put in the address bar and the
share link the same way whichever is drawn (:func:`ui.sidebar.render_sidebar` runs either way), and a set-up with
anything to say (an import, a replaced value, an extrapolated release: an alert) draws the editor at once.
A link to the Memory page that carries settings keeps its sidebar collapsed and draws the summary at the main
column's end instead, the editor behind the collapsed sidebar (:func:`ui.first_paint.sidebar_state`).
"""

from __future__ import annotations

import streamlit as st

from planner.assessment.words import context_label, split_label
from planner.core.kv_formats import kv_format
from planner.core.precision import weight_format
from planner.core.units import GiB
from planner.engines.registry import engine_names, get_engine, profile_label
from planner.engines.settings import ENGINE_SETTINGS, EngineSetting, is_given, shown_name, size_argument, switch_words
from planner.engines.vllm.towers import limit_mm_argument
from ui.deferred import Deferred
from ui.guard import as_text
from ui.state import Selection

EDITOR_KEY = "_setup_editor"  # the session has drawn its set-up once: the full editor from now on (view state)
OPEN_KEY = "setup_open"  # the summary's expander: opening it reruns the page with the editor (view state)
OPEN_LABEL = "Change the set-up"
SHOWN_KEY = "_setup_summary_shown"  # this run drew the summary (view state)
MM_SETTINGS = ("limit_mm_per_prompt", "limit_mm_audio")  # vLLM writes both into one --limit-mm-per-prompt JSON
SUMMARY_KEY = "setup_summary"  # the summary's container (its CSS class st-key-setup_summary finds it in a browser)


def _model(sel: Selection) -> str:
    spec = sel.spec
    if sel.model_origin == "hub":
        return f"{spec.display_name} (Hugging Face Hub {sel.hub_reference})"
    if sel.model_origin == "custom":
        return f"{spec.display_name} (a custom model, described by hand)"
    return f"{spec.display_name} ({sel.model_id})"


def _engine(sel: Selection) -> str:
    if sel.calibration:
        return "overheads measured from a pasted start-up log"
    if sel.engine not in engine_names():
        return profile_label(sel.engine)
    words = get_engine(sel.engine).support.label + (f" {sel.engine_version}" if sel.engine_version else "")
    if sel.kv_cache_memory_gib is not None:  # a fixed KV size: the fraction sizes nothing
        return words + ", a fixed KV-cache size (the memory fraction is not used)"
    return words + (f", memory fraction {sel.util:.2f}" if sel.util is not None else "")


def _launch(sel: Selection) -> list[tuple[str, str]]:
    """The launch settings given (``--max-num-seqs 2 --enforce-eager``), as the engine is started with them: vLLM's
    multimodal counts (its settings alone) as the one ``--limit-mm-per-prompt`` JSON its command carries
    (:func:`_vllm_mm_words`)."""
    given = [(d, getattr(sel, shown_name(d))) for d in ENGINE_SETTINGS if is_given(d, getattr(sel, shown_name(d)))]
    if not given:
        return []
    engine = get_engine(sel.engine) if sel.engine in engine_names() else None
    mm = any(d.name in MM_SETTINGS for d, _ in given)  # vLLM's settings alone
    words = [
        _flag_words(d, value, engine.flag_for(d.name, sel.engine_version) if engine else d.flag)
        for d, value in given
        if not (mm and d.name in MM_SETTINGS)
    ]
    mm_words = _vllm_mm_words(sel) if mm else ""
    return [("Launch", " ".join([*words, mm_words] if mm_words else words))]


def _vllm_mm_words(sel: Selection) -> str:
    """vLLM's multimodal counts as its command writes them (``--limit-mm-per-prompt '{"image": 2, "video": 2}'``:
    :func:`planner.engines.vllm.towers.limit_mm_argument`, the launch command's; audio's own count is a key of the same
    JSON, not a flag)."""
    if sel.language_model_only:
        return ""
    return limit_mm_argument(sel.limit_mm_per_prompt, sel.spec, sel.limit_mm_audio)


def _flag_words(declared: EngineSetting, value: object, flag: str) -> str:
    """One launch setting as the engine is started with it (``flag``: its own spelling): ``--enforce-eager``,
    ``--kv-cache-memory-bytes 4294967296 (4 GiB)``."""
    if declared.kind == "flag":
        return flag
    if declared.kind == "switch":
        return switch_words(flag, bool(value))
    if declared.kind == "choice":
        return f"{flag} {value}"
    if declared.kind == "bytes":
        return size_argument(flag, round(float(str(value)) * GiB))
    return f"{flag} {value:g}"


def _hardware(sel: Selection) -> list[tuple[str, str]]:
    request = sel.request()
    split = split_label(request, short=True)
    if sel.tensor_parallel is None and request.overhead.attends_per_gpu and request.model.moe is not None:
        split += " (auto: TP 1, a data-parallel attention rank a GPU)"
    elif sel.tensor_parallel is None and sel.gpu.one_per_machine and sel.gpu_count > 1:
        split += " (auto: a replica a machine)"
    elif sel.tensor_parallel is None and not request.overhead.splits_layers:
        split += " (auto: the largest legal split)"
    return [
        ("GPUs", f"{sel.gpu_count} × {sel.gpu.name}, {split}"),
        ("Precisions", f"weights {weight_format(sel.weights).label}, KV cache {kv_format(sel.kv_dtype).label}"),
        ("Engine", _engine(sel)),
        *_launch(sel),
    ]


def lines(sel: Selection, hardware: bool = True) -> list[tuple[str, str]]:
    """The set-up in words: (what, the setting's value), one pair per line of the summary; without the hardware
    lines on a page that does not plan the sidebar's hardware (:data:`ui.page_registry.Page.hardware`)."""
    return [
        ("Model", _model(sel)),
        *(_hardware(sel) if hardware else []),
        ("Context", f"{context_label(sel.context_tokens)} tokens ({sel.context_tokens:,})"),
        ("Users", f"{sel.users:,} at once"),
        ("Unit", "GiB (2^30 bytes)" if sel.unit == "GiB" else "GB (10^9 bytes)"),
    ]


def summary(sel: Selection, hardware: bool = True, where: Deferred | None = None) -> Deferred:
    """The summary and the expander that opens the editor, recorded for the sidebar (drawn after the page), or for
    ``where`` (the main column while the sidebar is collapsed, :func:`ui.first_paint.summary_in_main`)."""
    sidebar = Deferred(lambda: st.sidebar) if where is None else where
    box = sidebar.container(key=SUMMARY_KEY)
    # One Markdown element, heading and lines: each element a cold link draws costs the browser's main thread
    # before the chart is drawn (bench/coldlink_cpu.py).
    box.markdown(
        "### Set-up\n\n" + "  \n".join(f"**{what}:** {as_text(value)}" for what, value in lines(sel, hardware))
    )
    # Streamlit's lazy expander (on_change="rerun"): opening it reruns the page, and the rerun draws the editor.
    box.expander(OPEN_LABEL, icon=":material/tune:", on_change="rerun", key=OPEN_KEY)
    return sidebar


def shown(editor: Deferred, sel: Selection | None, hardware: bool = True) -> Deferred:
    """What the sidebar draws this run: on the session's first run with nothing to say, the summary; otherwise
    (and from then on) ``editor``, the full set-up as :func:`ui.sidebar.render_sidebar` recorded it."""
    first = not st.session_state.get(EDITOR_KEY)
    st.session_state[EDITOR_KEY] = True
    shown_summary = first and sel is not None and not editor.alerts()
    st.session_state[SHOWN_KEY] = shown_summary
    return summary(sel, hardware) if shown_summary and sel is not None else editor


def keep_summary() -> None:
    """The next run draws the summary again where the last drew it (a rerun the reader did not ask for:
    :mod:`ui.first_paint`), and the editor where it drew the editor or the reader has opened it (a click on
    :data:`OPEN_LABEL` whose run the signal's rerun interrupted before it drew anything)."""
    opened = bool(st.session_state.get(OPEN_KEY))
    st.session_state[EDITOR_KEY] = opened or not st.session_state.get(SHOWN_KEY, False)
