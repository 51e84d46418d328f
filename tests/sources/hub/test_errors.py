"""Failure modes: each raises a clear HubError (so it is never cached), and no message holds the token."""

from __future__ import annotations

import json
import socket
import struct
import time
from collections.abc import Callable

import pytest

from planner.bounds.errors import PlannerError
from planner.sources.hub import (
    HubAccessError,
    HubConnectionError,
    HubError,
    HubNotFoundError,
    HubResponseError,
    fetch_model,
)
from planner.sources.hub.safetensors import MAX_HEADER_BYTES
from tests.sources.hub.conftest import FIXTURES, TOKEN, Handler, HubServer

FAST = {"timeout": (1.0, 0.3), "backoff": 0.01}


def _sha(repo: str) -> str:
    return str(json.loads((FIXTURES / repo / "api.json").read_text())["sha"])


def _alias(hub: HubServer, name: str, target: str = "Qwen/Qwen3-0.6B") -> str:
    """Serve fixture ``target`` as ``name``; returns the resolve path prefix of its files."""
    hub.aliases[name] = target
    return f"/{name}/resolve/{_sha(target)}/"


def _fails(exc_type: type[HubError], fragment: str, call: Callable[[], object]) -> HubError:
    with pytest.raises(exc_type) as info:
        call()
    message = str(info.value)
    assert fragment in message, message
    assert isinstance(info.value, PlannerError)
    assert TOKEN not in message and TOKEN not in repr(info.value)
    assert info.value.__cause__ is None  # no chained requests exception carrying request details
    return info.value


# -- access --------------------------------------------------------------------------------------------
def test_gated_repo_without_token(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_TOKEN")
    error = _fails(HubAccessError, "is gated", lambda: fetch_model("meta-llama/Llama-3.1-8B"))
    assert f"request access at {hub.url}/meta-llama/Llama-3.1-8B and set HF_TOKEN" in str(error)
    assert all("Authorization" not in r.headers for r in hub.requests)


def test_gated_repo_with_a_token_that_has_no_access(hub: HubServer) -> None:
    wrong = "hf_SomeoneElsesToken9876543210"
    error = _fails(HubAccessError, "no access yet", lambda: fetch_model("meta-llama/Llama-3.1-8B", token=wrong))
    assert wrong not in str(error)


def test_private_repo(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_TOKEN")
    _fails(HubAccessError, "private or gated, or does not exist", lambda: fetch_model("acme/private-model"))
    model = fetch_model("acme/private-model", token=TOKEN)
    assert model.private and model.spec is not None


def test_rejected_plain_token_is_redacted_everywhere(hub: HubServer, caplog: pytest.LogCaptureFixture) -> None:
    secret = "not-hf-shaped-password-42"
    error = _fails(HubAccessError, "token was rejected", lambda: fetch_model("acme/private-model", token=secret))
    assert secret not in str(error) and secret not in caplog.text
    assert any(r.headers.get("Authorization") == f"Bearer {secret}" for r in hub.requests)
    assert not any(secret in r.path for r in hub.requests)


def test_missing_repo(hub: HubServer) -> None:
    _fails(
        HubNotFoundError, "model repository acme/does-not-exist not found", lambda: fetch_model("acme/does-not-exist")
    )


def test_missing_revision(hub: HubServer) -> None:
    _fails(
        HubNotFoundError,
        "revision 'no-such-branch' not found in Qwen/Qwen3-0.6B",
        lambda: fetch_model("Qwen/Qwen3-0.6B@no-such-branch"),
    )


def test_conflicting_revisions(hub: HubServer) -> None:
    _fails(HubError, "two revisions given", lambda: fetch_model("Qwen/Qwen3-0.6B@main", revision="dev"))


# -- network -------------------------------------------------------------------------------------------
def test_connection_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    _fails(HubConnectionError, "refused", lambda: fetch_model("Qwen/Qwen3-0.6B", endpoint=f"http://127.0.0.1:{port}"))


def test_dns_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://hub.nonexistent.invalid")
    _fails(HubConnectionError, "cannot resolve hub.nonexistent.invalid", lambda: fetch_model("Qwen/Qwen3-0.6B", **FAST))


def test_offline_mode(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _fails(HubConnectionError, "HF_HUB_OFFLINE", lambda: fetch_model("Qwen/Qwen3-0.6B"))
    assert hub.requests == []


def test_stalled_server_times_out_fast(hub: HubServer) -> None:
    def stall(handler: Handler) -> bool:
        hub.release.wait(5)
        return True

    hub.overrides["/api/models/headroom-test/stall"] = stall
    start = time.monotonic()
    _fails(HubConnectionError, "timed out", lambda: fetch_model("headroom-test/stall", **FAST))
    assert time.monotonic() - start < 2.5


def test_one_retry_after_a_server_error(hub: HubServer) -> None:
    _alias(hub, "headroom-test/flaky")
    calls: list[int] = []

    def flaky(handler: Handler) -> bool:
        calls.append(1)
        if len(calls) == 1:
            handler.send(500, b"upstream error")
            return True
        return False

    hub.overrides["/api/models/headroom-test/flaky"] = flaky
    model = fetch_model("headroom-test/flaky", **FAST)
    assert model.parameters is not None and model.parameters.value == 596_049_920
    assert len(calls) == 2


def test_rate_limit_honours_retry_after(hub: HubServer) -> None:
    _alias(hub, "headroom-test/limited")
    calls: list[int] = []

    def limited(handler: Handler) -> bool:
        calls.append(1)
        if len(calls) == 1:
            handler.send(429, b"", {"Retry-After": "0"})
            return True
        return False

    hub.overrides["/api/models/headroom-test/limited"] = limited
    assert fetch_model("headroom-test/limited", **FAST).spec is not None
    assert len(calls) == 2


def test_persistent_server_error_is_raised_after_one_retry(hub: HubServer) -> None:
    calls: list[int] = []

    def broken(handler: Handler) -> bool:
        calls.append(1)
        handler.send(503, b"down")
        return True

    hub.overrides["/api/models/headroom-test/down"] = broken
    _fails(HubConnectionError, "HTTP 503", lambda: fetch_model("headroom-test/down", **FAST))
    assert len(calls) == 2


# -- responses -----------------------------------------------------------------------------------------
def test_oversized_config_with_content_length(hub: HubServer) -> None:
    prefix = _alias(hub, "headroom-test/big")
    hub.overrides[prefix + "config.json"] = lambda h: h.send(200, b" " * 2_000_000) or True
    _fails(HubResponseError, "over the 1,000,000-byte limit", lambda: fetch_model("headroom-test/big", **FAST))


def test_oversized_config_streamed_without_length(hub: HubServer) -> None:
    prefix = _alias(hub, "headroom-test/big-stream")

    def stream(handler: Handler) -> bool:
        handler.send_response(200)
        handler.end_headers()  # HTTP/1.0, no Content-Length: the body ends when the connection closes
        try:
            for _ in range(40):
                handler.wfile.write(b" " * 65_536)
        except OSError:
            pass
        return True

    hub.overrides[prefix + "config.json"] = stream
    _fails(
        HubResponseError,
        "larger than the 1,000,000-byte limit",
        lambda: fetch_model("headroom-test/big-stream", **FAST),
    )


def test_malformed_config_json(hub: HubServer) -> None:
    prefix = _alias(hub, "headroom-test/broken")
    hub.overrides[prefix + "config.json"] = lambda h: h.send(200, b'{"model_type": "llama",') or True
    _fails(HubResponseError, "config.json is not valid JSON (line 1", lambda: fetch_model("headroom-test/broken"))


def test_malformed_api_response(hub: HubServer) -> None:
    hub.overrides["/api/models/headroom-test/html"] = lambda h: h.send(200, b"<html>maintenance</html>") or True
    _fails(HubResponseError, "is not valid JSON", lambda: fetch_model("headroom-test/html"))


# -- redirects -----------------------------------------------------------------------------------------
def test_redirect_to_cdn_on_a_second_server(hub: HubServer, cdn: HubServer) -> None:
    model = fetch_model("Qwen/Qwen3-0.6B", cdn_hosts=[cdn.host])
    assert model.checkpoint_parameters is not None and model.checkpoint_parameters.value == 751_632_384
    assert cdn.requests, "the safetensors header was read from the CDN"
    assert all("Authorization" not in r.headers for r in cdn.requests), "the token never leaves the endpoint"
    assert all("Range" in r.headers for r in cdn.requests)


def test_redirect_to_an_unlisted_host_is_refused(hub: HubServer, cdn: HubServer) -> None:
    _fails(HubResponseError, "refusing to follow a redirect", lambda: fetch_model("Qwen/Qwen3-0.6B"))
    assert cdn.requests == []


def test_api_redirects_only_within_the_endpoint(hub: HubServer, cdn: HubServer) -> None:
    hub.overrides["/api/models/headroom-test/moved-away"] = lambda h: (
        h.send(302, b"", {"Location": f"{cdn.url}/api/models/Qwen/Qwen3-0.6B"}) or True
    )
    _fails(
        HubResponseError,
        "refusing to follow a redirect",
        lambda: fetch_model("headroom-test/moved-away", cdn_hosts=[cdn.host]),
    )
    assert cdn.requests == []


def test_same_origin_redirect_keeps_the_token(hub: HubServer) -> None:
    _alias(hub, "old-owner/old-name")
    hub.overrides["/api/models/old-owner/old-name"] = lambda h: (
        h.send(307, b"", {"Location": "/api/models/Qwen/Qwen3-0.6B"}) or True
    )
    model = fetch_model("old-owner/old-name")
    assert model.spec is not None
    followed = [r for r in hub.requests if r.path == "/api/models/Qwen/Qwen3-0.6B"]
    assert followed and followed[0].headers.get("Authorization") == f"Bearer {TOKEN}"


# -- lying safetensors headers -------------------------------------------------------------------------
def _serve_safetensors(hub: HubServer, name: str, respond: Callable[[Handler], None]) -> None:
    hub.aliases[name] = "Qwen/Qwen3-0.6B"
    path = f"/{name}/resolve/{_sha('Qwen/Qwen3-0.6B')}/model.safetensors"
    hub.overrides[path] = lambda h: respond(h) or True


def test_header_longer_than_the_file(hub: HubServer) -> None:
    _serve_safetensors(hub, "headroom-test/lying", lambda h: h.serve_bytes(struct.pack("<Q", 1_000_000) + b"{}", 100))
    _fails(
        HubResponseError,
        "claims a 1,000,000-byte header but the file is only 100 bytes",
        lambda: fetch_model("headroom-test/lying"),
    )


def test_header_longer_than_what_was_sent(hub: HubServer) -> None:
    data = struct.pack("<Q", 200_000) + b'{"a": ' + b" " * 986

    def respond(handler: Handler) -> None:  # unknown total size, and fewer bytes than the header claims
        handler.serve_bytes(data, len(data), total_label="*")

    _serve_safetensors(hub, "headroom-test/short", respond)
    _fails(
        HubResponseError,
        "claims a 200,000-byte header but the server sent only 992 bytes",
        lambda: fetch_model("headroom-test/short"),
    )


def test_header_over_the_cap(hub: HubServer) -> None:
    _serve_safetensors(hub, "headroom-test/huge", lambda h: h.serve_bytes(struct.pack("<Q", 1 << 40), 1 << 50))
    _fails(HubResponseError, f"over the {MAX_HEADER_BYTES:,}-byte limit", lambda: fetch_model("headroom-test/huge"))


def test_header_listing_data_beyond_the_file(hub: HubServer) -> None:
    header = json.dumps({"w": {"dtype": "BF16", "shape": [1000, 1000], "data_offsets": [0, 2_000_000]}}).encode()
    body = struct.pack("<Q", len(header)) + header
    _serve_safetensors(hub, "headroom-test/truncated", lambda h: h.serve_bytes(body, len(body) + 10))
    _fails(
        HubResponseError,
        "lists 2,000,000 bytes of tensor data but the file holds only 10",
        lambda: fetch_model("headroom-test/truncated"),
    )


def test_header_that_is_not_json(hub: HubServer) -> None:
    body = struct.pack("<Q", 12) + b"not json!!!!"
    _serve_safetensors(hub, "headroom-test/garbage", lambda h: h.serve_bytes(body))
    _fails(HubResponseError, "model.safetensors header is not valid JSON", lambda: fetch_model("headroom-test/garbage"))
