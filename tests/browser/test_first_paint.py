"""A cold link to the Memory page draws the answer first and the rest once its chart is drawn (ui.first_paint), and
loads only what its first paint draws: no data-grid or code-highlighter
script (megabytes to parse on the same core that draws the chart; ``make bench`` times the difference), and none
of the set-up's widget scripts before its chart: the sidebar is collapsed and empty until then, the main column
summarises the set-up, and one click opens the editor (:mod:`ui.setup_summary`, ``ui.first_paint.sidebar_state``)."""

from __future__ import annotations

from typing import Any

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Navigation_pb2 import Navigation as NavigationProto

from bench.coldlink import _observer
from tests.browser.server import CHART_DRAWN, SUMMARY, open_setup, wait_for_chart
from ui import first_paint, links
from ui.state import Selection

HEAVY = ("StreamlitSyntaxHighlighter", "DataFrame", "arrowFormatUtils")
SIDEBAR_ROOT = 1  # the sidebar's root container in a delta's path (streamlit 1.67 proto/RootContainer.proto)
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


# Every width the main column is drawn at while the page loads (a layout shift adds a second).
_MAIN_WIDTH = (
    "(() => { window.__mainWidths = []; new MutationObserver(() => {"
    " const main = document.querySelector(\"[data-testid='stMain']\"); if (!main) return;"
    " const width = Math.round(main.getBoundingClientRect().width);"
    " if (width && window.__mainWidths.at(-1) !== width) window.__mainWidths.push(width);"
    " }).observe(document, {subtree: true, childList: true}); })();"
)


@pytest.mark.parametrize(("width", "height"), [(1400, 1000), (390, 844)])  # a desktop, a phone
def test_a_cold_links_set_up_is_a_summary_and_one_click_opens_the_editor(
    browser: Any, app_url: str, width: int, height: int
) -> None:
    """The sidebar stays collapsed and empty until the chart is drawn (ui.first_paint.sidebar_state): no widget
    script is requested before it, the main column keeps its width, the set-up is summarised in the main column,
    and one click on its expander opens the sidebar's editor with the same settings."""
    sel = Selection(model_id="meta-llama/Llama-3.1-70B", gpu_count=2, weights="fp8", kv_dtype="fp8", users=50)
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.add_init_script(_observer({"chart": CHART_DRAWN}))
    page.add_init_script(_MAIN_WIDTH)
    page.goto(f"{app_url}/{links.query_string(sel)}")
    wait_for_chart(page)
    requested = page.evaluate(
        "() => performance.getEntriesByType('resource').map(e => [e.name.split('/').pop(), e.startTime])"
    )
    chart = page.evaluate("() => window.__headroomMarks.chart")
    assert [name for name, start in requested if name.startswith(SETUP_SCRIPTS) and start < chart] == []
    assert page.locator("[data-testid='stSidebar']").bounding_box()["width"] == 0, "collapsed"
    assert page.evaluate("() => window.__mainWidths") == [width], "one width from the first paint on"
    assert page.locator("[data-testid='stMain']").bounding_box()["width"] == width
    summary = page.locator(SUMMARY).inner_text()
    assert "Llama 3.1 70B" in summary and "2 × H100 SXM5 80GB" in summary and "50 at once" in summary
    assert page.locator(f"[data-testid='stMain'] {SUMMARY}").count() == 1, "in the main column"
    address = page.url
    open_setup(page)
    assert page.locator(SUMMARY).count() == 0
    assert page.get_by_role("spinbutton", name="Target concurrent users").input_value() == "50"
    assert page.url == address, "opening the editor changes no setting"
    context.close()


def _element_kinds(payload: bytes | str) -> str | None:
    """The kind of element a websocket frame adds (``None``: not an element), or ``"end"`` at a run's end."""
    message = ForwardMsg()
    message.ParseFromString(payload if isinstance(payload, bytes) else payload.encode())
    if message.WhichOneof("type") == "script_finished":
        return "end"
    if message.WhichOneof("type") == "delta" and list(message.metadata.delta_path[:1]) == [SIDEBAR_ROOT]:
        return "sidebar"  # anything drawn in the sidebar
    if message.WhichOneof("type") == "delta" and message.delta.WhichOneof("type") == "new_element":
        return str(message.delta.new_element.WhichOneof("type"))
    if message.WhichOneof("type") == "navigation":
        return f"navigation {NavigationProto.Position.Name(message.navigation.position)}"
    return None


def test_a_cold_link_draws_the_answer_then_the_whole_page(browser: Any, app_url: str) -> None:
    """The first run sends the answer (verdict, chart) and the signal, no headline figures or table (HTML
    elements); once the chart is drawn the signal reruns the page, which sends them, with the set-up still a
    summary (ui.first_paint)."""
    sel = Selection(model_id="meta-llama/Llama-3.1-70B", gpu_count=2, tensor_parallel=2, weights="fp8", kv_dtype="fp8")
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    kinds: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda p: kinds.append(_element_kinds(p) or "")))
    page.goto(f"{app_url}/{links.query_string(sel)}")
    wait_for_chart(page)
    runs = "|".join(k for k in kinds if k).split("|end|")
    first, second = runs[0].split("|"), runs[1].split("|")
    assert "vega_lite_chart" in first and "bidi_component" in first and "alert" in first
    assert "html" not in first
    assert "sidebar" not in first and "navigation HIDDEN" in first, "no sidebar in the first paint"
    assert "sidebar" in second and "navigation SIDEBAR" in second
    assert second.count("html") >= 2 and "bidi_component" not in second
    assert page.locator(f"[{first_paint.MARK}]").count() == 0
    assert page.locator(SUMMARY).count() == 1, "the rerun the reader did not ask for draws the summary"
    # the engine's lines are a code block, whose highlighter script the rerun fetches after the chart (with the editor's
    # widget scripts since the sidebar is drawn in the rerun): drawn a moment after the page's run ends
    page.get_by_text("Available KV cache memory:").first.wait_for(timeout=15_000)
    assert page.get_by_text("Available KV cache memory:").count() == 1
    context.close()
