"""No traceback ever reaches a user: pages run guarded, bad link parameters are named, not obeyed."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import streamlit as st

from planner.errors import PlannerError
from ui.common import escape_markdown
from ui.state import ALL_KEYS, EXTRA_KEYS, ignored_parameters

P = ParamSpec("P")
R = TypeVar("R")
log = logging.getLogger("headroom")

INITIAL_KEY = "_initial_query_params"
IGNORED_KEY = "_ignored_query_params"
STREAMLIT_KEYS = frozenset({"embed", "embed_options"})


def guarded(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R | None:
    """Run ``fn``; show a planner error as a message, and any other failure as a short apology."""
    try:
        return fn(*args, **kwargs)
    except PlannerError as exc:
        st.error(str(exc), icon=":material/error:")
    except Exception:  # the last line of defence: log for us, a plain sentence for the user
        log.exception("page failed")
        st.error(
            "Something went wrong while drawing this view. The set-up in the sidebar is unchanged; try another "
            "setting or reload the page.",
            icon=":material/error:",
        )
    return None


def remember_initial_parameters() -> None:
    """Keep the link's parameters as they arrived (bound widgets drop the values they reject)."""
    if INITIAL_KEY not in st.session_state:
        st.session_state[INITIAL_KEY] = {k: st.query_params.get_all(k) for k in st.query_params}
        st.session_state[IGNORED_KEY] = []


def note_ignored_parameters() -> None:
    """Name every link parameter that was unknown or whose value a widget rejected."""
    pending: dict[str, list[str]] = st.session_state.get(INITIAL_KEY, {})
    known = ALL_KEYS | EXTRA_KEYS | STREAMLIT_KEYS
    ready = {k: v for k, v in pending.items() if k not in known or k in st.session_state}
    rendered = {k: st.session_state[k] for k in ready if k in st.session_state}
    ignored: list[str] = st.session_state.setdefault(IGNORED_KEY, [])
    for name in ignored_parameters(ready, rendered, known):
        if name not in ignored:
            ignored.append(name)
    for name in ready:
        pending.pop(name, None)
    if ignored:
        names = ", ".join(f"`{n[:40]}`" if n.isidentifier() else escape_markdown(n[:40]) for n in ignored)
        st.warning(
            f"Some link parameters were ignored and their defaults used instead: {names}.",
            icon=":material/link_off:",
        )
