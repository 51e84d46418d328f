"""Same-run before/after: this tree against another commit's, both served as ``make serve`` serves them, timed in
turn in one browser (the load of the machine then weighs on both alike).

- the cold link (:mod:`bench.coldlink`): the floor page, the other commit's Memory page and this tree's, one fresh
  context each, in turn; the ratio of each Memory page's median chart time to the floor's;
- slider to chart (:mod:`bench.slider`) on every page with a chart, the two trees in turn;
- the page weight of a cold link on each.

``python -m bench.before_after COMMIT [--tries N] [--slider-tries N]``; ``make bench`` reports the figures of this
tree alone. The other commit is extracted with ``git archive`` into a temporary folder.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench import slider
from bench.coldlink import ALERT, CHART, FLOOR_VEGA_SCRIPT, alternating, page_weight
from tests.browser.server import CHROMIUM_ARGS, ROOT, chromium_path, running_app
from ui.state import Selection


@contextlib.contextmanager
def tree(commit: str) -> Iterator[Path]:
    """``commit``'s files in a temporary folder (its ``app.py`` is served from there; the folder of the script
    comes first on the server's import path)."""
    with tempfile.TemporaryDirectory(prefix="headroom-before-") as folder:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        yield Path(folder)


def cold_links(browser: Any, urls: dict[str, str], floor: str, tries: int) -> dict[str, float]:
    """Cold-link medians of each named Memory link and of the floor page (one Vega-Lite chart, the Memory chart's
    library), taken in turn, with their ratios."""
    links = {"floor": (floor, {"chart": CHART})}
    links.update({name: (url, {"verdict": ALERT, "chart": CHART}) for name, url in urls.items()})
    found = alternating(browser, links, tries)
    floor_ms = statistics.median(found["floor"]["chart"])
    rows = {"cold link, floor page to chart (ms)": floor_ms}
    for name in urls:
        chart = statistics.median(found[name]["chart"])
        rows[f"cold link, {name}: verdict (ms)"] = statistics.median(found[name]["verdict"])
        rows[f"cold link, {name}: chart (ms)"] = chart
        rows[f"cold link, {name}: chart / floor chart"] = chart / floor_ms
    return rows


def sliders(browser: Any, bases: dict[str, str], selection: Selection, tries: int) -> dict[str, float]:
    """Slider to chart on every page of :data:`bench.slider.PAGES`, the trees in turn, medians (each try on its
    own link: :func:`bench.slider.fresh_queries`)."""
    rows = {}
    queries = slider.fresh_queries(selection, tries)
    for page in slider.PAGES:
        samples: dict[str, list[float]] = {name: [] for name in bases}
        for index, query in enumerate(queries):
            for name, base in bases.items():
                samples[name].append(slider.slider_once(browser, f"{base}/{page}{query}", index))
        for name, values in samples.items():
            rows[f"slider to chart, {page or 'memory'}, {name} (ms)"] = statistics.median(values)
    return rows


def run(commit: str, tries: int, slider_tries: int) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    from bench.__main__ import BROWSER_VIEW
    from ui import links

    query = links.query_string(BROWSER_VIEW)
    with (
        tree(commit) as before,
        running_app(script=before / "app.py", production=True) as old,
        running_app(production=True) as new,
        running_app(script=FLOOR_VEGA_SCRIPT, production=True) as floor,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        named = {f"before ({commit})": old, "after (this tree)": new}
        rows = cold_links(browser, {name: f"{base}/{query}" for name, base in named.items()}, f"{floor}/", tries)
        for name, base in named.items():
            rows[f"page weight of a cold link, {name} (MB)"] = page_weight(browser, f"{base}/{query}")
        if slider_tries:
            rows.update(sliders(browser, named, BROWSER_VIEW, slider_tries))
        browser.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.before_after")
    parser.add_argument("commit", help="the commit to compare with (e.g. main)")
    parser.add_argument("--tries", type=int, default=9, help="cold links of each, in turn")
    parser.add_argument("--slider-tries", type=int, default=5, help="slider moves per page and tree, in turn")
    parser.add_argument("--no-slider", action="store_true")
    args = parser.parse_args(argv)
    if chromium_path() is None:
        print("needs Debian's chromium", file=sys.stderr)
        return 1
    rows = run(args.commit, args.tries, 0 if args.no_slider else args.slider_tries)
    width = max(len(k) for k in rows)
    for name, value in rows.items():
        print(f"{name.ljust(width)}  {value:10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
