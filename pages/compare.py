"""Compare: every weight precision x KV dtype at the chosen context, and chosen pairs side by side."""

from __future__ import annotations

from functools import partial

import plotly.graph_objects as go
import streamlit as st

from planner.assessment.assess import Assessment
from planner.bounds.errors import PlannerError
from planner.planning.results import PlanResult
from ui import answers, binding, compare_charts, exports, figures, frame, links, refusals, settings, tables
from ui.common import share_and_export
from ui.guard import as_text
from ui.state import Selection

PATH = settings.COMPARE


def _grid(sel: Selection) -> answers.CompareAnswer | None:
    """Each pair the engine runs assessed once for every visitor asking the same (:func:`ui.answers.compare_grid`);
    ``None`` in a cell where the engine does not run the pair ("not run" in the heatmap)."""
    try:
        return answers.compare_grid(sel)
    except PlannerError as exc:  # every pair shares the split or the engine's refusal, so this is the same for all
        refusals.refused(sel, str(exc), answers.engines_running(sel, None), {})
        return None


def _chart(key: str, data: compare_charts.Data, spec: dict[str, object]) -> None:
    """A Vega-Lite chart (:mod:`ui.compare_charts`) whose spec is the same from run to run, so a slider move sends
    new rows that the browser draws in place. Without selections Streamlit 1.67 gives it no element id (the browser
    knows it by its place on the page, which stays); the key names it should a release id such charts."""
    st.vega_lite_chart(None, compare_charts.with_data(spec, data), width="stretch", key=key)


def _report_figures(
    sel: Selection, answer: answers.CompareAnswer, chosen: list[tuple[str, PlanResult]]
) -> list[go.Figure]:
    """The HTML report's Plotly figures of the same content, made when its button is pressed."""
    weights, kvs, grid = answer
    heat = figures.heatmap_figure(weights, kvs, grid, sel.context_tokens)
    return [heat, *([figures.compare_bars_figure(chosen, sel.unit)] if len(chosen) >= 2 else [])]


def _csv_row(sel: Selection, a: Assessment) -> dict[str, object]:
    """A grid cell for the CSV: the set-up it is (its own weights and KV dtype), its figures and its verdict."""
    w, kv = a.result.weights, a.result.kv_dtype
    per_gpu = {f"weights per GPU ({sel.unit})": tables.weights_per_gpu(a, sel.unit, digits=3)}
    return exports.with_setup(sel, a, [{**tables.format_notes(w, kv), **per_gpu}])[0]


def render(sel: Selection) -> None:
    name = sel.spec.display_name
    st.title(f"Precisions compared: {as_text(name)} on {sel.gpu_count} × {sel.gpu.name}")
    st.caption(as_text(sel.grid_caption()))
    answer = _grid(sel)  # what the engine runs on this GPU (every format for a generic profile)
    if answer is None:
        return
    weights, kvs, grid = answer
    _chart("compare_heatmap", *compare_charts.heatmap_chart(weights, kvs, grid, sel.context_tokens))
    by_pair = {
        f"{w}/{kv}": a
        for w, row in zip(weights, grid, strict=True)
        for kv, a in zip(kvs, row, strict=True)
        if a is not None
    }
    rows = [tables.compare_row(a, sel.unit) for a in by_pair.values()]
    st.dataframe(rows, hide_index=True, width="stretch", height=360)
    current = f"{sel.weights}/{sel.kv_dtype}"
    pairs = list(by_pair) if current in by_pair or current not in sel.runnable_pairs() else [current, *by_pair]
    default = list(dict.fromkeys(p for p in (current, "fp8/fp8", "int4-awq/fp8", "q4_k_m/bf16") if p in pairs))[:3]
    picked = binding.choose_many(st, settings.COMBOS, pairs, default, max_selections=4)
    chosen = [
        (p, (by_pair.get(p) or sel.assessment(weights=p.split("/")[0], kv_dtype=p.split("/")[1])).result)
        for p in picked
        if p in pairs
    ]
    if len(chosen) < 2:
        st.info("Pick two to four different combinations to see them side by side.")
    else:
        _chart("compare_bars", *compare_charts.compare_bars_chart(chosen, sel.unit))
    current_assessment = sel.assessment()
    share_and_export(
        sel,
        PATH,
        f"Precisions compared: {name}",
        current_assessment.sentence(sel.unit),
        partial(_report_figures, sel, answer, chosen),
        {"grid": [_csv_row(sel, a) for a in by_pair.values()]},
        links.page_params(PATH, {settings.COMBOS.url: picked}),
    )


frame.run_page(render)
