"""Slider to chart: the sidebar's context slider moved on each page with a chart, until the page shows the new run.

Each try opens the page's link in a fresh browser context, waits for its chart, opens the set-up's editor (a cold
link shows its summary, :mod:`ui.setup_summary`), moves the context slider with the keyboard (End or Home,
alternately; each try's link asks for another user count, :func:`fresh_queries`) and times until the server has
finished the run (its ``script_finished`` message, read off the page's websocket), the browser has dropped the
running indicator, the chart is drawn and two animation frames have passed (the new figures are painted).

The run's end is awaited as an event of the page's websocket, not polled: a loop of 2 ms waits made ~500 round
trips a second to Playwright's driver, whose CPU the server's run shared on this two-core machine (the advisor's
slider, same run, 8 tries each: 310 ms polled, 292 ms awaited; the Memory page's 167 / 174 ms, within noise).
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.browser.server import CHART_DRAWN, open_setup, wait_for_chart
from ui import links
from ui.state import Selection

SLIDER = "Context length (tokens)"
# Every page with a chart; the sidebar (and its context slider) is on every page.
PAGES = ("", "what_if", "compare", "advisor")
DRAWN = (
    "() => !document.querySelector(\"[data-testid='stStatusWidget']\")"
    f" && document.querySelector({json.dumps(CHART_DRAWN)})"
)
PAINTED = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"


def finished_run(payload: bytes | str) -> bool:
    """Whether a websocket frame is the server's report of a finished run (Streamlit's ``script_finished``).

    >>> message = ForwardMsg(script_finished=ForwardMsg.FINISHED_SUCCESSFULLY)
    >>> finished_run(message.SerializeToString()), finished_run(b"not a message")
    (True, False)
    """
    message = ForwardMsg()
    try:
        message.ParseFromString(payload if isinstance(payload, bytes) else payload.encode())
    except Exception:  # noqa: BLE001 - a frame that is not a ForwardMsg is not a finished run
        return False
    return message.WhichOneof("type") == "script_finished"


def _sockets(page: Any) -> list[Any]:
    """The websockets ``page`` opens (Streamlit's one, for its session), in order."""
    sockets: list[Any] = []
    page.on("websocket", lambda socket: sockets.append(socket))
    return sockets


def at_rest(page: Any) -> None:
    """Until the page is at rest, as it is when a reader reaches for the slider: no request in flight (opening the
    editor fetches its widgets' scripts) and two frames painted since. Without it the key press lands while the
    browser still lays out the editor just opened, and the time measured is that of both actions (``make bench``
    reports the slider; the cold link is measured on its own)."""
    page.wait_for_load_state("networkidle")
    page.evaluate(PAINTED)


def slider_once(browser: Any, url: str, index: int) -> float:
    """Milliseconds from a slider key press (End on even ``index``, Home on odd) to the updated page, in a fresh
    context, after the set-up's editor is opened (a cold link shows its summary, :mod:`ui.setup_summary`)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    sockets = _sockets(page)
    page.goto(url)
    wait_for_chart(page, 60_000)
    open_setup(page)
    knob = page.get_by_role("slider", name=SLIDER)
    knob.focus()
    at_rest(page)
    start = time.perf_counter()
    try:
        with sockets[-1].expect_event("framereceived", predicate=finished_run, timeout=30_000):
            page.keyboard.press("End" if index % 2 == 0 else "Home")
    except PlaywrightTimeout as exc:
        raise TimeoutError(f"no run finished after the slider moved on {url}") from exc
    page.wait_for_function(DRAWN, timeout=30_000)
    page.evaluate(PAINTED)
    elapsed = (time.perf_counter() - start) * 1000
    context.close()
    return elapsed


def fresh_queries(selection: Selection, tries: int) -> list[str]:
    """One link per try, each with another target user count (one more each time): the pages keep results across
    sessions keyed by every setting (the advisor's ranking, the plans), so without it every press after the first
    End and Home would be served from what an earlier try computed, and the time would not be that of a reader
    moving to a length for the first time.

    >>> [q.split("users=")[1].split("&")[0] for q in fresh_queries(Selection(users=32), 3)]
    ['32', '33', '34']
    """
    return [links.query_string(selection.model_copy(update={"users": selection.users + i})) for i in range(tries)]


def slider_ms(browser: Any, base: str, page: str, selection: Selection, tries: int) -> float:
    """The median milliseconds from a slider key press to the updated page, over ``tries`` fresh contexts."""
    queries = fresh_queries(selection, tries)
    return statistics.median(slider_once(browser, f"{base}/{page}{q}", i) for i, q in enumerate(queries))


def run(browser: Any, base: str, selection: Selection, tries: int) -> dict[str, float]:
    """Slider to chart on every page of :data:`PAGES` (the same set-up's link, :func:`fresh_queries`)."""
    return {
        f"browser: slider change to updated chart, {page or 'memory'}": slider_ms(browser, base, page, selection, tries)
        for page in PAGES
    }
