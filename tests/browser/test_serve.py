"""Serving the dashboard to a team: ``make serve``'s settings, and links built on the address the reader used.

The dashboard is served with ``make serve``'s own options (read from the Makefile) on 127.0.0.2, an address a
colleague's browser would use instead of localhost: the share box, the HTML report's link back, the advisor's
"open" links (its CSV included) and the what-if's link all carry 127.0.0.2."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.server import running_app, serve_flags, share_link, wait_for_chart
from tests.ui.views import llama_70b_fp8
from ui import links

VIEW = llama_70b_fp8(40)


def test_make_serve_binds_every_interface_with_production_settings() -> None:
    flags = serve_flags(8501, "0.0.0.0")
    options = dict(zip(flags[::2], flags[1::2], strict=True))
    assert options["--server.address"] == "0.0.0.0"
    assert options["--server.headless"] == "true"
    assert options["--server.enableXsrfProtection"] == "true"
    assert options["--server.maxUploadSize"] == "1"
    assert options["--browser.gatherUsageStats"] == "false"
    assert options["--client.showErrorDetails"] == "none"


@pytest.fixture(scope="module")
def team_url() -> Iterator[str]:
    with running_app(address="127.0.0.2", production=True) as base:
        assert base.startswith("http://127.0.0.2:")
        yield base


def _download(page: Any, label: str) -> str:
    with page.expect_download(timeout=60_000) as download:
        page.get_by_role("button", name=label).click()
    return Path(download.value.path()).read_text(encoding="utf-8")


def test_share_link_and_report_carry_the_readers_address(browser: Any, team_url: str) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    page.goto(f"{team_url}/{links.query_string(VIEW)}")
    wait_for_chart(page)
    link = share_link(page)
    assert link.startswith(f"{team_url}/?model="), link
    report = _download(page, "HTML report")
    assert f"Live view: <a href='{team_url}/?model=" in report
    assert VIEW.assessment().sentence() in report
    rows = list(csv.DictReader(io.StringIO(_download(page, "CSV: breakdown"))))
    assert rows and rows[0]["verdict"] == VIEW.assessment().state.value
    page.goto(f"{team_url}/what_if{links.query_string(VIEW)}")
    wait_for_chart(page)
    assert share_link(page).startswith(f"{team_url}/what_if?model=")
    context.close()


def test_advisor_open_links_carry_the_readers_address(browser: Any, team_url: str) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    page.goto(f"{team_url}/advisor?users=40&preset=support-chat")
    wait_for_chart(page)
    share_link(page)
    ranking = list(csv.DictReader(io.StringIO(_download(page, "CSV: ranking"))))
    assert ranking
    assert all(row["open"].startswith(f"{team_url}/?model=") for row in ranking), ranking[0]["open"]
    context.close()


def test_links_keep_a_proxys_path_prefix(browser: Any) -> None:
    """Behind a reverse proxy under /headroom (``make serve SERVE_OPTIONS="--server.baseUrlPath headroom"``) the
    share box keeps the prefix."""
    with running_app(address="127.0.0.2", production=True, base_path="headroom") as base:
        assert base.endswith("/headroom")
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.goto(f"{base}/what_if{links.query_string(VIEW)}")
        wait_for_chart(page)
        assert share_link(page).startswith(f"{base}/what_if?model=")
        context.close()
