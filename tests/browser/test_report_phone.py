"""The HTML report's headline figures fit their boxes on a phone (review57): at 390 and 360 px the advisor report's
"117 conversations of 32,768 tokens" and "30 with 50 conversations at once" (gpt-oss-120b, 50 users at 32k) ran past
their boxes' borders, 182 px of text in 179 and 164 (`ui/report.py`'s figure values at 1.35rem on every screen)."""

from __future__ import annotations

import pytest

from model_catalog import get_model
from planner.advisor import Workload, rank
from ui.advisor_report import advisor_report_html

OVERFLOWING = """() => [...document.querySelectorAll('.figure')]
    .filter(e => e.scrollWidth > e.clientWidth).map(e => e.innerText.replace(/\\n/g, ' | '))"""


@pytest.mark.parametrize("width", [390, 360])
def test_the_reports_figures_fit_a_phone(browser, width: int) -> None:
    ranking = rank(get_model("openai/gpt-oss-120b").spec, Workload.fixed_length(32_768, concurrent_conversations=50))
    html = advisor_report_html(ranking, "openai/gpt-oss-120b", "https://example.test/advisor", {})
    assert "117 conversations of 32,768 tokens" in html
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        page.set_content(html)
        assert page.evaluate(OVERFLOWING) == []
    finally:
        context.close()
