"""The nginx in front of the replicas (deploy/nginx.conf.template), run for real in front of two small backends that
say who they are: a new session's websocket goes to the backend holding the fewest connections and is told its
replica in the sticky cookie, every request that carries the cookie reaches the same backend (the next one while it
is down), the websocket upgrade and the reader's address are passed on, and uploads are limited before a backend
sees them."""

from __future__ import annotations

import collections
import contextlib
import http.client
import json
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from deploy.config import COOKIE, nginx_config
from tests.browser.server import free_port


class _Backend(BaseHTTPRequestHandler):
    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        if self.path.endswith("?hold"):  # a session holding its connection open
            time.sleep(1.5)
        body = json.dumps(
            {
                "backend": self.server.server_port,  # type: ignore[attr-defined]
                "path": self.path,
                **{name: self.headers.get(name) for name in ("Host", "Upgrade", "Connection", "X-Forwarded-Proto")},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def _proxy(nginx: str, tmp: Path, prefix: str = "") -> Iterator[tuple[int, list[Any]]]:
    backends = [ThreadingHTTPServer(("127.0.0.1", 0), _Backend) for _ in range(2)]
    for backend in backends:
        threading.Thread(target=backend.serve_forever, daemon=True).start()
    ports = [backend.server_port for backend in backends]
    port = free_port()
    config = tmp / "nginx.conf"
    config.write_text(nginx_config([f"127.0.0.1:{p}" for p in ports], f"127.0.0.1:{port}", str(tmp), prefix))
    process = subprocess.Popen([nginx, "-e", "stderr", "-p", str(tmp), "-c", str(config), "-g", "daemon off;"])
    try:
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert time.monotonic() < deadline and process.poll() is None, "nginx did not start"
            time.sleep(0.05)
        yield port, backends
    finally:
        process.terminate()
        process.wait(timeout=10)
        for backend in backends:
            with contextlib.suppress(OSError):
                backend.shutdown()
                backend.server_close()


def _get(port: int, path: str = "/", headers: dict[str, str] | None = None, body: bytes | None = None) -> Any:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST" if body is not None else "GET", path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response, (json.loads(data) if response.status == 200 else None)


def test_the_nginx_template_is_valid(nginx: str, tmp_path: Path) -> None:
    for servers, prefix in ((["127.0.0.1:1"], ""), (["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"], "headroom")):
        config = tmp_path / "nginx.conf"
        config.write_text(nginx_config(servers, "127.0.0.1:1", str(tmp_path), prefix))
        checked = subprocess.run(
            [nginx, "-t", "-e", "stderr", "-p", str(tmp_path), "-c", str(config)], capture_output=True, text=True
        )
        assert checked.returncode == 0, checked.stderr


def test_new_sessions_spread_and_stick_to_their_replica(nginx: str, tmp_path: Path) -> None:
    with _proxy(nginx, tmp_path) as (port, backends):
        ports = [backend.server_port for backend in backends]
        response, _ = _get(port, "/")
        assert response.getheader("Set-Cookie") is None  # the page and its scripts come from any replica
        first: collections.Counter[int] = collections.Counter()
        cookies = []
        for _ in range(40):  # 40 new sessions' websockets, no cookie yet
            response, seen = _get(port, "/_stcore/stream")
            first[seen["backend"]] += 1
            cookie = response.getheader("Set-Cookie")
            assert cookie and "HttpOnly" in cookie, cookie
            replica = cookie.split(";")[0]
            assert replica == f"{COOKIE}={ports.index(seen['backend']) + 1}", (replica, seen)
            cookies.append((replica, seen["backend"]))
        assert set(first) == set(ports) and min(first.values()) >= 15, first  # both, about evenly
        for cookie, backend in cookies[:10]:  # uploads, scripts, a reconnect: the same replica
            for path in ("/_stcore/upload_file/s/f", "/static/js/x.js", "/_stcore/stream"):
                response, seen = _get(port, path, {"Cookie": cookie})
                assert seen["backend"] == backend, (cookie, path)
                assert response.getheader("Set-Cookie") is None  # told once
        response, _ = _get(port, "/_stcore/stream", {"Cookie": f"{COOKIE}=9"})  # a replica not here: a new session
        assert response.getheader("Set-Cookie", "").startswith(f"{COOKIE}=")


def test_a_new_session_goes_to_the_replica_with_the_fewest_connections(nginx: str, tmp_path: Path) -> None:
    with _proxy(nginx, tmp_path) as (port, _):
        held: list[Any] = []
        holder = threading.Thread(target=lambda: held.append(_get(port, "/_stcore/stream?hold")[1]))
        holder.start()  # one session holds its connection to one replica
        time.sleep(0.5)
        placed = [_get(port, "/_stcore/stream")[1]["backend"] for _ in range(6)]
        holder.join()
        assert held and all(backend != held[0]["backend"] for backend in placed), (held, placed)


def test_a_replica_that_is_down_hands_its_sessions_to_the_next(nginx: str, tmp_path: Path) -> None:
    with _proxy(nginx, tmp_path) as (port, backends):
        backends[0].shutdown()
        backends[0].server_close()
        response, seen = _get(port, "/_stcore/stream", {"Cookie": f"{COOKIE}=1"})
        assert response.status == 200 and seen["backend"] == backends[1].server_port


def test_the_websocket_upgrade_and_the_readers_address_are_passed_on(nginx: str, tmp_path: Path) -> None:
    with _proxy(nginx, tmp_path) as (port, _):
        headers = {"Host": "headroom.team.example:8443", "Upgrade": "websocket", "Connection": "Upgrade"}
        _, seen = _get(port, "/_stcore/stream", headers)
        assert (seen["Upgrade"], seen["Connection"].lower()) == ("websocket", "upgrade")
        assert seen["Host"] == "headroom.team.example:8443"  # Streamlit builds nothing from it; links use the page's
        assert seen["X-Forwarded-Proto"] == "http"
        _, plain = _get(port, "/")
        assert plain["Upgrade"] is None


def test_uploads_are_bounded_at_the_proxy(nginx: str, tmp_path: Path) -> None:
    with _proxy(nginx, tmp_path) as (port, _):
        response, _ = _get(port, "/_stcore/upload_file/s/f", body=b"x" * 1_500_000)
        assert response.status == 200  # a 1 MB config.json and its envelope pass (Streamlit names a larger one)
        response, _ = _get(port, "/_stcore/upload_file/s/f", body=b"x" * 3_000_000)
        assert response.status == 413


@pytest.mark.parametrize("prefix", ["headroom"])
def test_behind_a_path_prefix_the_root_leads_to_it(nginx: str, tmp_path: Path, prefix: str) -> None:
    with _proxy(nginx, tmp_path, prefix) as (port, _):
        response, _ = _get(port, "/")
        assert response.status == 302 and response.getheader("Location").endswith(f"/{prefix}/")
        _, seen = _get(port, f"/{prefix}/what_if?model=x")
        assert seen["path"] == f"/{prefix}/what_if?model=x"  # passed as is: Streamlit serves under the prefix
