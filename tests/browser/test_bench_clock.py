"""``make bench``'s cold-link clock (bench/coldlink) reads when the page drew a mark, not when Playwright next
looked: ``wait_for_selector`` looks again after 0, 20, 50, 100, 100, then every 500 ms, so a mark drawn ~300 ms
into the wait was read up to half a second late."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from bench.coldlink import _observer, cold

# A page that draws its mark 330 ms after its script runs (Playwright's first five looks are over by then) and notes
# when, in its own clock.
LATE_MARK = (
    "<body><script>setTimeout(() => { const mark = document.createElement('p'); mark.id = 'mark';"
    " window.__drawnAt = performance.now(); document.body.appendChild(mark); }, 330);</script></body>"
)
URL = "data:text/html," + quote(LATE_MARK)


def test_a_mark_is_timed_when_the_page_draws_it(browser: Any) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.add_init_script(_observer({"mark": "#mark"}))
        page.goto(URL)
        page.wait_for_function("() => 'mark' in window.__headroomMarks")
        drawn, read = page.evaluate("[window.__drawnAt, window.__headroomMarks.mark]")
    finally:
        context.close()
    assert 330 <= drawn <= read < drawn + 20  # read in the microtask after it was drawn, whatever the load


def test_cold_reads_every_mark_in_order(browser: Any) -> None:
    found = cold(browser, URL, {"body": "body", "mark": "#mark"})
    assert 0 < found["body"] <= found["mark"] and found["mark"] >= 330
