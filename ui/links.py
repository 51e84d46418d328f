"""Shareable links: the query string that reproduces a view, and the absolute address to share (pure).

The parameters come from the declarations of :mod:`ui.settings` (every setting, explicitly); a link is built
on the address the reader used (``st.context.url``), so a colleague's browser opens the same host.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from ui import settings
from ui.page_registry import PAGE_PATHS
from ui.state import Selection


def selection_params(sel: Selection) -> dict[str, str | list[str]]:
    """Every shared setting as URL parameters (explicit, so a link survives changed defaults)."""
    return settings.params_of(settings.SIDEBAR_SETTINGS, sel.url_values())


def page_params(page: str, values: Mapping[str, Any]) -> dict[str, str | list[str]]:
    """A page's own settings (``values`` by URL name) as URL parameters."""
    return settings.params_of(settings.page_settings(page), values)


def query_string(
    sel: Selection, extra: Mapping[str, str | Sequence[str]] | None = None, **changes: str | Sequence[str]
) -> str:
    """``?model=…&gpu=…``: the selection, then page settings in ``extra``, then ``changes`` on top."""
    params: dict[str, str | Sequence[str]] = {**selection_params(sel), **(extra or {}), **changes}
    return "?" + urlencode(params, doseq=True)


def share_url(base_url: str | None, page_path: str, query: str) -> str:
    """An absolute link to ``page_path`` with ``query`` on the address the reader used (``st.context.url``: the
    page in the browser, without its query; the page's own path is dropped, a reverse proxy's path prefix kept);
    relative without one.

    >>> share_url("https://tools.example/headroom/advisor", "what_if", "?users=50")
    'https://tools.example/headroom/what_if?users=50'
    >>> share_url("http://127.0.0.2:8501/", "", "?users=50")
    'http://127.0.0.2:8501/?users=50'
    """
    if not base_url:
        return f"/{page_path}{query}"
    parts = urlsplit(base_url)
    prefix, _, last = parts.path.rstrip("/").rpartition("/")
    app = prefix if last in PAGE_PATHS else parts.path.rstrip("/")
    path = f"{app}/{page_path}"
    return urlunsplit((parts.scheme, parts.netloc, path, query.lstrip("?"), ""))
