"""Streamlit's legacy pages-directory mode, and how the frame leaves it.

Streamlit treats a ``pages/`` folder beside the main script as the old (v1) multipage layout until a script
calls ``st.navigation``. On a server's very first run it therefore either runs ``app.py`` inside a v1 frame
or, for a page URL, runs a file of ``pages/`` directly (each file hands such a run over to the frame). Widget
ids of that v1-framed first run would differ from every later run, so the first interaction of the first
session would lose unbound widget values (the access token, a pasted log). The frame switches the mode off
and restarts that one run before drawing anything: once per server process, on a session's first run only,
so no button click is ever swallowed.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

APP = Path(__file__).resolve().parents[1] / "app.py"


_RESTARTED_KEY = "_left_legacy_pages_mode"


def leave_legacy_pages_mode() -> None:
    """Switch the pages-directory mode off; on a session's first run, start that run again in the new mode."""
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        if not st.session_state.get(_RESTARTED_KEY):
            st.session_state[_RESTARTED_KEY] = True
            st.rerun()


def run_frame() -> None:
    runpy.run_path(str(APP), run_name="__main__")
