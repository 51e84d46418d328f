"""At a phone's width and on a desktop: no chart part covers another (legend, title, toolbar, capacity, tick
labels, line labels), the Vega-Lite charts (Compare's, the what-if's) draw theirs within the chart, and nothing makes
the page wider than the screen (tables scroll inside themselves)."""

from __future__ import annotations

import pytest

from tests.browser.layout import chart_overlaps, chart_parts
from tests.browser.screenshots import FOUR_BY_THREE
from tests.browser.server import wait_for_chart
from ui import links
from ui.state import Selection

VIEW = Selection(
    model_id="meta-llama/Llama-3.1-70B",
    gpu_count=2,
    tensor_parallel=2,
    weights="fp8",
    kv_dtype="fp8",
    context_tokens=32768,
    users=50,
)
VIEWS = {"memory": ("", {}), "what_if": ("what_if", FOUR_BY_THREE), "compare": ("compare", {})}


@pytest.mark.parametrize("width", [390, 1400])
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_no_chart_part_covers_another(browser, app_url: str, view: str, width: int) -> None:
    path, extra = VIEWS[view]
    context = browser.new_context(viewport={"width": width, "height": 900}, is_mobile=width < 600)
    page = context.new_page()
    page.goto(f"{app_url}/{path}{links.query_string(VIEW, extra)}")
    wait_for_chart(page)
    page.wait_for_timeout(500)  # Plotly's responsive relayout after the first draw (the Memory page's chart)
    charts = chart_parts(page)
    assert charts
    if view in ("compare", "what_if"):  # Vega-Lite (ui/compare_charts.py, ui/what_if_charts.py), drawn in full
        assert [kind for kind, _ in charts] == ["vega"] * {"compare": 2, "what_if": 3}[view]
        frames = [c.bounding_box() for c in page.locator("[data-testid='stVegaLiteChart']").element_handles()]
        parts = {"compare": {"legend"}, "what_if": {"annotation"}}[view]
        for (_, boxes), frame in zip(charts, frames, strict=True):
            assert {"title", "ytitle", "xtick", "ytick", *parts} <= {b["kind"] for b in boxes}
            assert frame is not None
            left, right = frame["x"] - 1, frame["x"] + frame["width"] + 1
            cut = [b["name"] for b in boxes if b["x"] < left or b["x"] + b["w"] > right]
            assert cut == [], f"cut off at the chart's edge: {cut}"
    assert chart_overlaps(page) == []
    wider = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert wider <= 0, f"the page is {wider} px wider than the screen"
    context.close()
