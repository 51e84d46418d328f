"""The cold link against the floor: one run, alternating tries, each in a fresh browser context (empty cache).

For the Memory page it times the verdict (the first alert) and the chart; for the floor pages, the smallest
Streamlit pages that draw one chart, served the same way, the chart: :mod:`bench.floor_vega` (one Vega-Lite chart,
the library the Memory page draws) and :mod:`bench.floor_page` (one Plotly chart, the floor before the Memory chart
moved to Vega-Lite). The ratio of the medians, the Memory page against the floor of its own chart library, is
Headroom's own cost of a first paint; the ratio to the Plotly floor is reported beside it.
"""

from __future__ import annotations

import json
import random
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from tests.browser.server import CHART_DRAWN, ROOT

FLOOR_SCRIPT = ROOT / "bench" / "floor_page.py"  # one Plotly chart
FLOOR_VEGA_SCRIPT = ROOT / "bench" / "floor_vega.py"  # one Vega-Lite chart
CHART = CHART_DRAWN  # a Plotly or a Vega-Lite chart drawn
ALERT = "[data-testid='stAlert']"
# Each mark is read in the page's own clock: a MutationObserver, installed before the page's first script, records
# when the mark's selector first matches (``performance.now()``: milliseconds from navigation start). Until
# 2026-12-04 (twenty-seventh session) the bench timed marks from Python with Playwright's ``wait_for_selector``, which
# looks again after 0, 20, 50, 100, 100, then every 500 ms (``retryWithProgressAndBackoff`` in Playwright's
# coreBundle.js): a mark drawn ~300 ms into the wait was read up to half a second late, which is why the two clocks
# disagreed by 20-280 ms (docs/benchmarks.md, "Two clocks") and the verdict read later than it was drawn.
APP = "[data-testid='stApp']"
RATIO = "browser: cold link ratio, Memory chart / floor chart (one Vega-Lite chart)"
RATIO_LOW = RATIO + ", 95 % interval low"
RATIO_HIGH = RATIO + ", 95 % interval high"
PLOTLY_RATIO = "browser: cold link ratio, Memory chart / Plotly floor chart"
WEIGHT = "browser: page weight of a cold link, {} (MB transferred)"


def _observer(marks: Mapping[str, str]) -> str:
    """The init script that records when each mark's selector first matches (``window.__headroomMarks``)."""
    return (
        "(() => { window.__headroomMarks = {};"
        f"const marks = {json.dumps(dict(marks))};"
        "const look = () => { for (const [name, selector] of Object.entries(marks)) {"
        " if (!(name in window.__headroomMarks) && document.querySelector(selector))"
        " window.__headroomMarks[name] = performance.now(); } };"
        "new MutationObserver(look).observe(document, {subtree: true, childList: true}); })();"
    )


def cold(browser: Any, url: str, marks: dict[str, str]) -> dict[str, float]:
    """Open ``url`` in a fresh context; milliseconds from navigation start until each selector of ``marks`` first
    matched, in the page's own clock (see :data:`APP`'s comment)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.add_init_script(_observer(marks))
    page.goto(url, wait_until="commit")
    names = list(marks)
    page.wait_for_function(
        "names => names.every(name => name in (window.__headroomMarks || {}))", arg=names, timeout=60_000
    )
    found: list[float] = page.evaluate("names => names.map(name => window.__headroomMarks[name])", names)
    context.close()
    return dict(zip(names, found, strict=True))


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


def ratio_interval(
    numerator: Sequence[float], denominator: Sequence[float], draws: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """The 95 % bootstrap interval of ``median(numerator) / median(denominator)``: each page's tries resampled with
    replacement ``draws`` times, the 2.5th and 97.5th percentiles of the ratios (a seeded generator, so the same
    tries give the same interval). One run's median of 7 tries moves about +-0.08 from run to run on this machine;
    the interval says how far this run's ratio can be trusted.

    >>> ratio_interval([10.0] * 5, [10.0] * 5)
    (1.0, 1.0)
    >>> low, high = ratio_interval([11.0, 12.0, 13.0, 14.0, 15.0], [10.0, 10.5, 11.0, 11.5, 12.0])
    >>> low < statistics.median([11.0, 12.0, 13.0, 14.0, 15.0]) / 11.0 < high
    True
    """
    rng = random.Random(seed)
    ratios = sorted(
        statistics.median(rng.choices(numerator, k=len(numerator)))
        / statistics.median(rng.choices(denominator, k=len(denominator)))
        for _ in range(draws)
    )
    return ratios[int(0.025 * (draws - 1))], ratios[int(0.975 * (draws - 1))]


def compare(browser: Any, memory_url: str, floor_url: str, plotly_floor_url: str, tries: int) -> dict[str, float]:
    """Medians of ``tries`` alternating cold links (the Vega-Lite floor, the Plotly floor, Memory, …) after one
    untimed warm-up each."""
    found = alternating(
        browser,
        {
            "floor": (floor_url, {"app": APP, "chart": CHART}),
            "plotly floor": (plotly_floor_url, {"app": APP, "chart": CHART}),
            "memory": (memory_url, {"app": APP, "verdict": ALERT, "chart": CHART}),
        },
        tries,
    )
    floor, plotly, memory = found["floor"]["chart"], found["plotly floor"]["chart"], found["memory"]
    return {
        "browser: cold link, floor page (one Vega-Lite chart) to chart drawn": statistics.median(floor),
        "browser: cold link, floor page (one Plotly chart) to chart drawn": statistics.median(plotly),
        "browser: cold link, Memory page to verdict shown": statistics.median(memory["verdict"]),
        "browser: cold link, Memory page to chart drawn": statistics.median(memory["chart"]),
        RATIO: statistics.median(memory["chart"]) / statistics.median(floor),
        **dict(zip((RATIO_LOW, RATIO_HIGH), ratio_interval(memory["chart"], floor), strict=True)),
        PLOTLY_RATIO: statistics.median(memory["chart"]) / statistics.median(plotly),
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
