"""Headroom: the frame. Page config, the shared set-up in the sidebar, and the navigation.

Pages are the files of ``pages/``, listed once in :data:`ui.page_registry.PAGES` and registered with ``st.Page``
(Streamlit's own multipage pattern); each
page file draws itself with the :class:`ui.state.Selection` the sidebar built in this run
(:func:`ui.frame.run_page`). Every run reads the link on a session's first run and writes the address bar at
its end (:mod:`ui.binding`).
"""

from importlib import import_module
from pathlib import Path

import streamlit as st

from ui import first_paint, frame
from ui.deferred import Deferred
from ui.guard import guarded
from ui.page_registry import PAGES, plans_hardware
from ui.sidebar import render_sidebar

# pandas before any page draws: plotly looks it up in sys.modules without importing it (optional_imports, should_load
# =False), so while one session's thread was still initialising pandas another session's chart saw a partial module
# ("partially initialized module 'pandas' has no attribute 'Series'"; found by the load test, bench/load.py). An
# import here makes every run wait for the whole module.
import_module("pandas")
# The favicon is a local SVG (sent inline as a data: URI): a ":material/…:" page icon makes every browser fetch
# it from fonts.gstatic.com, which leaks each visit and fails offline. Everything else is served by the app.
FAVICON = str(Path(__file__).resolve().parent / "ui" / "static" / "favicon.svg")
frame.leave_legacy_pages_mode()  # before anything is drawn (see its docstring)
# A cold link to the Memory page opens with the sidebar collapsed and draws nothing in it on its first run
# (ui.first_paint.sidebar_state): its first paint is the answer alone, at the width it keeps.
st.set_page_config(
    page_title="Headroom — LLM serving memory",
    page_icon=FAVICON,
    layout="wide",
    initial_sidebar_state=first_paint.sidebar_state(),
)
frame.begin()
notes = st.container()
navigation = st.navigation(
    [
        st.Page(page.file, title=page.title, icon=page.icon, url_path=page.path, default=index == 0)
        for index, page in enumerate(PAGES)
    ],
    position="hidden" if first_paint.sidebar_put_off() else "sidebar",
)
sidebar = Deferred(lambda: st.sidebar)
hardware = plans_hardware(navigation.url_path)  # the advisor plans every set-up under its own (ui.page_registry)
with frame.run_budget():  # the sidebar and the page share one wall-clock budget per run
    selection = guarded(render_sidebar, sidebar, hardware)
    first_paint.open_for_alerts(sidebar)
    frame.publish(selection)
    # the answer first, the set-up after it: on a cold link its summary, the full editor one click away
    with frame.drawn_after(first_paint.sidebar_drawn(sidebar, selection, hardware)):
        navigation.run()
    first_paint.summary_in_main(selection, hardware)
frame.finish(notes)
first_paint.rerun_unless_signalled()
