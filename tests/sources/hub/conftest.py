"""A local stand-in for the Hugging Face Hub: a real ThreadingHTTPServer on 127.0.0.1 serving recorded responses.

Routes, as huggingface.co answers them:
- ``GET /api/models/{owner}/{name}[/revision/{rev}]`` -> ``api.json`` (404 RepoNotFound / RevisionNotFound, 401 for
  a private repo without the token);
- ``GET /{owner}/{name}/resolve/{rev}/{file}`` -> the file (401/403 GatedRepo for a gated repo without / with a wrong
  token, 404 EntryNotFound). ``model.safetensors`` is virtual: the 8-byte length prefix, the recorded JSON header,
  then zero bytes for the tensor data, served with HTTP Range. With ``cdn`` set, safetensors downloads answer
  302 to a pre-signed URL on a second loopback server, as the Hub sends LFS files to its CDN.

Tests add behaviour per path (``server.overrides``) and serve a fixture repo under another name (``server.aliases``).
"""

from __future__ import annotations

import json
import logging
import re
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parents[2] / "fixtures" / "hub"
TOKEN = "hf_HeadroomTestToken0123456789abcdefXYZ"  # shaped like a real token; never valid anywhere
Override = Callable[["Handler"], bool]


@dataclass
class Request:
    path: str
    headers: dict[str, str]


@dataclass
class HubServer:
    root: Path
    cdn: HubServer | None = None
    is_cdn: bool = False
    overrides: dict[str, Override] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    httpd: ThreadingHTTPServer | None = None

    @property
    def host(self) -> str:
        assert self.httpd is not None
        return f"127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def url(self) -> str:
        return f"http://{self.host}"

    def repo_dir(self, repo: str) -> Path | None:
        folder = self.root / self.aliases.get(repo, repo)
        return folder if (folder / "api.json").is_file() else None


class Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return

    # -- helpers
    @property
    def hub(self) -> HubServer:
        return self.server.hub

    def send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            if "Content-Length" not in (headers or {}):
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass  # the client gave up (time-out tests)

    def send_json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        self.send(status, json.dumps(data).encode(), {"Content-Type": "application/json", **(headers or {})})

    def error(self, status: int, code: str, message: str) -> None:
        self.send_json(status, {"error": message}, {"X-Error-Code": code, "X-Error-Message": message})

    def serve_bytes(self, data: bytes, total: int | None = None, total_label: str | None = None) -> None:
        """Serve a file of ``total`` bytes whose first bytes are ``data`` (the rest zeros), honouring Range."""
        size = len(data) if total is None else total
        match = re.match(r"bytes=(\d+)-(\d*)$", self.headers.get("Range", ""))
        if not match:
            body = data + bytes(max(0, min(size, 1 << 20) - len(data)))
            self.send(200, body[:size], {"Content-Length": str(size)} if size <= 1 << 20 else {})
            return
        start = int(match.group(1))
        end = min(int(match.group(2)) if match.group(2) else size - 1, size - 1)
        if start >= size:
            self.send(416, b"", {"Content-Range": f"bytes */{size}"})
            return
        chunk = data[start : end + 1]
        chunk += bytes(end + 1 - start - len(chunk))
        self.send(206, chunk, {"Content-Range": f"bytes {start}-{end}/{total_label or size}"})

    def authorized(self) -> bool:
        return self.headers.get("Authorization") == f"Bearer {TOKEN}"

    # -- routes
    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        self.hub.requests.append(Request(self.path, dict(self.headers.items())))
        override = self.hub.overrides.get(path)
        if override is not None and override(self):
            return
        if self.hub.is_cdn:
            self.serve_cdn(path)
            return
        api = re.match(r"^/api/models/([^/]+/[^/]+?)(?:/revision/([^/]+))?$", path)
        if api:
            self.serve_api(api.group(1), api.group(2))
            return
        resolve = re.match(r"^/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$", path)
        if resolve:
            self.serve_file(resolve.group(1), resolve.group(2), resolve.group(3))
            return
        self.error(404, "", "Not Found")

    def load_api(self, repo: str) -> dict[str, Any] | None:
        folder = self.hub.repo_dir(repo)
        return json.loads((folder / "api.json").read_text()) if folder else None

    def check_revision(self, info: dict[str, Any], revision: str | None) -> bool:
        if revision in (None, "main", info["sha"]):
            return True
        self.error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
        return False

    def serve_api(self, repo: str, revision: str | None) -> None:
        info = self.load_api(repo)
        if info is None:
            self.error(404, "RepoNotFound", "Repository not found")
        elif info.get("private") and not self.authorized():
            self.error(401, "RepoNotFound", "Invalid username or password.")
        elif self.check_revision(info, revision):
            self.send_json(200, info)

    def serve_file(self, repo: str, revision: str, filename: str) -> None:
        info = self.load_api(repo)
        if info is None:
            self.error(404, "RepoNotFound", "Repository not found")
            return
        if info.get("private") and not self.authorized():
            self.error(401, "RepoNotFound", "Invalid username or password.")
            return
        if info.get("gated") and not self.authorized():
            if self.headers.get("Authorization"):
                self.error(
                    403, "GatedRepo", f"Access to model {repo} is restricted and you are not in the authorized list."
                )
            else:
                self.error(401, "GatedRepo", f"Access to model {repo} is restricted. You must be authenticated.")
            return
        if not self.check_revision(info, revision):
            return
        if filename.endswith(".safetensors") and self.hub.cdn is not None:
            target = f"{self.hub.cdn.url}/repos/{repo}/{filename}?X-Amz-Signature=deadbeef&Expires=1"
            self.send(302, b"", {"Location": target})
            return
        self.serve_repo_file(repo, filename)

    def serve_repo_file(self, repo: str, filename: str) -> None:
        folder = self.hub.repo_dir(repo)
        assert folder is not None
        if filename == "model.safetensors" and (folder / "model.safetensors.header.json").is_file():
            header = (folder / "model.safetensors.header.json").read_bytes()
            data_end = max(
                (e["data_offsets"][1] for k, e in json.loads(header).items() if k != "__metadata__"), default=0
            )
            prefix = struct.pack("<Q", len(header)) + header
            self.serve_bytes(prefix, len(prefix) + data_end)
            return
        file = folder / filename
        if filename != "api.json" and file.is_file():
            self.send(200, file.read_bytes(), {"Content-Type": "application/json"})
            return
        self.error(404, "EntryNotFound", f"{filename} does not exist")

    def serve_cdn(self, path: str) -> None:
        match = re.match(r"^/repos/([^/]+/[^/]+)/(.+)$", path)
        if not match or "X-Amz-Signature" not in self.path:
            self.send(403, b"AccessDenied")
            return
        self.serve_repo_file(match.group(1), match.group(2))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    hub: HubServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        return  # a client that timed out and closed the socket is expected here


def _start(hub: HubServer) -> HubServer:
    httpd = _Server(("127.0.0.1", 0), Handler)
    httpd.hub = hub
    hub.httpd = httpd
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return hub


def _stop(hub: HubServer) -> None:
    hub.release.set()
    assert hub.httpd is not None
    hub.httpd.shutdown()
    hub.httpd.server_close()


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    """The fake Hub, with HF_ENDPOINT pointing at it and HF_TOKEN set to the test token."""
    server = _start(HubServer(FIXTURES))
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    try:
        yield server
    finally:
        _stop(server)


@pytest.fixture
def cdn(hub: HubServer) -> Iterator[HubServer]:
    """A second loopback server standing in for the Hub's CDN; safetensors downloads redirect to it."""
    server = _start(HubServer(FIXTURES, is_cdn=True))
    hub.cdn = server
    try:
        yield server
    finally:
        hub.cdn = None
        _stop(server)


@pytest.fixture(autouse=True)
def _token_never_logged(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Every hub test runs with DEBUG logging captured; the token must not appear in any record."""
    caplog.set_level(logging.DEBUG)
    yield
    assert TOKEN not in caplog.text
    assert "HeadroomTestToken" not in caplog.text


# -- hostile behaviours (tests/sources/hub/test_hostile.py) ------------------------------------------------------
def trickle(handler: Handler, *, seconds: float, interval: float = 0.05, status_line: bool = False) -> bool:
    """Send one byte every ``interval`` for at most ``seconds``, then close: too slow for any per-read time-out.

    ``status_line``: trickle the status line itself (the client is still waiting for the headers); otherwise
    send 200 with a 1 MB Content-Length and trickle the body.
    """
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\nContent-Type: application/json\r\n\r\n"
    payload = head + b" " * 10_000 if status_line else b" " * 10_000
    deadline = time.monotonic() + seconds
    try:
        if not status_line:
            handler.wfile.write(head)
        for byte in payload:
            if time.monotonic() > deadline or handler.hub.release.wait(interval):
                break
            handler.wfile.write(bytes([byte]))
    except OSError:
        pass  # the client gave up, as it should
    handler.close_connection = True
    return True


@dataclass
class HostileRepo:
    """A copy of fixture ``base`` served as ``name``, whose replies a test replaces one by one."""

    hub: HubServer
    name: str
    base: str = "Qwen/Qwen3-0.6B"

    def __post_init__(self) -> None:
        self.hub.aliases[self.name] = self.base

    @property
    def sha(self) -> str:
        return str(self.api_json()["sha"])

    def api_json(self) -> dict[str, Any]:
        return dict(json.loads((self.hub.root / self.base / "api.json").read_text()))

    def file_json(self, filename: str) -> dict[str, Any]:
        return dict(json.loads((self.hub.root / self.base / filename).read_text()))

    def api(self, body: bytes | Any, headers: dict[str, str] | None = None) -> None:
        """Replace the API entry: raw bytes as they are, anything else as JSON."""
        self._serve(f"/api/models/{self.name}", body, headers)

    def file(self, filename: str, body: bytes | Any, headers: dict[str, str] | None = None) -> None:
        """Replace a file at the recorded commit: raw bytes as they are, anything else as JSON."""
        self._serve(f"/{self.name}/resolve/{self.sha}/{filename}", body, headers)

    def respond(self, path: str, respond: Callable[[Handler], object]) -> None:
        """Answer ``path`` with ``respond``; it returns False to leave the request to the recorded reply."""
        self.hub.overrides[path] = lambda h: respond(h) is not False

    def safetensors(self, data: bytes, total: int | None = None, total_label: str | None = None) -> None:
        """Serve ``model.safetensors`` as ``data`` followed by zeros up to ``total`` bytes, with HTTP Range."""
        self.respond(
            f"/{self.name}/resolve/{self.sha}/model.safetensors",
            lambda h: h.serve_bytes(data, total, total_label=total_label),
        )

    def _serve(self, path: str, body: bytes | Any, headers: dict[str, str] | None) -> None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.respond(path, lambda h: h.send(200, raw, {"Content-Type": "application/json", **(headers or {})}))


def fails(exc_type: type[Exception], fragment: str, call: Callable[[], object]) -> Exception:
    """The error ``call`` raises: of ``exc_type`` (a PlannerError), naming ``fragment``, short, without the token."""
    from planner.bounds.errors import PlannerError
    from planner.sources.hub.errors import MAX_MESSAGE_CHARS

    with pytest.raises(exc_type) as info:
        call()
    message = str(info.value)
    assert fragment in message, message[:2000]
    assert isinstance(info.value, PlannerError)
    assert TOKEN not in message and "HeadroomTestToken" not in message
    assert len(message) <= MAX_MESSAGE_CHARS, f"{len(message):,} characters"
    return info.value


def timed(exc_type: type[Exception], fragment: str, call: Callable[[], object], limit: float) -> Exception:
    """:func:`fails`, within ``limit`` seconds."""
    start = time.monotonic()
    error = fails(exc_type, fragment, call)
    elapsed = time.monotonic() - start
    assert elapsed < limit, f"took {elapsed:.1f} s"
    return error
