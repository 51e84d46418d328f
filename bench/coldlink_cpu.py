"""A cold link's main-thread CPU: what the browser's renderer spends before the chart is drawn, by phase and kind.

The cold-link ratio of ``make bench`` (:mod:`bench.coldlink`) is wall time, which on this two-core machine moves with
the load of whatever else runs: at a load of 5-12 its 95 % interval spans 1.0-1.4x, wider than any one element's
cost. The renderer's main thread is the bottleneck of a cold link (docs/benchmarks.md, "Where a cold link's time
goes"), and its own CPU (the thread time of each top-level task in a Chrome trace, ``tdur``) moves far less with the
load: the floor page's read 300 +- 10 ms across runs at loads 6-12 (2026-12-07, fifty-third session). So this
counts it, from navigation until the chart is drawn (the page's own clock, :func:`bench.coldlink.cold`'s marks), in
three phases:

- *to ws*: until the first websocket message (the page and Streamlit's own scripts: the same on every page);
- *to chart script*: until the chart's script is requested (the elements rendered with and before the chart's);
- *to chart*: until the chart is drawn (its scripts evaluated, the chart drawn, and whatever else runs meanwhile);

and by kind (style, layout, paint, the rest: script). ``python -m bench.coldlink_cpu [--tries N] [COMMIT]``: the
floor page (one Vega-Lite chart, :mod:`bench.floor_vega`) and this tree's Memory page, with ``COMMIT`` that commit's
Memory page as well, in turn, served as ``make serve`` serves them; medians.

``--by-file`` says whose script it is instead: V8's sampling profiler (DevTools' ``Profiler`` domain, a sample
every 200 µs) through the same cold opens, each sample's time counted in the script file of the function it landed
in (Streamlit's chunks by name: ``StreamlitMarkdown``, ``embed`` (Vega), ``react-dom``, ``emotion-styled``, ...;
V8's own ``(program)`` and ``(garbage collector)``), until the chart is drawn. The profiler slows the page (its
totals read ~1.5-2x the trace's), so its figures compare pages and chunks, not milliseconds of a plain open.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from bench.coldlink import ALERT, APP, CHART, FLOOR_VEGA_SCRIPT, _observer
from tests.browser.server import CHROMIUM_ARGS, ROOT, chromium_path, running_app

TASKS = frozenset({"RunTask", "ThreadControllerImpl::RunTask"})  # a top-level task of the thread
KINDS = {
    "UpdateLayoutTree": "style",
    "CommitStyles": "style",
    "Layout": "layout",
    "PrePaint": "paint",
    "Paint": "paint",
    "Layerize": "paint",
    "ParseAuthorStyleSheet": "css parse",
}
PHASES = ("to ws", "to chart script", "to chart")
VIEWPORT = {"width": 1400, "height": 1000}  # the bench's desktop; ``--phone``: 390 x 844
# The first websocket message's time, in the page's clock (Streamlit's socket, wrapped before its first script).
_WS = (
    "(() => { window.__headroomWs = []; const Socket = window.WebSocket;"
    "window.WebSocket = function (...args) { const socket = new Socket(...args);"
    " socket.addEventListener('message', () => window.__headroomWs.push(performance.now())); return socket; };"
    "window.WebSocket.prototype = Socket.prototype; Object.assign(window.WebSocket, Socket); })();"
)
_TIMES = (
    "() => ({marks: window.__headroomMarks, ws: window.__headroomWs[0], script: (performance.getEntriesByType("
    "'resource').find(e => e.name.includes('ArrowVegaLiteChart')) || {}).startTime})"
)


def renderer_main(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], float]:
    """The complete events of the page's renderer main thread, and its navigation start (microseconds)."""
    nav = next(
        e
        for e in events
        if e.get("name") == "navigationStart" and e.get("args", {}).get("data", {}).get("documentLoaderURL")
    )
    pid = nav["pid"]
    threads = {
        e["tid"]
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name" and e["pid"] == pid
        if e["args"]["name"] == "CrRendererMain"
    }
    return [e for e in events if e.get("pid") == pid and e.get("tid") in threads and e.get("ph") == "X"], nav["ts"]


def cpu_split(events: list[dict[str, Any]], start: float, bounds: Mapping[str, float]) -> dict[str, float]:
    """Milliseconds of main-thread CPU from ``start`` (µs) until the last of ``bounds`` (ms after ``start``, in
    :data:`PHASES` order): each phase's (a task counted in the phase it starts in) and each kind's.

    >>> events = [{"name": "RunTask", "ts": 1000, "tdur": 4000}, {"name": "Layout", "ts": 1500, "tdur": 1000},
    ...           {"name": "RunTask", "ts": 6000, "tdur": 2000}, {"name": "RunTask", "ts": 90000, "tdur": 5000}]
    >>> cpu_split(events, 0, {"to ws": 2, "to chart script": 5, "to chart": 10})
    {'kind layout': 1.0, 'kind script': 5.0, 'kind total': 6.0, 'phase to chart': 2.0, 'phase to ws': 4.0}
    """
    end = start + max(bounds.values()) * 1000
    found: Counter[str] = Counter()
    for event in events:
        if not start <= event["ts"] <= end:
            continue
        ms = event.get("tdur", 0) / 1000
        if event["name"] in TASKS:
            at = (event["ts"] - start) / 1000
            found["phase " + next((name for name, bound in bounds.items() if at <= bound), PHASES[-1])] += ms
            found["kind total"] += ms
        elif event["name"] in KINDS:
            found["kind " + KINDS[event["name"]]] += ms
    found["kind script"] = found["kind total"] - sum(
        v for k, v in found.items() if k.startswith("kind ") and k != "kind total"
    )
    return dict(sorted(found.items()))


def cold_cpu(browser: Any, url: str, marks: Mapping[str, str]) -> dict[str, float]:
    """One cold open of ``url`` in a fresh context, traced: the wall times of the phases' ends and the CPU split."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.add_init_script(_observer(marks))
    page.add_init_script(_WS)
    browser.start_tracing(page=page, categories=["devtools.timeline", "blink.user_timing", "toplevel"])
    page.goto(url, wait_until="commit")
    page.wait_for_function(
        "names => names.every(name => name in (window.__headroomMarks || {}))", arg=list(marks), timeout=60_000
    )
    times = page.evaluate(_TIMES)
    events = json.loads(browser.stop_tracing())["traceEvents"]
    context.close()
    bounds = dict(zip(PHASES, (times["ws"], times["script"], times["marks"]["chart"]), strict=True))
    main, start = renderer_main(events)
    return {**{f"wall {name}": ms for name, ms in bounds.items()}, **cpu_split(main, start, bounds)}


def file_times(profile: Mapping[str, Any], until_us: float) -> Counter[str]:
    """Milliseconds of a V8 CPU profile's samples until ``until_us`` (its own clock), each counted in the script
    file of the function it landed in (the file's name without its folder and content hash; V8's own entries, such
    as ``(program)`` and ``(garbage collector)``, by their name); ``(idle)`` left out.

    >>> nodes = [{"id": 1, "callFrame": {"functionName": "r", "url": "http://h/static/js/StreamlitMarkdown.oOG.js"}},
    ...          {"id": 2, "callFrame": {"functionName": "(garbage collector)", "url": ""}},
    ...          {"id": 3, "callFrame": {"functionName": "(idle)", "url": ""}}]
    >>> profile = {"nodes": nodes, "startTime": 0, "samples": [1, 2, 3, 1, 1], "timeDeltas": [500, 500, 500, 500, 500]}
    >>> dict(file_times(profile, 2_000))
    {'StreamlitMarkdown': 1.0, '(garbage collector)': 0.5}
    """
    frames = {node["id"]: node["callFrame"] for node in profile["nodes"]}
    found: Counter[str] = Counter()
    at = profile["startTime"]
    for sample, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        at += delta
        if at > until_us:
            break
        frame = frames[sample]
        name = frame["url"].rsplit("/", 1)[-1].split(".")[0] if frame["url"] else frame["functionName"]
        if name != "(idle)":
            found[name] += delta / 1000
    return found


def cold_profile(browser: Any, url: str, marks: Mapping[str, str]) -> Counter[str]:
    """One cold open of ``url`` in a fresh context under V8's sampling profiler: :func:`file_times` until the chart
    mark (the page's clock read with the profile's end, so the samples after the mark are left out)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.add_init_script(_observer(marks))
    session = context.new_cdp_session(page)
    session.send("Profiler.enable")
    session.send("Profiler.setSamplingInterval", {"interval": 200})
    session.send("Profiler.start")
    page.goto(url, wait_until="commit")
    page.wait_for_function(
        "names => names.every(name => name in (window.__headroomMarks || {}))", arg=list(marks), timeout=60_000
    )
    chart, now = page.evaluate("() => [window.__headroomMarks.chart, performance.now()]")
    profile = session.send("Profiler.stop")["profile"]
    context.close()
    return file_times(profile, profile["endTime"] - (now - chart) * 1000)


def run(
    browser: Any,
    links: Mapping[str, tuple[str, Mapping[str, str]]],
    tries: int,
    opener: Callable[[Any, str, Mapping[str, str]], Mapping[str, float]] = cold_cpu,
) -> dict[str, dict[str, float]]:
    """Medians of ``tries`` cold opens of each link by ``opener`` (traced: :func:`cold_cpu`; profiled:
    :func:`cold_profile`), in turn, after one untimed open each; a figure an open did not have counts 0 in it."""
    for url, marks in links.values():
        opener(browser, url, marks)
    found: dict[str, list[Mapping[str, float]]] = {name: [] for name in links}
    for _ in range(tries):
        for name, (url, marks) in links.items():
            found[name].append(opener(browser, url, marks))
    return {
        name: {key: statistics.median(one.get(key, 0.0) for one in opens) for key in {k for one in opens for k in one}}
        for name, opens in found.items()
    }


def _print(medians: Mapping[str, Mapping[str, float]], by_file: bool) -> None:
    """The medians, one row a figure (by file: the 24 files whose median differs most from the floor's, then all)."""
    rows = sorted({key for found in medians.values() for key in found})
    if by_file:
        floor = medians["floor"]
        gap = {key: max(found.get(key, 0.0) for found in medians.values()) - floor.get(key, 0.0) for key in rows}
        rows = sorted(rows, key=lambda key: -gap[key])[:24]
        medians = {name: {**found, "all": sum(found.values())} for name, found in medians.items()}
        rows.append("all")
    print("median ms".ljust(24) + "".join(name.rjust(14) for name in medians))
    for key in rows:
        print(key[:23].ljust(24) + "".join(f"{found.get(key, 0.0):14.{int(by_file)}f}" for found in medians.values()))


@contextlib.contextmanager
def served_pages(commit: str | None) -> Iterator[tuple[Any, dict[str, str]]]:
    """The floor page (:data:`bench.coldlink.FLOOR_VEGA_SCRIPT`), ``commit``'s Memory page when given and this
    tree's, each served as in production, and a headless chromium: ``(browser, {name: base URL})``, the floor's
    named ``"floor"``, this tree's ``"this tree"``. The bench's cold-link probes (this module,
    :mod:`bench.coldlink_dom`) open them in turn."""
    from playwright.sync_api import sync_playwright

    from bench.before_after import tree

    with contextlib.ExitStack() as stack:
        apps = {"floor": stack.enter_context(running_app(script=FLOOR_VEGA_SCRIPT, production=True))}
        if commit:
            old = Path(stack.enter_context(tree(commit)))
            apps[commit] = stack.enter_context(running_app(script=old / "app.py", production=True))
        apps["this tree"] = stack.enter_context(running_app(script=ROOT / "app.py", production=True))
        playwright = stack.enter_context(sync_playwright())
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            yield browser, apps
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    from bench.__main__ import BROWSER_VIEW
    from ui.links import query_string

    parser = argparse.ArgumentParser(prog="python -m bench.coldlink_cpu")
    parser.add_argument("commit", nargs="?", help="another commit's Memory page beside this tree's")
    parser.add_argument("--tries", type=int, default=9, help="cold opens of each page, in turn")
    parser.add_argument("--by-file", action="store_true", help="V8's profile by script file, not the trace")
    parser.add_argument("--phone", action="store_true", help="a 390 x 844 viewport (the trace only)")
    args = parser.parse_args(argv)
    if args.phone:
        VIEWPORT.update(width=390, height=844)
    if chromium_path() is None:
        print("needs Debian's chromium", file=sys.stderr)
        return 1
    query = query_string(BROWSER_VIEW)
    with served_pages(args.commit) as (browser, apps):
        memory = {"app": APP, "verdict": ALERT, "chart": CHART}
        links = {name: (f"{base}/{query}", memory) for name, base in apps.items() if name != "floor"}
        floor = {"floor": (f"{apps['floor']}/", {"app": APP, "chart": CHART})}
        medians = run(browser, {**floor, **links}, args.tries, cold_profile if args.by_file else cold_cpu)
    _print(medians, args.by_file)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
