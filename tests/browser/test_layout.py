"""At a phone's width and on a desktop: no chart part covers another (legend, title, capacity, tick labels, line
labels), the Vega-Lite charts (the Memory page's, Compare's, the what-if's) draw theirs within the chart, and nothing
makes the page wider than the screen (tables scroll inside themselves)."""

from __future__ import annotations

import pytest

from tests.browser.layout import chart_overlaps, chart_parts
from tests.browser.screenshots import FOUR_BY_THREE
from tests.browser.server import wait_for_chart
from tests.ui.views import llama_70b_fp8
from ui import links

VIEW = llama_70b_fp8(50)
VIEWS: dict[str, tuple[str, dict[str, list[str]], dict[str, str]]] = {
    "memory": ("", {}, {}),
    "memory_short": ("", {}, {"gpus": "1", "tp": "1", "weights": "bf16"}),  # "short by 63.2 GiB" over the bar
    "what_if": ("what_if", FOUR_BY_THREE, {}),
    "compare": ("compare", {}, {}),
}
# The parts each view's charts draw besides a title and tick labels.
PARTS = {
    "memory": {"legend", "xtitle"},
    "memory_short": {"legend", "xtitle", "annotation"},
    "compare": {"legend", "ytitle"},
    "what_if": {"annotation", "ytitle"},
}
CHARTS = {"memory": 1, "memory_short": 1, "compare": 2, "what_if": 3}


@pytest.mark.parametrize("width", [390, 1400])
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_no_chart_part_covers_another(browser, app_url: str, view: str, width: int) -> None:
    path, extra, changes = VIEWS[view]
    context = browser.new_context(viewport={"width": width, "height": 900}, is_mobile=width < 600)
    page = context.new_page()
    page.goto(f"{app_url}/{path}{links.query_string(VIEW, extra, **changes)}")
    wait_for_chart(page)
    page.wait_for_timeout(500)  # the charts' relayout to the page's width after the first draw
    charts = chart_parts(page)
    assert charts
    # Vega-Lite (ui/memory_chart.py, ui/compare_charts.py, ui/what_if_charts.py), drawn in full
    assert [kind for kind, _ in charts] == ["vega"] * CHARTS[view]
    frames = [c.bounding_box() for c in page.locator("[data-testid='stVegaLiteChart']").element_handles()]
    for (_, boxes), frame in zip(charts, frames, strict=True):
        assert {"title", "xtick", "ytick", *PARTS[view]} <= {b["kind"] for b in boxes}
        assert frame is not None
        left, right = frame["x"] - 1, frame["x"] + frame["width"] + 1
        cut = [b["name"] for b in boxes if b["x"] < left or b["x"] + b["w"] > right]
        assert cut == [], f"cut off at the chart's edge: {cut}"
    assert chart_overlaps(page) == []
    wider = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert wider <= 0, f"the page is {wider} px wider than the screen"
    context.close()
