"""A team on both cores (issue 24): ``make serve REPLICAS=2`` runs two Streamlit processes behind nginx, and a
browser cannot tell. Through the proxy, on 127.0.0.2 (an address a colleague would use): cold deep links draw their
page in the frame (each replica's first session included), a share link carries the proxy's address and opens the
same numbers in another browser (which may land on the other replica), and a session keeps its websocket, and so
its replica and its settings, across a page switch. Behind a path prefix the same holds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from deploy.config import COOKIE
from tests.browser.server import (
    free_port,
    make_command,
    open_setup,
    running_server,
    setup_visible,
    share_link,
    wait_for_chart,
)
from tests.ui.views import llama_70b_fp8
from ui import links
from ui.page_registry import PAGES

VIEW = llama_70b_fp8(40)
DEEP = {"compare": "Precisions compared", "what_if": "How long can conversations get?"}  # each page's title
FRESH_CONTEXTS = 6  # new browsers, each placed at random: both replicas see a deep link first (1 - 2^-5)


def _proxied(*variables: str, base_path: str = "") -> Iterator[str]:
    port = free_port()
    command = make_command("serve", port, "127.0.0.2", "REPLICAS=2", *variables)
    with running_server(command=command, port=port, address="127.0.0.2", base_path=base_path, timeout_s=120) as server:
        yield server.base


@pytest.fixture(scope="module")
def team() -> Iterator[str]:
    yield from _proxied()


def _fresh(browser: Any) -> Any:
    return browser.new_context(viewport={"width": 1400, "height": 1000})


def _in_the_frame(tab: Any, path: str) -> None:
    assert DEEP[path] in tab.locator("h1").first.inner_text(), path
    navigation = tab.locator("[data-testid='stSidebarNav']").inner_text()
    assert all(entry.title in navigation for entry in PAGES), navigation
    assert setup_visible(tab)


def test_cold_deep_links_through_the_proxy_draw_in_the_frame(browser: Any, team: str) -> None:
    for index in range(FRESH_CONTEXTS):
        path = sorted(DEEP)[index % 2]
        context = _fresh(browser)
        try:
            tab = context.new_page()
            tab.goto(f"{team}/{path}{links.query_string(VIEW)}")
            wait_for_chart(tab, 60_000)
            _in_the_frame(tab, path)
        finally:
            context.close()


def test_a_share_link_carries_the_proxys_address_and_opens_anywhere(browser: Any, team: str) -> None:
    context = _fresh(browser)
    page = context.new_page()
    page.goto(f"{team}/{links.query_string(VIEW)}")
    wait_for_chart(page)
    link = share_link(page)
    assert link.startswith(f"{team}/?model="), link
    context.close()
    verdict = VIEW.assessment().sentence(VIEW.unit)
    for _ in range(2):  # other browsers, other replicas: the same numbers
        other = _fresh(browser)
        tab = other.new_page()
        tab.goto(link)
        wait_for_chart(tab)
        assert verdict in " ".join(tab.locator("[data-testid='stAlert']").all_inner_texts())
        other.close()


def test_a_session_keeps_its_websocket_and_settings_across_a_page_switch(browser: Any, team: str) -> None:
    context = _fresh(browser)
    page = context.new_page()
    sockets: list[Any] = []
    closed: list[Any] = []
    page.on("websocket", lambda socket: (sockets.append(socket), socket.on("close", lambda s: closed.append(s))))
    page.goto(f"{team}/{links.query_string(VIEW)}")
    wait_for_chart(page)
    open_setup(page)
    users = page.get_by_role("spinbutton", name="Target concurrent users")
    users.fill("41")
    users.press("Enter")
    page.wait_for_function("() => new URL(location.href).searchParams.get('users') === '41'", timeout=30_000)
    wait_for_chart(page)
    page.locator("[data-testid='stSidebarNav']").get_by_text("Compare precisions").click()
    page.wait_for_function("() => location.pathname.endsWith('/compare')", timeout=30_000)
    wait_for_chart(page)
    assert "Precisions compared" in page.locator("h1").first.inner_text()
    assert page.get_by_role("spinbutton", name="Target concurrent users").input_value() == "41"  # the session's
    assert "users=41" in page.url
    assert len(sockets) == 1 and not closed, "the page switch kept the session's one websocket (its replica)"
    replica = [c["value"] for c in context.cookies() if c["name"] == COOKIE]
    assert replica in (["1"], ["2"]), context.cookies()  # the websocket's answer named the session's replica
    context.close()


LLAMA_CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "torch_dtype": "bfloat16",
}


def test_an_upload_reaches_the_sessions_replica(browser: Any, team: str) -> None:
    """The Custom page's config.json upload is an HTTP request of its own: the sticky cookie takes it to the process
    that holds the session (elsewhere the session, and so the upload, would be unknown)."""
    context = _fresh(browser)
    page = context.new_page()
    page.goto(f"{team}/custom")
    page.get_by_text("Custom model", exact=True).first.wait_for(timeout=60_000)
    page.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(
        files=[{"name": "config.json", "mimeType": "application/json", "buffer": json.dumps(LLAMA_CONFIG).encode()}]
    )
    page.get_by_text("See its memory plan").wait_for(timeout=30_000)
    understood = page.locator("[data-testid='stAlert']").filter(has_text="on every page").first.inner_text()
    assert "8,030,261,248 parameters" in understood, understood
    context.close()


def test_behind_a_path_prefix(browser: Any) -> None:
    for base in _proxied("SERVE_OPTIONS=--server.baseUrlPath headroom", base_path="headroom"):
        assert base.endswith("/headroom")
        context = _fresh(browser)
        tab = context.new_page()
        tab.goto(f"{base}/what_if{links.query_string(VIEW)}")
        wait_for_chart(tab, 60_000)
        _in_the_frame(tab, "what_if")
        assert share_link(tab).startswith(f"{base}/what_if?model=")
        context.close()
