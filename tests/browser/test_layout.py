"""At a phone's width and on a desktop: no chart part covers another (legend, title, toolbar, capacity, tick
labels, line labels), and nothing makes the page wider than the screen (tables scroll inside themselves)."""

from __future__ import annotations

import pytest

from tests.browser.layout import chart_overlaps
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
    page.wait_for_timeout(500)  # Plotly's responsive relayout after the first draw
    assert page.locator("[data-testid='stPlotlyChart']").count() >= 1
    assert chart_overlaps(page) == []
    wider = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert wider <= 0, f"the page is {wider} px wider than the screen"
    context.close()
