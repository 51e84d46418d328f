"""deploy.launch: Streamlit's connections send small messages at once (TCP_NODELAY), on the socket Streamlit
itself binds, and every way the dashboard is started goes through it."""

from __future__ import annotations

import asyncio
import gc
import socket
import sys
from asyncio import base_events
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from streamlit.web.server.starlette.starlette_server import _bind_socket

from deploy import launch
from deploy.launch import enable_nodelay
from deploy.manifests import compose
from deploy.serve import replica_command
from tests.browser.server import streamlit_command

ROOT = Path(__file__).resolve().parents[2]


def _accepted_nodelay() -> int:
    """:func:`_accept_once` on its own thread and event loop (a browser test's Playwright may hold this thread's)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(_accept_once())).result(timeout=30)


async def _accept_once() -> int:
    """TCP_NODELAY of the server side of a connection accepted on a socket bound as Streamlit binds its own."""
    listener = _bind_socket("127.0.0.1", 0, 8)
    seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    class Probe(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            sock = transport.get_extra_info("socket")
            seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
    async with server:
        port = listener.getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        value = await asyncio.wait_for(seen, 10)
        writer.close()
    return value


@pytest.fixture
def restored(monkeypatch: pytest.MonkeyPatch) -> None:
    """asyncio's own hook is put back after the test."""
    monkeypatch.setattr(base_events, "_set_nodelay", base_events._set_nodelay)


def test_streamlits_own_socket_leaves_nagle_on(restored: None) -> None:
    """The problem: Streamlit's listener has protocol number 0, so asyncio does not set TCP_NODELAY."""
    with _bind_socket("127.0.0.1", 0, 8) as listener:
        assert listener.proto == 0
    assert _accepted_nodelay() == 0


def test_enabled_every_accepted_connection_sends_at_once(restored: None) -> None:
    assert enable_nodelay()
    assert _accepted_nodelay() != 0
    hook = base_events._set_nodelay
    assert enable_nodelay() and base_events._set_nodelay is hook  # idempotent: wrapped once


def test_a_unix_socket_is_left_to_asyncio(restored: None) -> None:
    enable_nodelay()
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        base_events._set_nodelay(left)  # asyncio's own: nothing to set on a Unix socket


def test_every_way_the_dashboard_starts_goes_through_the_launcher() -> None:
    launcher = ["-m", "deploy.launch", "run"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "streamlit run" not in makefile and makefile.count("-m deploy.launch run app.py") == 2
    assert replica_command(8501, [])[1:4] == launcher
    assert streamlit_command(8501)[1:4] == launcher
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    assert 'ENTRYPOINT ["python", "-m", "deploy.launch", "run", "app.py"]' in dockerfile
    assert "COPY deploy/__init__.py deploy/launch.py deploy/" in dockerfile
    assert all("streamlit" not in " ".join(s.get("command", [])[:1]) for s in compose()["services"].values())


def test_the_launcher_collects_garbage_less_often(restored: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """``main`` raises the collector's youngest threshold from CPython's 700 to 50,000 before Streamlit starts: an
    advisor ranking's hundreds of thousands of short-lived objects had set off 25-33 collections a run."""
    import streamlit.web.cli

    started: list[list[str]] = []
    monkeypatch.setattr(streamlit.web.cli, "main", lambda prog_name: started.append(list(sys.argv)))
    monkeypatch.setattr(sys, "argv", ["deploy.launch"])
    saved = gc.get_threshold()
    try:
        launch.main(["run", "app.py"])
        assert (gc.get_threshold(), started) == ((50_000, 10, 10), [["streamlit", "run", "app.py"]])
    finally:
        gc.set_threshold(*saved)
