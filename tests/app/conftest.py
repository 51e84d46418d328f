"""AppTest helpers: run a page of the dashboard with URL parameters, without a browser."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

from ui.advisor_settings import TAB_KEY
from ui.common import SHARE_OPEN_KEY
from ui.first_paint import SEEN_KEY
from ui.memory_views import CALIBRATE_OPEN_KEY, COMMANDS_OPEN_KEY, SOURCES_OPEN_KEY
from ui.page_registry import PAGES as REGISTERED_PAGES
from ui.setup_summary import EDITOR_KEY

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGES = {page.path: page.file for page in REGISTERED_PAGES}
# The Memory page's lazy sections' keys (:mod:`ui.memory_views`).
COMMANDS, CALIBRATE, SOURCES = COMMANDS_OPEN_KEY, CALIBRATE_OPEN_KEY, SOURCES_OPEN_KEY


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/app" in str(item.fspath):
            item.add_marker(pytest.mark.apptest)


def run_page(
    page: str,
    params: Mapping[str, str | list[str]] | None = None,
    *,
    editor: bool = False,
    share: bool = False,
    tab: str | None = None,
    open_keys: Iterable[str] = (),
    first_paint: bool = False,
) -> AppTest:
    """A cold link to ``page`` with ``params``, run once: the sidebar shows the set-up's summary
    (:mod:`ui.setup_summary`), or with ``editor`` the full editor, as it is after the reader's first click on the
    summary (or any other change): every test that drives or reads a sidebar widget asks for it. ``share``: the
    "Share and export" popover open (what clicking it sends), so its link and buttons are drawn. ``tab``: the
    advisor's tab open (:data:`ui.advisor_settings.TABS`; the chart's on a cold link). ``open_keys``: each lazy
    section of that key open (what clicking it sends), so its content is drawn (the Memory page's: ``COMMANDS``,
    ``CALIBRATE``, ``SOURCES``). The page is drawn whole, as it is once a browser has drawn the cold link's chart
    (:mod:`ui.first_paint`: the session's first run draws the answer alone); ``first_paint``: that first run."""
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    if not first_paint:
        at.session_state[SEEN_KEY] = True
    if editor:
        at.session_state[EDITOR_KEY] = True
    if share:
        at.session_state[SHARE_OPEN_KEY] = True
    if tab:
        at.session_state[TAB_KEY] = tab
    for key in open_keys:
        at.session_state[key] = True
    if page != "memory":
        at.switch_page(PAGES[page])  # before the first run the page is found by its file name = url_path
    at.run()
    return at


@pytest.fixture
def page_runner() -> Callable[..., AppTest]:
    return run_page


def plain(text: str) -> str:
    """A message as the reader sees it: the Markdown escapes of :func:`ui.guard.as_text` removed."""
    return re.sub(r"\\(.)", r"\1", text)


def texts(elements: Iterable[Any]) -> list[str]:
    """The plain text of alert-like elements (success, warning, error, info, markdown)."""
    return [plain(str(e.value)) for e in elements]


def nearest_link(text: str, change: str) -> dict[str, str]:
    """The URL parameters of the nearest set-up whose line in ``text`` (the page's Markdown) names ``change``."""
    line = next(line for line in text.splitlines() if change in line and "[open](" in line)
    query = re.search(r"\[open\]\((\?[^)]*)\)", line)
    assert query is not None, line
    return {k: v[0] for k, v in parse_qs(urlsplit(query.group(1)).query, keep_blank_values=True).items()}


def vega_rows(chart: Any) -> dict[str, list[dict[str, Any]]]:
    """A Vega-Lite chart's named datasets (its proto's), as the browser receives them: Arrow tables, as rows."""
    return {d.name: pa.ipc.open_stream(d.data.data).read_all().to_pylist() for d in chart.datasets}


FIGURE = re.compile(
    r"<div class='hr-label'>(.*?)<span class='hr-help'.*?</span></span></div><div class='hr-value'>(.*?)</div>"
)


def figures(node: Any) -> list[tuple[str, str]]:
    """The figures a page (or a part of it) shows, as (label, value) in the order drawn: the Memory page's headline
    figures (one HTML element, :func:`ui.tables.figures_html`), then every ``st.metric`` (the deployment section's,
    the other pages')."""
    found = [
        (html.unescape(label), html.unescape(value))
        for element in node.get("html")
        for label, value in FIGURE.findall(element.proto.body)
    ]
    return found + [(m.label, str(m.value)) for m in node.metric]
