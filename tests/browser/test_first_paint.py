"""A cold link to the Memory page loads only what its first paint draws: no data-grid or code-highlighter
script (megabytes to parse on the same core that draws the chart; ``make bench`` times the difference)."""

from __future__ import annotations

from typing import Any

from tests.browser.server import wait_for_chart
from ui import links
from ui.state import Selection

HEAVY = ("StreamlitSyntaxHighlighter", "DataFrame", "arrowFormatUtils")


def test_memory_first_paint_loads_no_grid_or_highlighter(browser: Any, app_url: str) -> None:
    sel = Selection(model_id="meta-llama/Llama-3.1-70B", gpu_count=2, tensor_parallel=2, weights="fp8", kv_dtype="fp8")
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    scripts: list[str] = []
    page.on("request", lambda request: scripts.append(request.url.rsplit("/", 1)[-1]))
    page.goto(f"{app_url}/{links.query_string(sel)}")
    wait_for_chart(page)
    page.wait_for_timeout(1000)
    assert any(name.startswith("PlotlyChart") for name in scripts)
    assert [name for name in scripts if name.startswith(HEAVY)] == []
    assert page.get_by_text("Available KV cache memory:").count() == 1, "the engine's lines are on the page"
    context.close()
