"""The cold link against the floor: one run, alternating tries, each in a fresh browser context (empty cache).

For the Memory page it times the verdict (the first alert) and the chart; for the floor page
(:mod:`bench.floor_page`, one Plotly chart, served the same way) the chart. The ratio of the medians is
Headroom's own cost of a first paint.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping
from typing import Any

from tests.browser.server import ROOT

FLOOR_SCRIPT = ROOT / "bench" / "floor_page.py"
CHART = "[data-testid='stPlotlyChart'] .main-svg"
ALERT = "[data-testid='stAlert']"
RATIO = "browser: cold link ratio, Memory chart / floor chart"
WEIGHT = "browser: page weight of a cold link, {} (MB transferred)"


def cold(browser: Any, url: str, marks: dict[str, str]) -> dict[str, float]:
    """Open ``url`` in a fresh context; milliseconds from navigation until each selector of ``marks`` shows."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    found: dict[str, float] = {}
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    for name, selector in marks.items():
        page.wait_for_selector(selector, timeout=60_000)
        found[name] = (time.perf_counter() - start) * 1000
    context.close()
    return found


def alternating(browser: Any, links: Mapping[str, tuple[str, Mapping[str, str]]], tries: int) -> dict[str, Any]:
    """For each named link (its URL and the marks it is timed to), the milliseconds of ``tries`` cold opens, taken
    in turn (one of each, then again), after one untimed open each: ``{name: {mark: [ms, ...]}}``."""
    for url, marks in links.values():
        cold(browser, url, dict(marks))
    samples: dict[str, dict[str, list[float]]] = {
        name: {mark: [] for mark in marks} for name, (_, marks) in links.items()
    }
    for _ in range(tries):
        for name, (url, marks) in links.items():
            for mark, ms in cold(browser, url, dict(marks)).items():
                samples[name][mark].append(ms)
    return samples


def compare(browser: Any, memory_url: str, floor_url: str, tries: int) -> dict[str, float]:
    """Medians of ``tries`` alternating cold links (floor, Memory, floor, …) after one untimed warm-up each."""
    found = alternating(
        browser,
        {"floor": (floor_url, {"chart": CHART}), "memory": (memory_url, {"verdict": ALERT, "chart": CHART})},
        tries,
    )
    floor, memory = found["floor"]["chart"], found["memory"]
    return {
        "browser: cold link, floor page (one Plotly chart) to chart drawn": statistics.median(floor),
        "browser: cold link, Memory page to verdict shown": statistics.median(memory["verdict"]),
        "browser: cold link, Memory page to chart drawn": statistics.median(memory["chart"]),
        RATIO: statistics.median(memory["chart"]) / statistics.median(floor),
    }


def page_weight(browser: Any, url: str) -> float:
    """Megabytes a fresh browser transfers to show ``url`` (every response's headers and body as sent, so
    compressed when the server compresses), counted until the chart is drawn and the page is idle."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    finished: list[Any] = []
    page.on("requestfinished", lambda request: finished.append(request))
    page.goto(url, wait_until="commit")
    page.wait_for_selector(CHART, timeout=60_000)
    page.wait_for_load_state("networkidle")
    total = 0
    for request in finished:
        sizes = request.sizes()
        total += sizes["responseHeadersSize"] + sizes["responseBodySize"]
    context.close()
    return total / 1e6
