"""A cold link's first paint: the answer alone, then the rest of the page once the browser has drawn its chart.

A session's first run of the Memory page draws its title, set-up line, verdict and chart (and the sidebar's
summary, :mod:`ui.setup_summary`), then a signal: a custom component (``st.components.v2``, in the page's own
document, no iframe) whose script waits until the browser has drawn the chart and then asks for a rerun. That
rerun, the session's second, draws the whole page: the headline figures, the breakdown table, the engine's lines,
the nearest set-ups, sources, share and export. Every element the first run sends costs the browser's one main
thread time before the chart's 4.7 MB script is requested and evaluated (``make bench``, the cold link: with the
whole page in the first run the chart came 1.33x the one-chart floor, with the answer alone 1.16x in the same
run; docs/benchmarks.md). Nothing is computed twice: the second run reads the answer the first one made
(:mod:`ui.shared_cache`).

Nothing is lost: the first run writes the address bar and the share link whole, as the whole page does (the
page's own settings included, :func:`ui.frame.page_params`), and draws the result's warnings under the verdict;
the set-up summary stays on the second run (the reader has not touched it), the editor where the reader opened
it; a browser that has not drawn the chart after :data:`GIVE_UP_MS`, or a tab opened in the background, gets the
rest at once; any other run of the session (a widget moved, another page, a first run on another page) draws the
whole page.
"""

from __future__ import annotations

import json

import streamlit as st

from ui.setup_summary import keep_summary

SEEN_KEY = "_answer_drawn"  # the session has run once: every later run draws the whole page (view state)
FIRST_KEY = "_first_run"  # this run is the session's first (set by :func:`begin_run`)
SIGNAL_KEY = "answer_drawn"  # the signal's key (its trigger: "drawn")
MARK = "data-first-paint"  # the signal's element carries it (tests wait for it to go: the page is then whole)
# The Memory chart's drawn marks (ui.memory_chart: Vega-Lite draws SVG marks or a canvas).
CHART = "[data-testid='stVegaLiteChart'] svg .role-mark, [data-testid='stVegaLiteChart'] canvas"
GIVE_UP_MS = 5000  # a browser that has not drawn the chart by then gets the rest of the page anyway

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


def answer_only() -> bool:
    """Whether this run draws the answer alone: the session's first run (a cold link)."""
    return bool(st.session_state.get(FIRST_KEY))


def when_drawn() -> None:
    """Mount the signal that reruns the page once the browser has drawn its chart."""
    _signal(key=SIGNAL_KEY, on_drawn_change=keep_summary)
