"""``python -m bench.coldlink_dom`` counts what a cold link holds when its chart is drawn: the elements, element
kinds (test ids) and scripts present at the chart's mark, and nothing added or requested after it."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from bench.coldlink_dom import cold_dom

# A script fetched, then a stand-in chart (the selector's `svg .role-mark`) beside a text, then ten more elements of
# another kind and a second script: only the first three count.
PAGE = (
    "<body><script>fetch('%s/early.js', {mode: 'no-cors'}).catch(() => 0).finally(() => {"
    " const text = document.createElement('div'); text.dataset.testid = 'stMarkdown'; document.body.appendChild(text);"
    " const chart = document.createElement('div'); chart.dataset.testid = 'stVegaLiteChart';"
    " chart.innerHTML = '<svg><g class=\"role-mark\"></g></svg>'; document.body.appendChild(chart);"
    " setTimeout(() => { for (let i = 0; i < 10; i++) { const late = document.createElement('p');"
    " late.dataset.testid = 'late'; document.body.appendChild(late); }"
    " fetch('%s/late.js', {mode: 'no-cors'}).catch(() => 0); }, 0); });</script></body>"
)


def test_it_counts_what_is_there_at_the_chart_and_nothing_after(browser: Any, app_url: str) -> None:
    found = cold_dom(browser, "data:text/html," + quote(PAGE % (app_url, app_url)), {})
    # html, head, body, the page's script, the text, the chart's div, svg and g
    assert found["count nodes"] == 8
    assert found["count chart nodes"] == 2
    assert {key for key in found if key.startswith(("id ", "script "))} == {
        "id stMarkdown",
        "id stVegaLiteChart",
        "script early",
    }
    assert found["count test ids"] == 2 and found["count scripts"] == 1
