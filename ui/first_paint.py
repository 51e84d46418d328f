"""A cold link's first paint: the answer alone, then the rest of the page once the browser has drawn its chart.

A session's first run of the Memory page draws its title, set-up line, verdict and chart, then a signal: a custom
component (``st.components.v2``, in the page's own document, no iframe) whose script waits until the browser has drawn
the chart and then asks for a rerun. That rerun, the session's second, draws the whole page: the headline figures, the
breakdown table, the engine's lines, the nearest set-ups, sources, share and export. Every element the first run sends
costs the browser's one main thread time before the chart's 4.7 MB script is requested and evaluated (``make bench``,
the cold link: with the whole page in the first run the chart came 1.33x the one-chart floor, with the answer alone
1.16x in the same run; docs/benchmarks.md). Nothing is computed twice: the second run reads the answer the first one
made (:mod:`ui.shared_cache`).

When that first run's URL carries settings (a shared or deep link), the session opens with its sidebar collapsed
and the first run draws nothing in it, not even the navigation (:func:`sidebar_state`, :func:`sidebar_put_off`):
the sidebar's panel costs the browser's main thread ~30-40 ms before the chart, and collapsed its arrival in the
signal's rerun (the navigation, the editor) changes no width on screen; that rerun draws the set-up's summary at the
main column's end, whose expander opens the sidebar on the editor. Main-thread CPU to the chart, the floor page /
before / after (``python -m bench.coldlink_cpu``, 15 alternating opens): 302 / 409 / 380 ms (docs/benchmarks.md).

Nothing is lost: the first run writes the address bar and the share link whole, as the whole page does (the
page's own settings included, :func:`ui.frame.page_params`), and draws the result's warnings under the verdict;
the set-up summary stays on the second run (the reader has not touched it), the editor where the reader opened
it; a browser that has not drawn the chart after :data:`GIVE_UP_MS`, or a tab opened in the background, gets the
rest at once; any other run of the session (a widget moved, another page, a first run on another page) draws the
whole page.
"""

from __future__ import annotations

import json
from typing import Literal

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
from streamlit.util import calc_hash

from ui import setup_summary
from ui.deferred import Deferred
from ui.page_registry import MEMORY, PAGE_PATHS
from ui.settings import BY_URL
from ui.setup_summary import keep_summary
from ui.state import Selection

SEEN_KEY = "_answer_drawn"  # the session has run once: every later run draws the whole page (view state)
FIRST_KEY = "_first_run"  # this run is the session's first (set by :func:`begin_run`)
SIGNAL_KEY = "answer_drawn"  # the signal's key (its trigger: "drawn")
MARK = "data-first-paint"  # the signal's element carries it (tests wait for it to go: the page is then whole)
# The Memory chart's drawn marks (ui.memory_chart: Vega-Lite draws SVG marks or a canvas).
CHART = "[data-testid='stVegaLiteChart'] svg .role-mark, [data-testid='stVegaLiteChart'] canvas"
GIVE_UP_MS = 5000  # a browser that has not drawn the chart by then gets the rest of the page anyway
SIDEBAR_KEY = "_sidebar_state"  # the session's sidebar: "collapsed" (a cold link), "expanded" or "auto" (view state)
SIGNALLED_KEY = "_signal_mounted"  # this run mounted the signal (the rerun that draws the rest will come)
SidebarState = Literal["collapsed", "expanded"]

# Looks for the drawn chart once per animation frame (a query a frame; an observer of every DOM change would run
# on each of the thousands of mutations the chart and React make while the page is busy), then asks for the rerun
# on the next frame, so the chart is painted before the rest of the page arrives. A hidden tab (a link opened in
# the background) paints nothing and runs no animation frame: it asks at once, and a timer gives up waiting.
_SCRIPT = """
export default function (component) {
  const { setTriggerValue } = component;
  const chart = %(chart)s;
  let done = false, frame = 0;
  const ask = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    setTriggerValue("drawn", true);
  };
  const look = () => {
    if (done) return;
    if (document.visibilityState === "hidden") return ask();
    frame = requestAnimationFrame(document.querySelector(chart) ? ask : look);
  };
  const timer = setTimeout(ask, %(give_up)d);
  look();
  return () => { done = true; clearTimeout(timer); cancelAnimationFrame(frame); };
}
"""

_signal = st.components.v2.component(
    "headroom_answer_drawn",
    html=f"<span {MARK}></span>",
    js=_SCRIPT % {"chart": json.dumps(CHART), "give_up": GIVE_UP_MS},
    isolate_styles=False,  # in the page's own DOM, where the tests find its mark
)


def begin_run() -> None:
    """Note whether this run is the session's first (called at every run's start, :func:`ui.frame.begin`)."""
    st.session_state[FIRST_KEY] = not st.session_state.get(SEEN_KEY)
    st.session_state[SEEN_KEY] = True
    st.session_state[SIGNALLED_KEY] = False


def answer_only() -> bool:
    """Whether this run draws the answer alone: the session's first run (a cold link)."""
    return bool(st.session_state.get(FIRST_KEY))


def when_drawn() -> None:
    """Mount the signal that reruns the page once the browser has drawn its chart."""
    st.session_state[SIGNALLED_KEY] = True
    _signal(key=SIGNAL_KEY, on_drawn_change=keep_summary)


def _memory_requested() -> bool:
    """Whether this run's URL asks for the Memory page (the landing page: a bare path, its own, or one no page has),
    read as Streamlit 1.67 resolves it (``runtime/pages_manager.py``, ``_resolve_page_script``: the page whose hash,
    ``calc_hash`` of its URL path, the browser sent, else the one its path names, else the default; a name no page
    has runs the default page, ``commands/navigation.py:543-563``)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return False
    others = [path for path in PAGE_PATHS if path != MEMORY]
    if ctx.pages_manager.intended_page_script_hash:
        return ctx.pages_manager.intended_page_script_hash not in {calc_hash(path) for path in others}
    return ctx.pages_manager.intended_page_name not in others


def sidebar_state() -> SidebarState | None:
    """The sidebar's initial state for ``st.set_page_config``, decided from the URL alone before any element is
    drawn, once per session: collapsed when the session's first run is a link to the Memory page that carries
    settings (a shared or deep link: its first paint draws no sidebar, :func:`sidebar_put_off`), else Streamlit's
    default (None: ``auto``). Every run sends the same state: Streamlit 1.67 recomputes the sidebar's state when the
    page config's changes (``AppView``), so a collapsed session stays collapsed unless the reader opens the set-up
    from the main column's summary (:data:`ui.setup_summary.OPEN_KEY`) or the set-up has an alert to show
    (:func:`open_for_alerts`), either of which opens it."""
    state: str | None = st.session_state.get(SIDEBAR_KEY)
    if state is None:
        cold = not st.session_state.get(SEEN_KEY) and any(name in BY_URL for name in st.query_params)
        state = "collapsed" if cold and _memory_requested() else "auto"
    if state == "collapsed" and st.session_state.get(setup_summary.OPEN_KEY):
        state = "expanded"
    st.session_state[SIDEBAR_KEY] = state
    return "collapsed" if state == "collapsed" else "expanded" if state == "expanded" else None


def sidebar_put_off() -> bool:
    """Whether this run draws nothing in the sidebar (no navigation, no set-up): a collapsed session's first run.
    The sidebar costs a cold link ~30-40 ms of the browser's main thread before the chart (docs/benchmarks.md);
    collapsed, its arrival in the next run changes no width on screen."""
    return answer_only() and st.session_state.get(SIDEBAR_KEY) == "collapsed"


def open_for_alerts(editor: Deferred) -> None:
    """A collapsed session whose set-up has something to say (an import, a replaced value: an alert) opens its
    sidebar, the editor drawn at once (:func:`ui.setup_summary.shown`)."""
    if sidebar_put_off() and editor.alerts():
        st.session_state[SIDEBAR_KEY] = "expanded"
        st.set_page_config(initial_sidebar_state="expanded")


def sidebar_drawn(editor: Deferred, sel: Selection | None, hardware: bool) -> Deferred:
    """What the sidebar draws after the page this run: nothing on a collapsed session's first run (the editor in
    the next, :func:`ui.setup_summary.keep_summary`), otherwise what :func:`ui.setup_summary.shown` says."""
    if sidebar_put_off():
        st.session_state[setup_summary.EDITOR_KEY] = True
        st.session_state[setup_summary.SHOWN_KEY] = False
        return Deferred(lambda: st.sidebar)
    return setup_summary.shown(editor, sel, hardware)


def summary_in_main(sel: Selection | None, hardware: bool) -> None:
    """The set-up in words at the main column's end while the session's sidebar is collapsed (after its first run),
    with the expander that opens the sidebar's editor (:func:`sidebar_state`)."""
    if sel is not None and not answer_only() and st.session_state.get(SIDEBAR_KEY) == "collapsed":
        setup_summary.summary(sel, hardware, Deferred(lambda: st)).draw()


def rerun_unless_signalled() -> None:
    """A collapsed session's first run that mounted no signal (a refusal, an error: no chart to wait for) reruns at
    once, so its navigation and set-up are drawn."""
    if sidebar_put_off() and not st.session_state.get(SIGNALLED_KEY):
        st.rerun()
