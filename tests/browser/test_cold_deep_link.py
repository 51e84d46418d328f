"""A deep link opened first on a fresh server draws its page inside the frame, however the server was started.

Streamlit decides on a server's first session whether a ``pages/`` folder beside ``app.py`` makes it a legacy
multipage app (``PagesManager.uses_pages_directory``); then the first run executes the linked page file alone,
without the sidebar and with file-name navigation (a blank page for ``/compare``).
:func:`ui.frame.leave_legacy_pages_mode` leaves that mode before anything is drawn. Each case starts its own
server and opens the deep link before any other page.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from tests.browser.server import (
    free_port,
    make_command,
    running_server,
    setup_visible,
    streamlit_command,
    wait_for_chart,
)
from ui.page_registry import PAGES, page

LAUNCHES: dict[str, Callable[[int], list[str]]] = {
    "make run": lambda port: make_command("run", port),
    "make serve": lambda port: make_command("serve", port),
    "streamlit run app.py": lambda port: [sys.executable, "-m", "streamlit", "run", *streamlit_command(port)[4:]],
}
DEEP = {"compare": "Precisions compared", "what_if": "How long can conversations get?"}  # each page's title


@pytest.mark.parametrize("launch", sorted(LAUNCHES))
def test_a_cold_deep_link_draws_its_page_in_the_frame(browser, launch: str) -> None:
    port = free_port()
    with running_server(command=LAUNCHES[launch](port), port=port) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        try:
            tab = context.new_page()
            for path, title in DEEP.items():  # the first is the first page this server ever draws
                tab.goto(f"{server.base}/{path}")
                wait_for_chart(tab, 60_000)
                assert title in tab.locator("h1").first.inner_text(), (launch, path)
                navigation = tab.locator("[data-testid='stSidebarNav']").inner_text()
                for entry in PAGES:  # the registry's titles, not file names ("what if", "app")
                    assert entry.title in navigation, (launch, path, navigation)
                assert setup_visible(tab), (launch, path)  # the shared frame
                assert tab.url.split("?")[0].rstrip("/").endswith(page(path).path)
        finally:
            context.close()
