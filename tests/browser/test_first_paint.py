"""A cold link to the Memory page loads only what its first paint draws: no data-grid or code-highlighter
script (megabytes to parse on the same core that draws the chart; ``make bench`` times the difference), and none
of the set-up's widget scripts: the sidebar summarises the set-up, and one click opens the editor
(:mod:`ui.setup_summary`)."""

from __future__ import annotations

from typing import Any

from tests.browser.server import SUMMARY, open_setup, wait_for_chart
from ui import links
from ui.state import Selection

HEAVY = ("StreamlitSyntaxHighlighter", "DataFrame", "arrowFormatUtils")
SETUP_SCRIPTS = ("Selectbox", "NumberInput", "Slider", "TextInput", "ButtonGroup")  # the editor's widget kinds


def _opened_cold(browser: Any, app_url: str, sel: Selection) -> tuple[Any, Any, list[str]]:
    """The set-up's link opened in a fresh context until its chart is drawn and a second has passed: the context,
    the page and the file name of every script the page requested (growing as the page asks for more)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    scripts: list[str] = []
    page.on("request", lambda request: scripts.append(request.url.rsplit("/", 1)[-1]))
    page.goto(f"{app_url}/{links.query_string(sel)}")
    wait_for_chart(page)
    page.wait_for_timeout(1000)
    return context, page, scripts


def test_memory_first_paint_loads_no_grid_or_highlighter(browser: Any, app_url: str) -> None:
    sel = Selection(model_id="meta-llama/Llama-3.1-70B", gpu_count=2, tensor_parallel=2, weights="fp8", kv_dtype="fp8")
    context, page, scripts = _opened_cold(browser, app_url, sel)
    assert any(name.startswith("ArrowVegaLiteChart") for name in scripts)  # the chart (ui/memory_chart.py)
    assert not [name for name in scripts if name.startswith("PlotlyChart")], "plotly.js: megabytes the page never uses"
    assert [name for name in scripts if name.startswith(HEAVY)] == []
    assert page.get_by_text("Available KV cache memory:").count() == 1, "the engine's lines are on the page"
    context.close()


def test_a_cold_links_set_up_is_a_summary_and_one_click_opens_the_editor(browser: Any, app_url: str) -> None:
    sel = Selection(model_id="meta-llama/Llama-3.1-70B", gpu_count=2, weights="fp8", kv_dtype="fp8", users=50)
    context, page, scripts = _opened_cold(browser, app_url, sel)
    assert [name for name in scripts if name.startswith(SETUP_SCRIPTS)] == []
    summary = page.locator(SUMMARY).inner_text()
    assert "Llama 3.1 70B" in summary and "2 × H100 SXM5 80GB" in summary and "50 at once" in summary
    address = page.url
    open_setup(page)
    assert {name.split(".")[0] for name in scripts} >= set(SETUP_SCRIPTS)
    assert page.locator(SUMMARY).count() == 0
    assert page.get_by_role("spinbutton", name="Target concurrent users").input_value() == "50"
    assert page.url == address, "opening the editor changes no setting"
    context.close()
