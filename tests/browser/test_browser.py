"""A real browser: a shared link reproduces the numbers, the slider moves the URL, every page draws."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser.server import open_setup, wait_for_chart
from tests.ui.views import llama_70b_fp8
from ui import figures, links
from ui.state import Selection

SHARED = llama_70b_fp8(20, gpu_id="h100-sxm-80gb")


def _verdict(sel: Selection) -> str:
    return sel.assessment().sentence(sel.unit)


def _alert_text(page) -> str:
    return " ".join(page.locator("[data-testid='stAlert']").all_inner_texts())


def test_shared_link_shows_the_same_numbers(page, app_url: str) -> None:
    page.goto(f"{app_url}/{links.query_string(SHARED)}")
    wait_for_chart(page)
    assert _verdict(SHARED) in _alert_text(page)
    figure = page.locator(".hr-figure", has_text="Conversations at 32k")  # ui.tables.figures_html
    assert figure.locator(".hr-value").inner_text() == f"{SHARED.assessment().conversations:,}"
    tip = figure.locator(".hr-tip")
    assert tip.evaluate("e => getComputedStyle(e).opacity") == "0"
    figure.locator(".hr-help").focus()  # its meaning shows on focus (a keyboard, a tap)
    page.wait_for_function("() => getComputedStyle(document.activeElement.firstElementChild).opacity === '1'")
    assert tip.inner_text() == "Whole conversations of the chosen context held at once, every replica counted."


def test_slider_change_updates_url_and_the_new_link_reproduces(page, browser, app_url: str) -> None:
    start = SHARED.model_copy(update={"context_tokens": 8192})
    page.goto(f"{app_url}/{links.query_string(start)}")
    wait_for_chart(page)
    before = _alert_text(page)
    open_setup(page)
    slider = page.get_by_role("slider", name="Context length (tokens)")
    slider.focus()
    page.keyboard.press("End")  # the context slider to the model's maximum
    page.wait_for_function("() => new URL(location.href).searchParams.get('context') !== '8192'", timeout=30_000)
    wait_for_chart(page)
    context = int(parse_qs(urlsplit(page.url).query)["context"][0])
    assert context == start.spec.max_position_embeddings
    moved = start.model_copy(update={"context_tokens": context})
    page.wait_for_function("(t) => document.body.innerText.includes(t)", arg=_verdict(moved), timeout=30_000)
    assert _alert_text(page) != before
    fresh = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    fresh.goto(page.url)
    wait_for_chart(fresh)
    assert _verdict(moved) in _alert_text(fresh)
    fresh.context.close()


@pytest.mark.parametrize("path", ["", "what_if", "compare", "advisor", "catalog", "custom"])
def test_every_page_draws(page, app_url: str, path: str, tmp_path: Path) -> None:
    page.goto(f"{app_url}/{path}{links.query_string(SHARED)}")
    if path in ("catalog", "custom"):
        page.wait_for_selector("[data-testid='stDataFrame'], [data-testid='stForm']", timeout=30_000)
    else:
        wait_for_chart(page)
    assert "Traceback" not in page.inner_text("body")
    assert "Page not found" not in page.inner_text("body")
    shot = tmp_path / f"{path or 'memory'}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000


def test_phone_width_has_no_traceback(browser, app_url: str) -> None:
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True).new_page()
    phone.goto(f"{app_url}/{links.query_string(SHARED)}")
    wait_for_chart(phone)
    assert _verdict(SHARED) in _alert_text(phone)
    phone.context.close()


def test_pareto_point_click_opens_it_on_the_memory_page(page, app_url: str) -> None:
    page.goto(f"{app_url}/advisor?users=40&preset=support-chat")
    wait_for_chart(page)
    # The points' layer of the Vega-Lite chart (ui/pareto.py) draws the recommendation last, on top: a diamond.
    recommended = page.locator("[data-testid='stVegaLiteChart'] g.layer_1_marks path").last
    recommended.scroll_into_view_if_needed()
    box = recommended.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    link = page.locator("[data-testid='stLinkButton'] a")
    link.wait_for(timeout=30_000)
    selected = " ".join(page.locator("[data-testid='stAlert']").all_inner_texts())
    href = link.get_attribute("href") or ""
    params = parse_qs(urlsplit(href).query)
    with page.context.expect_page() as opened:
        link.click()
    memory = opened.value
    wait_for_chart(memory)
    sel = Selection(
        gpu_id=params["gpu"][0],
        gpu_count=int(params["gpus"][0]),
        tensor_parallel=int(params["tp"][0]),
        weights=params["weights"][0],
        kv_dtype=params["kv"][0],
        context_tokens=int(params["context"][0]),
        users=40,
    )
    assert sel.gpu.name in selected
    assert _verdict(sel) in _alert_text(memory)
    headline = _alert_text(page)
    assert f"{sel.weights} weights" in headline and sel.gpu.name.split(" (")[0] in headline  # the recommendation


def test_the_advisors_tabs_draw_what_they_hold_when_clicked(page, app_url: str) -> None:
    """The advisor's sections under the answer are lazy tabs: a cold link draws the chart and no table; a click on
    "Ranking table" reruns the page with the table (and no chart), one on "Average or maximum?" with the risk's
    figures; back on "Chart", the chart."""
    page.goto(f"{app_url}/advisor?model=meta-llama%2FLlama-3.1-70B&users=50&context=32768")
    wait_for_chart(page)
    grids = page.locator("[data-testid='stDataFrame']")
    assert grids.count() == 0
    page.get_by_role("tab", name="Ranking table").click()
    grids.first.wait_for(timeout=30_000)
    page.wait_for_function("() => !document.querySelector(\"[data-testid='stVegaLiteChart']\")", timeout=30_000)
    page.get_by_role("tab", name="Average or maximum?").click()
    page.get_by_text("Conversations at 1 % risk").wait_for(timeout=30_000)
    page.get_by_role("tab", name="Chart").click()
    wait_for_chart(page)


def _fresh(browser, url: str):
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(url)
    wait_for_chart(page)
    return page


def _choose(page, label: str, option: str) -> None:
    """Pick ``option`` in the select box labelled ``label`` (Streamlit renders it as an ARIA combobox)."""
    open_setup(page)
    page.get_by_role("combobox", name=label).click()
    page.get_by_role("option", name=option, exact=True).click()


def _gpus(page, count: int) -> None:
    """Type ``count`` in the sidebar's GPUs box (any count up to 64; it was a select box of 1, 2, 4, 8, 16)."""
    open_setup(page)
    box = page.get_by_label("GPUs", exact=True)
    box.fill(str(count))
    box.press("Enter")


def test_the_address_bar_after_a_change_opens_the_same_view(page, browser, app_url: str) -> None:
    """Case 2: set GPUs to 4 in the sidebar; the address bar must describe the plan on the screen."""
    start = "model=meta-llama%2FLlama-3.1-70B&gpus=2&weights=fp8&kv=fp8&context=32768&users=50"
    page.goto(f"{app_url}/?{start}")
    wait_for_chart(page)
    _gpus(page, 4)
    page.wait_for_function("() => new URL(location.href).searchParams.get('gpus') === '4'", timeout=30_000)
    wait_for_chart(page)
    shown = _alert_text(page)
    assert "4 × H100" in shown
    params = parse_qs(urlsplit(page.url).query)
    assert params["tp"] == ["auto"] and params["gpus"] == ["4"], "every setting is in the address bar"
    fresh = _fresh(browser, page.url)
    assert _alert_text(fresh) == shown
    fresh.context.close()


def test_two_gpus_of_a_70b_model_split_with_tp_2(page, app_url: str) -> None:
    """Case 3: choosing 2 GPUs for a 70B model plans TP 2 (the command line's default), not two copies."""
    page.goto(f"{app_url}/?model=meta-llama%2FLlama-3.1-70B&weights=fp8&kv=fp8")
    wait_for_chart(page)
    _gpus(page, 2)
    page.wait_for_function("() => document.body.innerText.includes('TP 2 × PP 1')", timeout=30_000)
    assert "2 × H100" in _alert_text(page)


def test_the_advisors_share_link_reproduces_its_recommendation(page, browser, app_url: str) -> None:
    """Case 1: the advisor's link kept only three settings; opened cold the recommendation changed."""
    query = (
        "model=meta-llama%2FLlama-3.1-70B&users=50&preset=custom&ctx_mean=24000&ctx_p95=32768"
        "&gpu_filter=h100-sxm-80gb&gpu_filter=h200-sxm-141gb&gpu_filter=l40s&gpu_filter=rtx-4090"
    )
    page.goto(f"{app_url}/advisor?{query}")
    wait_for_chart(page)
    recommended = _alert_text(page)
    page.get_by_text("Share and export").click()
    shared = page.locator("[data-testid='stCode'] code").last.inner_text().strip()
    params = parse_qs(urlsplit(shared).query)
    for name, values in parse_qs(query).items():
        assert params.get(name) == values, name
    assert urlsplit(shared).netloc == urlsplit(app_url).netloc, "an absolute link on the address the reader used"
    fresh = _fresh(browser, shared)
    assert _alert_text(fresh) == recommended
    address = _fresh(browser, page.url)  # the address bar opens the same view too
    assert _alert_text(address) == recommended
    fresh.context.close()
    address.context.close()


HEAT_TITLE = "() => document.querySelector(\"[data-testid='stVegaLiteChart'] .role-title-text text\")?.textContent"


def test_compare_charts_take_a_slider_move_in_place(page, app_url: str) -> None:
    """Compare's two Vega-Lite charts (ui/compare_charts.py) keep their drawing when the context slider moves: the
    same SVG elements, with the new context in the title and the planner's new count in the heatmap's cells (a
    Plotly chart was mounted from scratch on every move)."""
    page.goto(f"{app_url}/compare{links.query_string(SHARED)}")
    wait_for_chart(page)
    page.wait_for_function(f"() => ({HEAT_TITLE})() === 'Conversations of 32k tokens'", timeout=30_000)
    charts = "[...document.querySelectorAll(\"[data-testid='stVegaLiteChart'] svg\")]"
    assert page.evaluate(f"() => {charts}.map(svg => (svg.dataset.before = 'yes')).length") == 2
    open_setup(page)
    page.get_by_role("slider", name="Context length (tokens)").focus()
    page.keyboard.press("Home")  # the shortest context
    page.wait_for_function("() => new URL(location.href).searchParams.get('context') !== '32768'", timeout=30_000)
    wait_for_chart(page)
    context = int(parse_qs(urlsplit(page.url).query)["context"][0])
    moved = SHARED.model_copy(update={"context_tokens": context})
    page.wait_for_function(f"(t) => ({HEAT_TITLE})() === t", arg=figures.heat_title(context), timeout=30_000)
    assert page.evaluate(f"() => {charts}.map(svg => svg.dataset.before)") == ["yes", "yes"]
    cells = page.locator("[data-testid='stVegaLiteChart']").first.locator(".role-mark text").all_text_contents()
    assert f"{moved.assessment().conversations:,}" in cells
