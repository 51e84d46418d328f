"""Which page a session's first run asks for (ui.first_paint._memory_requested), read as Streamlit 1.67 resolves it:
the page whose hash the browser sent, else the page whose URL path it names, else the default page, the Memory page
(``runtime/pages_manager.py`` ``_resolve_page_script``; a name no page has is "page not found" and the default page
runs, ``commands/navigation.py:543-563``). A path no page has therefore opens the Memory page and is a link to it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from streamlit.util import calc_hash

from ui import first_paint


def _intent(monkeypatch: pytest.MonkeyPatch, page_hash: str, name: str | None) -> None:
    manager = SimpleNamespace(intended_page_script_hash=page_hash, intended_page_name=name)
    monkeypatch.setattr(first_paint, "get_script_run_ctx", lambda **_: SimpleNamespace(pages_manager=manager))


@pytest.mark.parametrize(
    ("name", "memory"),
    [("", True), (None, True), ("memory", True), ("no_such_page", True), ("what_if", False), ("advisor", False)],
)
def test_a_url_path_names_the_page(monkeypatch: pytest.MonkeyPatch, name: str | None, memory: bool) -> None:
    _intent(monkeypatch, "", name)
    assert first_paint._memory_requested() is memory


@pytest.mark.parametrize(("path", "memory"), [("what_if", False), ("catalog", False), ("no_such_page", True)])
def test_a_page_hash_names_the_page(monkeypatch: pytest.MonkeyPatch, path: str, memory: bool) -> None:
    _intent(monkeypatch, calc_hash(path), None)
    assert first_paint._memory_requested() is memory
