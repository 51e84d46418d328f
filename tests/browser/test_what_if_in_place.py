"""The what-if's Vega-Lite charts (ui/what_if_charts.py) take a slider move in place: the browser keeps each chart's
drawing and swaps its rows (a Plotly chart was mounted from scratch on every move)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tests.browser.screenshots import FOUR_BY_THREE, VIEW
from tests.browser.server import open_setup, wait_for_chart
from ui import links

CHARTS = "[...document.querySelectorAll(\"[data-testid='stVegaLiteChart'] svg\")]"
# The chosen context's dotted rule (the spec's third layer, ui/what_if_charts.py) in each chart, as drawn.
CHOSEN = f"() => {CHARTS}.map(svg => svg.querySelector('.layer_2_marks')?.innerHTML)"
TITLES = f"() => {CHARTS}.map(svg => svg.querySelector('.role-title-text text')?.textContent)"


def test_the_what_if_charts_take_a_slider_move_in_place(page, app_url: str) -> None:
    page.goto(f"{app_url}/what_if{links.query_string(VIEW, FOUR_BY_THREE)}")
    wait_for_chart(page)
    page.wait_for_function(f"() => {CHARTS}.length === 3 && ({CHOSEN})().every(Boolean)", timeout=30_000)
    assert page.evaluate(TITLES) == ["2 × H100 SXM5 80GB", "2 × A100 SXM4 80GB", "2 × H100 PCIe 80GB"]
    assert page.evaluate(f"() => {CHARTS}.map(svg => (svg.dataset.before = 'yes')).length") == 3
    rules = page.evaluate(CHOSEN)
    open_setup(page)
    page.get_by_role("slider", name="Context length (tokens)").focus()
    page.keyboard.press("Home")  # the shortest context
    page.wait_for_function("() => new URL(location.href).searchParams.get('context') !== '32768'", timeout=30_000)
    wait_for_chart(page)
    assert int(parse_qs(urlsplit(page.url).query)["context"][0]) < 32768
    page.wait_for_function("(before) => (" + CHOSEN + ")().every((r, i) => r !== before[i])", arg=rules)
    assert page.evaluate(f"() => {CHARTS}.map(svg => svg.dataset.before)") == ["yes", "yes", "yes"]
