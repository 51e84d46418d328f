"""A hostile Hub at the HTTP level: trickled bytes, endless retries, odd header values, huge error replies.

From the adversarial review of the Hub client ("hostile input" issue): each case escaped the promise that a
failure is a :class:`HubError` raised in bounded time, or produced an unbounded message.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from planner.sources.hub import HubConnectionError, HubError, HubResponseError, fetch_model, parse_repo_ref
from tests.sources.hub.conftest import TOKEN, Handler, HostileRepo, HubServer, fails, timed, trickle

FAST = {"timeout": (1.0, 0.3), "backoff": 0.01}
DEADLINE = 2.0  # seconds: the import's total time limit in these tests (120 s by default)
MARGIN = 1.0  # seconds allowed past the deadline (connection set-up, thread scheduling on a shared machine)


# -- 1. one deadline for the whole import --------------------------------------------------------------
@pytest.mark.slow
def test_trickling_body_fails_at_the_import_deadline(hub: HubServer) -> None:
    repo = HostileRepo(hub, "hostile/trickle-body")
    repo.respond(f"/{repo.name}/resolve/{repo.sha}/config.json", lambda h: trickle(h, seconds=8))
    call = lambda: fetch_model(repo.name, total_timeout=DEADLINE, **FAST)  # noqa: E731
    timed(HubConnectionError, f"the {DEADLINE:g} s limit", call, DEADLINE + MARGIN)


@pytest.mark.slow
def test_trickling_status_line_fails_at_the_import_deadline(hub: HubServer) -> None:
    repo = HostileRepo(hub, "hostile/trickle-head")
    repo.respond(f"/api/models/{repo.name}", lambda h: trickle(h, seconds=8, status_line=True))
    call = lambda: fetch_model(repo.name, total_timeout=DEADLINE, **FAST)  # noqa: E731
    timed(HubConnectionError, f"the {DEADLINE:g} s limit", call, DEADLINE + MARGIN)


@pytest.mark.slow
def test_the_deadline_spans_every_request_of_an_import(hub: HubServer) -> None:
    """Each reply arrives within its own read time-out, but together they take longer than the deadline."""
    repo = HostileRepo(hub, "hostile/slow-steps")
    config = (hub.root / repo.base / "config.json").read_bytes()

    def slow(body: bytes) -> Callable[[Handler], object]:
        def respond(handler: Handler) -> None:
            handler.hub.release.wait(1.2)
            handler.send(200, body, {"Content-Type": "application/json"})

        return respond

    repo.respond(f"/api/models/{repo.name}", slow(json.dumps(repo.api_json()).encode()))
    repo.respond(f"/{repo.name}/resolve/{repo.sha}/config.json", slow(config))
    call = lambda: fetch_model(repo.name, total_timeout=DEADLINE, timeout=(1.0, 1.5), backoff=0.01)  # noqa: E731
    timed(HubConnectionError, f"the {DEADLINE:g} s limit", call, DEADLINE + MARGIN)


def test_a_retry_wait_does_not_outlast_the_deadline(hub: HubServer) -> None:
    repo = HostileRepo(hub, "hostile/retry-later")
    repo.respond(f"/api/models/{repo.name}", lambda h: h.send(503, b"busy", {"Retry-After": "10"}))
    call = lambda: fetch_model(repo.name, total_timeout=DEADLINE, **FAST)  # noqa: E731
    timed(HubConnectionError, "HTTP 503", call, DEADLINE + MARGIN)


@pytest.mark.parametrize("header", ["Retry-After", "Content-Length"])
def test_non_ascii_digits_in_headers_are_ignored(hub: HubServer, header: str) -> None:
    repo = HostileRepo(hub, "hostile/superscript")
    calls: list[int] = []

    def respond(handler: Handler) -> bool:
        calls.append(1)
        if header == "Retry-After" and len(calls) == 1:
            handler.send(429, b"", {"Retry-After": "²"})
            return True
        if header == "Content-Length":
            body = json.dumps(repo.api_json()).encode()
            handler.send_response(200)
            handler.send_header("Content-Length", "²")
            handler.end_headers()
            handler.wfile.write(body)
            handler.close_connection = True
            return True
        return False

    repo.respond(f"/api/models/{repo.name}", respond)
    model = fetch_model(repo.name, **FAST)
    assert model.spec is not None


def test_a_huge_error_body_and_redirect_target_give_short_messages(hub: HubServer) -> None:
    repo = HostileRepo(hub, "hostile/loud")
    body = json.dumps({"error": "e" * 10_000_000 + TOKEN}).encode()
    repo.respond(f"/api/models/{repo.name}", lambda h: h.send(418, body))
    fails(HubResponseError, "unexpected HTTP 418", lambda: fetch_model(repo.name))
    far = "h" * 60 + "." + "o" * 60_000 + ".example"
    repo.respond(f"/api/models/{repo.name}", lambda h: h.send(302, b"", {"Location": f"https://{far}/x"}))
    fails(HubResponseError, "refusing to follow a redirect", lambda: fetch_model(repo.name))


@pytest.mark.parametrize("location", ["http://[::1/x", "http://127.0.0.1:99999999/x", "http://127.0.0.1:port/x"])
def test_a_malformed_redirect_is_a_named_error(hub: HubServer, location: str) -> None:
    repo = HostileRepo(hub, "hostile/bad-redirect")
    repo.respond(f"/api/models/{repo.name}", lambda h: h.send(302, b"", {"Location": location}))
    fails(HubResponseError, "malformed", lambda: fetch_model(repo.name))


@pytest.mark.parametrize(
    "ref", ["https://[::1/org/m", "https://huggingface.co:port/org/m", "http://hf.co:99999999/o/m"]
)
def test_a_malformed_reference_url_is_a_named_error(ref: str) -> None:
    fails(HubError, "not a valid URL", lambda: parse_repo_ref(ref, "https://huggingface.co"))
