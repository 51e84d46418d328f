"""What a cold link has on the page when its chart is drawn: DOM nodes, element kinds and the scripts fetched.

``python -m bench.coldlink_dom [--tries N] [COMMIT]``: the floor page (one Vega-Lite chart, :mod:`bench.floor_vega`)
and this tree's Memory page (with ``COMMIT``, that commit's as well), opened cold in turn as
:mod:`bench.coldlink_cpu` opens them; at the moment the chart's mark first matches (the same MutationObserver as
:func:`bench.coldlink.cold`'s marks, so nothing later is counted) it records the document's element count, the
chart's own, the distinct ``data-testid`` values (Streamlit's element kinds and their parts) and the scripts the
page had requested by then (resource timing: each ``.js`` response whose request started before the mark; a
Streamlit element kind whose code is its own chunk shows here). Medians of the counts; the test ids and scripts of
the last open, each page's beside the floor's. It counts, it does not time: the machine's load does not move it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from bench.coldlink import APP, CHART
from bench.coldlink_cpu import run, served_pages
from tests.browser.server import chromium_path

# Records, when the chart's selector first matches, what the page holds (``window.__headroomDom``).
_PROBE = """
(() => { const chart = %(chart)s;
new MutationObserver((_, observer) => { if (!document.querySelector(chart)) return; observer.disconnect();
  const at = performance.now(), box = document.querySelector("[data-testid='stVegaLiteChart']");
  const ids = [...new Set([...document.querySelectorAll('[data-testid]')].map(e => e.dataset.testid))].sort();
  const scripts = performance.getEntriesByType('resource').filter(e => e.name.split('?')[0].endsWith('.js')
    && e.startTime < at).map(e => e.name.split('/').pop().split('.')[0]).sort();
  window.__headroomDom = {at, nodes: document.getElementsByTagName('*').length,
    chart: box ? box.getElementsByTagName('*').length : 0, ids, scripts};
}).observe(document, {subtree: true, childList: true}); })();
"""


def cold_dom(browser: Any, url: str, marks: Mapping[str, str]) -> dict[str, float]:
    """One cold open of ``url`` in a fresh context: the counts at the chart's mark (:data:`_PROBE`), and its test
    ids and script files as ``"id <name>"`` / ``"script <name>"`` keys (each counted once)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.add_init_script(_PROBE % {"chart": json.dumps(CHART)})
    page.goto(url, wait_until="commit")
    page.wait_for_function("() => window.__headroomDom", timeout=60_000)
    found = page.evaluate("() => window.__headroomDom")
    context.close()
    return {
        "count nodes": found["nodes"],
        "count chart nodes": found["chart"],
        "count test ids": len(found["ids"]),
        "count scripts": len(found["scripts"]),
        **{f"id {name}": 1 for name in found["ids"]},
        **{f"script {name}": 1 for name in found["scripts"]},
    }


def main(argv: list[str] | None = None) -> int:
    from bench.__main__ import BROWSER_VIEW
    from ui.links import query_string

    parser = argparse.ArgumentParser(prog="python -m bench.coldlink_dom")
    parser.add_argument("commit", nargs="?", help="another commit's Memory page beside this tree's")
    parser.add_argument("--tries", type=int, default=3, help="cold opens of each page, in turn")
    args = parser.parse_args(argv)
    if chromium_path() is None:
        print("needs Debian's chromium", file=sys.stderr)
        return 1
    query = query_string(BROWSER_VIEW)
    with served_pages(args.commit) as (browser, apps):
        links = {name: (f"{base}/" + ("" if name == "floor" else query), {"app": APP}) for name, base in apps.items()}
        medians = run(browser, links, args.tries, cold_dom)
    rows = sorted({key for found in medians.values() for key in found})
    print("at the chart's mark".ljust(40) + "".join(name.rjust(12) for name in medians))
    for key in rows:
        print(key[:39].ljust(40) + "".join(f"{found.get(key, 0):12.0f}" for found in medians.values()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
