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
# GFM autolink literals: remark-gfm, which Streamlit's Markdown uses, links "www." + a domain, "http://" or
# "https://" + a domain, and an e-mail address found in plain text, twice over: in the tokenizer
# (micromark-extension-gfm-autolink-literal) and again in the text after every escape is resolved
# (mdast-util-gfm-autolink-literal's findAndReplace, /(https?:\/\/|www(?=\.))([-.\w]+)…/gi and /…@([-\w]+…)/),
# so escaping the punctuation does not stop the second. A WORD JOINER (U+2060: invisible, no break, not a word
# character) inside each trigger does: after "www" (the dot must follow it), after "http" (the colon or "s:"
# must), after "@" (a domain character must).
_AUTOLINK_TRIGGER = re.compile(r"(?i)(?<=www)(?=\.)|(?<=http)(?=s?:)|(?<=@)")
WORD_JOINER = "\u2060"


def as_text(text: str) -> str:
    """``text`` escaped so that Streamlit's Markdown shows it literally: no link (written or bare: a URL, a
    ``www.`` name, an e-mail address), image, emphasis, HTML entity, icon or colour directive can come out of it.
    It reads the same: the only additions are backslashes Markdown removes and invisible word joiners.

    >>> as_text("[click](https://evil.example)")
    '\\\\[click\\\\]\\\\(http\u2060s\\\\://evil\\\\.example\\\\)'
    >>> as_text("www.example-login.test").replace(WORD_JOINER, "|")
    'www|\\\\.example\\\\-login\\\\.test'
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", _AUTOLINK_TRIGGER.sub(WORD_JOINER, text))


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
