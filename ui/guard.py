"""No traceback ever reaches a user: pages run guarded, and every message that may hold user or network text is
shown as text, never as Markdown (a link's name, a Hub error, a pasted log)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import streamlit as st

from planner.bounds.errors import PlannerError

P = ParamSpec("P")
R = TypeVar("R")
log = logging.getLogger("headroom")

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:=&])")


def as_text(text: str) -> str:
    """``text`` escaped so that Streamlit's Markdown shows it literally: no link, image, emphasis, HTML entity,
    icon or colour directive can come out of it.

    >>> as_text("[click](https://evil.example)")
    '\\\\[click\\\\]\\\\(https\\\\://evil\\\\.example\\\\)'
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def guarded(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R | None:
    """Run ``fn``; show a planner error as a message (as text), and any other failure as a short apology."""
    try:
        return fn(*args, **kwargs)
    except PlannerError as exc:
        st.error(as_text(str(exc)), icon=":material/error:")
    except Exception:  # the last line of defence: log for us, a plain sentence for the user
        log.exception("page failed")
        st.error(
            "Something went wrong while drawing this view. The set-up in the sidebar is unchanged; try another "
            "setting or reload the page.",
            icon=":material/error:",
        )
    return None
