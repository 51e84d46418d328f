"""Where a piece of Streamlit Markdown would put anchors, and which anchors a page may have (issue 25 finding 2).

:func:`markdown_anchors` models what Streamlit's Markdown (react-markdown with remark-gfm) turns into a link:

- a written link ``[text](url)`` or image ``![alt](url)`` whose ``[`` is not escaped, and ``<scheme:…>``;
- a GFM autolink literal found in the text once escapes are resolved (mdast-util-gfm-autolink-literal, the
  transform the frontend bundle runs: ``/(https?:\\/\\/|www(?=\\.))([-.\\w]+)([^ \\t\\r\\n]*)/gi`` when the
  character before is the start, white space or punctuation, and the domain has two labels, the last two without
  ``_``; and ``/([-.\\w+]+)@([-\\w]+(?:\\.[-\\w]+)+)/`` after the same kind of character). The tokenizer's own
  literals (micromark-extension-gfm-autolink-literal) need the same characters unescaped in the source, so they
  are a subset of these.

The browser test (tests/browser/test_anchors.py) checks the real DOM; this model lets AppTest runs and fuzzing check
every element of a page without a browser.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

_CODE_SPAN = re.compile(r"(?<!\\)(`+)(?:(?!\1).)+?\1", re.DOTALL)
_WRITTEN_LINK = re.compile(r"(?<!\\)\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)")
_ANGLE_LINK = re.compile(r"(?<!\\)<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_WWW_OR_HTTP = re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.IGNORECASE | re.ASCII)
_EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.ASCII)
# The app's own pages and anchors, and what it documents (none of its pages links elsewhere today).
DOCUMENTED_HOSTS: frozenset[str] = frozenset()


def _boundary(text: str, index: int) -> bool:
    """Whether an autolink literal may start at ``index``: at the start, after white space or punctuation/symbol."""
    if index == 0:
        return True
    before = text[index - 1]
    return before.isspace() or unicodedata.category(before)[0] in "PS"


def _domain_ok(domain: str) -> bool:
    labels = domain.split(".")
    if len(labels) < 2:
        return False
    return all(not ("_" in label or not re.search(r"[A-Za-z0-9]", label)) for label in labels[-2:] if label)


def unescape(markdown: str) -> str:
    """The text of ``markdown`` once its backslash escapes are resolved (CommonMark: before ASCII punctuation)."""
    return _ESCAPE.sub(r"\1", markdown)


def markdown_anchors(markdown: str) -> list[str]:
    """The targets of the anchors ``markdown`` renders to (see the module docstring)."""
    found = [m.group(1) for m in _WRITTEN_LINK.finditer(markdown)]
    found += [m.group(1) for m in _ANGLE_LINK.finditer(markdown)]
    text = unescape(_CODE_SPAN.sub(" ", markdown))
    for match in _WWW_OR_HTTP.finditer(text):
        if _boundary(text, match.start()) and _domain_ok(match.group(2)):
            found.append(("http://" if match.group(1).lower().startswith("www") else "") + match.group(0))
    for match in _EMAIL.finditer(text):
        if _boundary(text, match.start()) and not re.search(r"[-\d_]$", match.group(2)):
            found.append("mailto:" + match.group(0))
    return found


def allowed(href: str, base: str = "") -> bool:
    """Whether an anchor may point at ``href``: the app itself (a relative link, a fragment, a query, or ``base``)
    or a documented source."""
    if not href or href.startswith(("/", "?", "#", "./")):
        return not href.startswith("//")
    if base and (href == base or href.startswith(base.rstrip("/") + "/")):
        return True
    parts = urlsplit(href)
    return parts.scheme == "https" and (parts.hostname or "") in DOCUMENTED_HOSTS


def page_markdown(at: Any) -> Iterable[str]:
    """Every piece of Markdown an AppTest run drew: text, headings, captions, alerts, in the page and the sidebar."""
    for kind in ("markdown", "caption", "title", "header", "subheader", "error", "warning", "info", "success"):
        for element in getattr(at, kind):
            yield str(element.value)
    for element in at.expander:
        yield str(element.label)


def foreign_anchors(at: Any) -> list[str]:
    """The anchors of an AppTest run that point anywhere but the app and its documented sources."""
    return [href for text in page_markdown(at) for href in markdown_anchors(text) if not allowed(href)]
