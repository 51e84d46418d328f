"""Context what-if: how long can conversations get before the target users no longer fit? One chart per GPU,
one line per weight / KV pair (coloured as on every page), the target users as a line, and the answer per line
as a sentence and a table."""

from __future__ import annotations

from functools import partial

import plotly.graph_objects as go
import streamlit as st

from model_catalog import get_gpu
from planner.assessment.assess import context_label
from planner.bounds.errors import PlannerError
from planner.planning.plan import PlanRequest
from ui import binding, compare_charts, curves, exports, frame, links, settings, state, tables, text, what_if_charts
from ui.common import share_and_export
from ui.guard import as_text
from ui.state import Selection
from ui.turns import shares_work

PATH = settings.WHAT_IF
# The pairs offered besides the sidebar's: of these, the ones the engine runs on the sidebar's GPU.
CURVE_OPTIONS = [f"{w}/{kv}" for w in ("bf16", "fp8", "int4-awq", "q8_0", "q4_k_m") for kv in ("bf16", "fp8", "int8")]
POINTS = 40
# What every panel's chart shares: the chosen context, the users, the context range, the y top, the toggle.
Shared = tuple[int, int, tuple[int, int], float, bool]


def _curve_choices(sel: Selection) -> list[str]:
    current = f"{sel.weights}/{sel.kv_dtype}"
    runs = [c for c in CURVE_OPTIONS if c != current and sel.runs(*c.split("/"))]
    return [current, *runs]


@st.cache_data(max_entries=256, show_spinner=False)
@shares_work
def _curve(request: PlanRequest, pair: str, contexts: tuple[int, ...], users: int) -> curves.Curve:
    """One curve, kept across reruns: moving the context slider recomputes only the chosen point."""
    return curves.build_curve(request, pair, contexts, users)


def _panels(sel: Selection, pairs: list[str], gpu_ids: list[str]) -> tuple[list[curves.Panel], list[str]]:
    low, high = state.context_range(sel.spec)
    contexts = state.log_contexts(low, high, points=POINTS)
    panels, skipped = [], []
    for gpu_id in gpu_ids:
        title = f"{sel.gpu_count} × {get_gpu(gpu_id).name}"
        requests = []
        for pair in pairs:
            weights, kv = pair.split("/")
            try:
                requests.append((pair, sel.request(weights=weights, kv_dtype=kv, gpu_id=gpu_id)))
            except PlannerError as exc:
                skipped.append(f"{pair} on {title}: {exc}")
        panel, notes = curves.build_panel(title, requests, contexts, sel.users, sel.context_tokens, _curve)
        panels.append(panel)
        skipped += notes
    return panels, skipped


def _chart(index: int, data: compare_charts.Data, spec: dict[str, object]) -> None:
    """A Vega-Lite chart (:mod:`ui.what_if_charts`) whose spec is the same from run to run, so a slider move sends
    new rows that the browser draws in place (as the Compare page's: ``pages/compare.py``)."""
    st.vega_lite_chart(None, compare_charts.with_data(spec, data), width="stretch", key=f"what_if_{index}")


def _report_figures(panels: list[curves.Panel], shared: Shared, marked: str) -> list[go.Figure]:
    """The HTML report's Plotly figures of the same content, made when its button is pressed."""
    return [
        curves.what_if_figure(panel, *shared, marked=marked if index == 0 else None)
        for index, panel in enumerate(panels)
    ]


def _answer_rows(sel: Selection, panels: list[curves.Panel], high: int) -> list[dict[str, object]]:
    users, context = sel.users, sel.context_tokens
    rows: list[dict[str, object]] = []
    for panel in panels:
        for curve in panel.curves:
            point = curve.at(context)
            longest = curve.longest
            rows.append(
                {
                    "GPUs": panel.title,
                    "weights / KV": curve.pair,
                    f"longest context for {users:,} users": "none"
                    if longest <= 0
                    else (f"every length (to {high:,})" if longest >= high else f"{longest:,} tokens"),
                    f"conversations at {context_label(context)}": point.conversations if point else 0,
                }
            )
    return rows


def render(sel: Selection) -> None:
    name = sel.spec.display_name
    st.title(f"How long can conversations get? {as_text(name)}")
    choices = _curve_choices(sel)
    c1, c2 = st.columns([3, 2])
    picked = binding.choose_many(c1, settings.CURVES, choices, [choices[0]], max_selections=6) or [choices[0]]
    others = binding.choose_many(
        c2,
        settings.CURVE_GPUS,
        [g for g in state.gpu_options() if g != sel.gpu_id],
        [],
        max_selections=4,
        format_func=lambda g: get_gpu(g).name,
    )
    contiguous = binding.toggle(st, settings.CONTIGUOUS, False)
    low, high = state.context_range(sel.spec)
    panels, skipped = _panels(sel, picked, [sel.gpu_id, *others])
    users, context = sel.users, sel.context_tokens
    st.markdown(f"**Before {users:,} users no longer fit** (the sidebar's target, the dashed line):")
    own = next((c for c in panels[0].curves if c.pair == choices[0]), None) if panels else None
    if own is None:  # the sidebar's pair is not drawn: answer for it all the same
        own = curves.build_curve(sel.request(), choices[0], [context], users)
    st.markdown(as_text(curves.longest_sentence(own, f"{sel.gpu_count} × {sel.gpu.name}", users, context, high)))
    y_top = max((p.concurrency for panel in panels for c in panel.curves for p in c.points), default=1.0)
    shared = (context, users, (low, high), y_top, contiguous)
    for index, panel in enumerate(panels):
        _chart(index, *what_if_charts.what_if_chart(panel, *shared, marked=choices[0] if index == 0 else None))
    for note in skipped:
        st.warning(as_text(note), icon=":material/warning:")
    answers = _answer_rows(sel, panels, high)
    st.html(tables.html_table(answers))
    chosen = sel.assessment()
    st.caption(
        as_text(text.solid_line_words(chosen))
        + ("; dashed: each conversation reserves the full length up front (llama.cpp slots)" if contiguous else "")
        + f". {text.context_rule(sel.engine)}. Each dot is "
        "where its line crosses the target; the dotted line is the sidebar's context, the diamond the sidebar's own "
        "set-up; a name struck out holds not even one conversation of the shortest length."
    )
    page = links.page_params(
        PATH,
        {settings.CURVES.url: picked, settings.CURVE_GPUS.url: others, settings.CONTIGUOUS.url: contiguous},
    )
    exported = {"longest": _longest_csv(sel, panels, [sel.gpu_id, *others], high), "curves": _curves_csv(sel, panels)}
    names = {g: get_gpu(g).name for g in others}
    figures = partial(_report_figures, panels, shared, choices[0])
    share_and_export(
        sel, PATH, f"Context what-if: {name}", chosen.sentence(sel.unit), figures, exported, page, names=names
    )


def _longest_csv(sel: Selection, panels: list[curves.Panel], gpu_ids: list[str], high: int) -> list[dict[str, object]]:
    """A row per GPU and pair: the set-up at the chosen context, the longest context for the target, the
    answer in words, and the verdict at the chosen context."""
    rows: list[dict[str, object]] = []
    for gpu_id, panel in zip(gpu_ids, panels, strict=True):
        for curve in panel.curves:
            weights, kv = curve.pair.split("/")
            a = sel.assessment(weights=weights, kv_dtype=kv, gpu_id=gpu_id)
            answer = {
                f"longest context for {sel.users:,} users (tokens)": curve.longest,
                "answer": curves.longest_sentence(curve, panel.title, sel.users, sel.context_tokens, high),
            }
            rows += exports.with_setup(sel, a, [answer])
    return rows


def _curves_csv(sel: Selection, panels: list[curves.Panel]) -> list[dict[str, object]]:
    """Every point drawn: the shared inputs, the GPU and pair, and the figures at that context."""
    shared = exports.shared_columns(sel, sel.assessment())
    return [
        {
            **shared,
            "GPU set-up": panel.title,
            "weights / KV": c.pair,
            "context (tokens)": p.context_tokens,
            "conversations at once (fractional)": round(p.concurrency, 3),
            "conversations (whole)": p.conversations,
            "conversations, reserved up front": p.contiguous,
            "KV cache per conversation (bytes)": p.kv_bytes_per_sequence,
        }
        for panel in panels
        for c in panel.curves
        for p in c.points
    ]


frame.run_page(render)
