"""Compare: every weight precision x KV dtype at the chosen context, and chosen pairs side by side."""

from __future__ import annotations

import streamlit as st

from planner.errors import PlannerError
from planner.plan import PlanResult, plan
from planner.precision import KV_FORMATS, WEIGHT_FORMATS
from ui import figures, state, text
from ui.common import share_and_export
from ui.state import Selection

PATH = "compare"
GRID_KV = ("bf16", "fp8", "int8", "int4")


def render_compare_page(sel: Selection) -> None:
    name = sel.spec.display_name
    st.title(f"Precisions compared: {name} on {sel.gpu_count} × {sel.gpu.name}")
    weights = list(WEIGHT_FORMATS)
    grid: list[list[PlanResult]] = []
    for w in weights:
        row = []
        for kv in GRID_KV:
            try:
                row.append(plan(sel.request(weights=w, kv_dtype=kv)))
            except PlannerError as exc:  # every pair shares the split, so this is the same for all
                st.error(str(exc))
                return
        grid.append(row)
    heat = figures.heatmap_figure(weights, GRID_KV, grid, sel.context_tokens)
    st.plotly_chart(heat, width="stretch", config={"displaylogo": False})
    rows = []
    for w, row in zip(weights, grid, strict=True):
        for kv, result in zip(GRID_KV, row, strict=True):
            rows.append(
                {
                    "weights": w,
                    "kv_dtype": kv,
                    f"weights per GPU ({sel.unit})": round(
                        result.per_gpu.weights_bytes / 2**30
                        if sel.unit == "GiB"
                        else result.per_gpu.weights_bytes / 1e9,
                        2,
                    ),
                    "KV budget (tokens)": result.kv_budget_tokens,
                    "concurrency": round(result.max_concurrency, 2),
                    "fits": result.fits,
                    "weights quality": WEIGHT_FORMATS[w].quality_note,
                    "KV quality": KV_FORMATS[kv].quality_note,
                    "source": f"{WEIGHT_FORMATS[w].source} / {KV_FORMATS[kv].source}",
                }
            )
    st.dataframe(rows, hide_index=True, width="stretch", height=360)
    pairs = [f"{r['weights']}/{r['kv_dtype']}" for r in rows]
    default = [p for p in (f"{sel.weights}/{sel.kv_dtype}", "fp8/fp8", "int4-awq/fp8") if p in pairs][:3]
    picked = st.multiselect(
        state.COMBOS.label,
        pairs,
        default=default,
        max_selections=4,
        **state.COMBOS.bound(),
    )
    by_pair = {
        f"{r['weights']}/{r['kv_dtype']}": res for r, res in zip(rows, [x for row in grid for x in row], strict=True)
    }
    chosen = [(p, by_pair[p]) for p in picked]
    if len(chosen) < 2:
        st.info("Pick two to four combinations to see them side by side.")
        bars = None
    else:
        bars = figures.compare_bars_figure(chosen, sel.unit)
        st.plotly_chart(bars, width="stretch", config={"displaylogo": False})
    current = plan(sel.request())
    share_and_export(
        sel,
        PATH,
        f"Precisions compared: {name}",
        text.verdict(current, name, sel.gpu, sel.unit),
        [heat, *([bars] if bars else [])],
        {"grid": rows},
        {state.COMBOS.key: picked},
    )


if __name__ == "__main__":
    # Streamlit's legacy pages-directory mode runs a file of pages/ directly when a server's very first
    # request is a page URL; hand over to the frame, which routes to this page through st.navigation.
    from ui.frame import run_frame

    run_frame()
