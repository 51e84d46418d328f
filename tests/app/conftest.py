"""AppTest helpers: run a page of the dashboard with URL parameters, without a browser."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGES = {
    "memory": "pages/memory.py",
    "what_if": "pages/what_if.py",
    "compare": "pages/compare.py",
    "catalog": "pages/catalog.py",
    "custom": "pages/custom.py",
    "advisor": "pages/advisor.py",
}


def run_page(page: str, params: Mapping[str, str | list[str]] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    if page != "memory":
        at.switch_page(PAGES[page])  # before the first run the page is found by its file name = url_path
    at.run()
    # AppTest puts Streamlit back into its legacy pages-directory mode before every run (see ui/frame.py), so
    # widget ids of the first run differ from later ones; a second run settles them, as on a real server.
    at.run()
    return at


@pytest.fixture
def page_runner():
    return run_page
