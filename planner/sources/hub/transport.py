"""The HTTP client: one endpoint, one optional token, one session, and the rules every request follows.

- **Redirects** are followed by hand (at most 5), under one rule: to the endpoint's own origin (same scheme,
  host and port: the Hub redirects renamed repos that way) for every request, and, for file downloads
  (``/resolve/``) only, to a CDN host: ``https`` on ``hf.co`` / ``huggingface.co`` or their subdomains
  (``cdn-lfs.hf.co``, ``cas-bridge.xethub.hf.co``), or a host given in ``cdn_hosts``. A CDN target must not
  downgrade ``https`` to ``http``. Anything else is refused with a clear error.
- **The token** is sent in the ``Authorization`` header to the endpoint's origin only, never to a CDN (its
  URLs are pre-signed). It never appears in a URL, a log line, an exception message or a ``repr``: it lives
  in a :class:`~planner.sources.hub.tokens._Secret`, and every message passes through :func:`redact`.
- **Retries**: one retry on 429 and 5xx, honouring ``Retry-After`` (whole seconds in ASCII digits, RFC 9110
  section 10.2.3; an HTTP-date or anything else falls back to the backoff) up to 10 s, and never past the deadline.
- **One deadline per import** (:mod:`planner.sources.hub.deadline`): every connect and read time-out shrinks to what is
  left, and every socket read of the session's :class:`DeadlineAdapter` stops when nothing is.
- **Bounded reads**: every body is read up to a stated limit (more is an error), and parsed by the bounded
  JSON loader (:func:`planner.bounds.safe_json.load_json`).
- **Status codes** map to the :class:`HubError` subclasses, with what to do (request access, check the id).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast
from urllib.parse import urljoin, urlsplit

import requests

from planner.bounds.errors import PlannerError
from planner.bounds.safe_json import load_json
from planner.sources.hub.audience import endpoint_advice, hub_name, repo_page, to_a_visitor, token_advice
from planner.sources.hub.deadline import Deadline, DeadlineAdapter
from planner.sources.hub.errors import (
    HubAccessError,
    HubConnectionError,
    HubError,
    HubNotFoundError,
    HubResponseError,
    clip,
    logger,
    redact,
)
from planner.sources.hub.tokens import _Secret

__all__ = [
    "DEFAULT_TIMEOUT",
    "DEFAULT_TOTAL_TIMEOUT",
    "_Client",
    "ascii_int",
    "new_session",
    "parse_json",
    "raise_for_status",
]

MAX_REDIRECTS = 5
DEFAULT_TIMEOUT = (5.0, 20.0)  # (connect, read) seconds
DEFAULT_TOTAL_TIMEOUT = 120.0  # seconds for one whole import (every request), however slowly a server trickles
MAX_RETRY_AFTER = 10.0
MAX_ERROR_BODY = 2_000  # bytes of an error reply read for its "error" field
CDN_HOST_SUFFIXES = ("hf.co", "huggingface.co")
USER_AGENT = "headroom-planner (+config.json and safetensors metadata only)"
_REDIRECTS = (301, 302, 303, 307, 308)
_DNS_FAILURES = (
    "name or service not known",
    "nodename nor servname",
    "name resolution",
    "getaddrinfo failed",
    "no address associated",
)


def _origin(url: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of ``url``; a :class:`ValueError` for a malformed one (bad port or IPv6)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return parts.scheme, (parts.hostname or "").lower(), port


def ascii_int(value: str | None, digits: int = 20) -> int | None:
    """A header's non-negative integer in ASCII digits (``str.isdigit`` also accepts ``²``), else None."""
    text = (value or "").strip()
    return int(text) if re.fullmatch(f"[0-9]{{1,{digits}}}", text) else None


def new_session() -> requests.Session:
    """A session whose connections honour the import's deadline on every read (:class:`DeadlineAdapter`)."""
    session = requests.Session()
    session.mount("https://", DeadlineAdapter())
    session.mount("http://", DeadlineAdapter())
    return session


@dataclass
class _Client:
    """One endpoint, one optional token, one session: GETs with caps, time-outs, one retry and the redirect rule."""

    endpoint: str
    token: _Secret | None
    session: requests.Session
    timeout: tuple[float, float] = DEFAULT_TIMEOUT
    deadline: Deadline = field(default_factory=lambda: Deadline(DEFAULT_TOTAL_TIMEOUT))
    retries: int = 1
    backoff: float = 1.0
    cdn_hosts: frozenset[str] = field(default_factory=frozenset)

    def __repr__(self) -> str:
        return f"_Client(endpoint={self.endpoint!r}, token={'***' if self.token else None})"

    # -- messages
    def _redact(self, text: str) -> str:
        return redact(text, self.token.reveal() if self.token else None)

    def _log(self, message: str, *args: object) -> None:
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(self._redact(message % args if args else message))

    # -- redirect rule
    def _allowed_target(self, target: str, file_download: bool) -> bool | None:
        """True: follow with the token (endpoint origin); False: follow without it (CDN); None: refuse."""
        if _origin(target) == _origin(self.endpoint):
            return True
        if not file_download:
            return None
        scheme, host, port = _origin(target)
        if scheme not in ("http", "https") or (urlsplit(self.endpoint).scheme == "https" and scheme != "https"):
            return None
        if scheme == "https" and any(host == s or host.endswith("." + s) for s in CDN_HOST_SUFFIXES):
            return False
        if host in self.cdn_hosts or f"{host}:{port}" in self.cdn_hosts:
            return False
        return None

    def _headers(self, with_token: bool, extra: Mapping[str, str] | None) -> dict[str, str | None]:
        headers: dict[str, str | None] = {"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, identity"}
        # None removes a session-level Authorization header from requests that leave the endpoint.
        headers["Authorization"] = f"Bearer {self.token.reveal()}" if (with_token and self.token) else None
        headers.update(extra or {})
        return headers

    def _send(self, url: str, with_token: bool, what: str, extra: Mapping[str, str] | None) -> requests.Response:
        """One GET with one retry on 429/5xx (honouring Retry-After up to 10 s), errors mapped to HubError."""
        attempt = 0
        while True:
            if self.deadline.expired:
                raise self._deadline_error(what)
            try:
                # requests drops a header whose per-request value is None; its stubs do not say so.
                headers = cast("dict[str, str]", self._headers(with_token, extra))
                timeout = self.deadline.timeout(*self.timeout)
                response = self.session.get(url, headers=headers, timeout=timeout, allow_redirects=False, stream=True)
            except requests.RequestException as exc:
                raise self._connection_error(exc, what) from None
            except ValueError:  # requests parses a redirect's Location even when not following it
                raise HubResponseError(
                    f"the reply for {what} is malformed (a redirect target or header); refused"
                ) from None
            self._log("GET %s -> %s", url, response.status_code)
            if (response.status_code == 429 or response.status_code >= 500) and attempt < self.retries:
                attempt += 1
                retry_after = ascii_int(response.headers.get("Retry-After"), digits=6)
                wait = self.backoff * attempt if retry_after is None else min(retry_after, MAX_RETRY_AFTER)
                if wait < self.deadline.remaining():  # else the status is the answer: no retry can finish in time
                    response.close()
                    self._log("retrying %s in %.2f s after HTTP %s", what, wait, response.status_code)
                    time.sleep(wait)
                    continue
            return response

    def _deadline_error(self, what: str) -> HubConnectionError:
        return HubConnectionError(
            f"timed out reading {what} from {hub_name(self.endpoint)}: the import did not finish within "
            f"the {self.deadline.seconds:g} s limit; the Hub is slow or the server sends too slowly, try again later"
        )

    def _connection_error(self, exc: requests.RequestException, what: str) -> HubError:
        host = hub_name(self.endpoint)
        text = str(exc)
        timed_out = isinstance(exc, requests.Timeout) or "timed out" in text.lower()
        if timed_out and self.deadline.remaining() < 0.05:
            return self._deadline_error(what)
        if timed_out:
            phase = "connecting to" if isinstance(exc, requests.ConnectTimeout) else "waiting for"
            return HubConnectionError(
                f"timed out {phase} {host} while reading {what}: the Hub is slow or unreachable; try again later"
            )
        if isinstance(exc, requests.ConnectionError):
            lowered = text.lower()
            if any(s in lowered for s in _DNS_FAILURES):
                return HubConnectionError(
                    f"cannot resolve {host} (DNS failure) while reading {what}: {endpoint_advice()}"
                )
            if "refused" in lowered:
                return HubConnectionError(f"connection to {host} refused while reading {what}: {endpoint_advice()}")
            return HubConnectionError(f"cannot connect to {host} while reading {what}: {endpoint_advice()}")
        return HubConnectionError(
            f"request to {host} failed while reading {what} ({type(exc).__name__}): try again later"
        )

    def get(
        self, path: str, *, what: str, file_download: bool, extra: Mapping[str, str] | None = None
    ) -> requests.Response:
        """GET ``path`` on the endpoint, following redirects under the rule in the module docstring."""
        url = self.endpoint + path
        with_token = True
        for _ in range(MAX_REDIRECTS + 1):
            response = self._send(url, with_token, what, extra)
            if response.status_code not in _REDIRECTS:
                return response
            location = response.headers.get("Location", "")
            response.close()
            try:
                target = urljoin(url, location)
                allowed = self._allowed_target(target, file_download)
                scheme, host, port = _origin(target)
            except ValueError:
                raise HubResponseError(f"refusing to follow a malformed redirect for {what}") from None
            if not location or allowed is None:
                raise HubResponseError(
                    f"refusing to follow a redirect for {what} to {scheme}://{clip(host, 100)}:{port}: only "
                    f"{hub_name(self.endpoint)} and, for file downloads, its CDN hosts are contacted"
                )
            with_token = with_token and allowed
            url = target
        raise HubResponseError(f"too many redirects while reading {what}")

    def stream(
        self, response: requests.Response, *, what: str, limit: int | None, may_stop: bool = False
    ) -> Generator[bytes]:
        """The body in chunks, at most ``limit`` bytes in all (more is an error; None: no limit, the caller stops).
        ``may_stop``: the caller may have what it needs before the end, so a longer declared length is not refused
        up front. The response is closed at the end, on an error, or when the caller stops iterating."""
        length = ascii_int(response.headers.get("Content-Length"))
        gzip = "gzip" in response.headers.get("Content-Encoding", "")
        if limit is not None and length is not None and length > limit and not (gzip or may_stop):
            response.close()
            raise HubResponseError(f"{what} is {length:,} bytes, over the {limit:,}-byte limit; refused")
        size = 0
        try:
            for chunk in response.iter_content(chunk_size=65_536):
                size += len(chunk)
                if limit is not None and size > limit:
                    raise HubResponseError(f"{what} is larger than the {limit:,}-byte limit; refused")
                yield chunk
                if self.deadline.expired:  # also for a caller's session without the DeadlineAdapter
                    raise self._deadline_error(what)
        except requests.RequestException as exc:
            raise self._connection_error(exc, what) from None
        finally:
            response.close()

    def read(self, response: requests.Response, *, what: str, limit: int, exact: int | None = None) -> bytes:
        """The body, at most ``limit`` bytes (more is an error), or exactly the first ``exact`` bytes."""
        if exact is None:
            return b"".join(self.stream(response, what=what, limit=limit))
        chunks: list[bytes] = []
        size = 0
        for chunk in self.stream(response, what=what, limit=None):
            chunks.append(chunk)
            size += len(chunk)
            if size >= exact:
                break
        return b"".join(chunks)[:exact]

    def get_file(self, path: str, *, what: str, repo_id: str, revision: str | None) -> requests.Response | None:
        """GET a repository file (a download): the response to read, None when the file does not exist."""
        response = self.get(path, what=what, file_download=True)
        if response.status_code == 404 and response.headers.get("X-Error-Code", "EntryNotFound") in (
            "EntryNotFound",
            "",
        ):
            response.close()
            return None
        raise_for_status(response, client=self, repo_id=repo_id, revision=revision, what=what)
        return response

    def get_json(
        self, path: str, *, what: str, limit: int, repo_id: str, revision: str | None, file: bool = False
    ) -> Any:
        """GET and parse a JSON document: an API entry, or (``file``) a repository file, None when missing."""
        if file:
            response = self.get_file(path, what=what, repo_id=repo_id, revision=revision)
            if response is None:
                return None
        else:
            response = self.get(path, what=what, file_download=False)
            raise_for_status(response, client=self, repo_id=repo_id, revision=revision, what=what)
        return parse_json(self.read(response, what=what, limit=limit), what, limit)


# -- status mapping ------------------------------------------------------------------------------------
def _error_detail(response: requests.Response) -> str:
    """The Hub's error text (``X-Error-Message``, else the reply's ``error`` field), for telling 404s apart."""
    detail = response.headers.get("X-Error-Message", "")
    if not detail:
        try:
            body = response.raw.read(MAX_ERROR_BODY, decode_content=True) if response.raw else b""
            data = load_json(body, what="the error reply", max_bytes=MAX_ERROR_BODY)
            detail = str(data.get("error", "")) if isinstance(data, dict) else ""
        except (PlannerError, OSError, AttributeError):
            detail = ""
    return detail[:200]


def raise_for_status(
    response: requests.Response, *, client: _Client, repo_id: str, revision: str | None, what: str
) -> None:
    """Nothing for a 2xx; else the :class:`HubError` the status (and ``X-Error-Code``) means, with what to do."""
    status = response.status_code
    if 200 <= status < 300:
        return
    code = response.headers.get("X-Error-Code", "")
    detail = _error_detail(response)
    response.close()
    page = repo_page(client.endpoint, repo_id)
    if status == 401 or (status == 403 and code == "GatedRepo"):
        raise _access_error(repo_id, page, code, has_token=client.token is not None)
    if status == 403:
        raise HubAccessError(
            f"{repo_id}: access forbidden (HTTP 403) while reading {what}; request access at {page} and "
            f"{token_advice()}"
        )
    if status == 404:
        raise _not_found_error(repo_id, revision, what, code, detail, client.endpoint)
    if status == 429:
        raise HubConnectionError(f"the Hub is rate-limiting requests (HTTP 429) while reading {what}; try later")
    if status >= 500:
        raise HubConnectionError(f"the Hub failed (HTTP {status}) while reading {what}; try again later")
    raise HubResponseError(f"unexpected HTTP {status} while reading {what} of {repo_id}")


def _access_error(repo_id: str, page: str, code: str, *, has_token: bool) -> HubAccessError:
    """401, or 403 GatedRepo: gated, private or a rejected token (huggingface_hub ``hf_raise_for_status``)."""
    if code == "GatedRepo":
        if not has_token:
            return HubAccessError(
                f"{repo_id} is gated: request access at {page} and {token_advice('a token of the approved account')}"
            )
        return HubAccessError(
            f"{repo_id} is gated and this token's account has no access yet: request access at {page} "
            "(approval can take a while), then retry"
        )
    if not has_token:
        return HubAccessError(
            f"{repo_id} is private or gated, or does not exist: if you have access, request it at {page} "
            f"and {token_advice('a token of that account')}"
        )
    checked = "the token" if to_a_visitor() else "HF_TOKEN"
    return HubAccessError(
        f"{repo_id}: the token was rejected (HTTP 401: invalid, expired, or without read access to this repo); "
        f"check {checked} and access at {page}"
    )


def _not_found_error(
    repo_id: str, revision: str | None, what: str, code: str, detail: str, endpoint: str
) -> HubNotFoundError:
    """404: the ``X-Error-Code`` tells a missing repository, revision or file apart."""
    if code == "RevisionNotFound" or (revision and code != "RepoNotFound" and "rev" in detail.lower()):
        return HubNotFoundError(f"revision {revision!r} not found in {repo_id}: check the branch, tag or sha")
    if code == "EntryNotFound":
        return HubNotFoundError(f"{what} not found in {repo_id}")
    return HubNotFoundError(
        f"model repository {repo_id} not found on {hub_name(endpoint)}: check the spelling (owner/name)"
        + (f" and the revision {revision!r}" if revision and code != "RepoNotFound" else "")
    )


def parse_json(body: bytes, what: str, limit: int) -> Any:
    """``body`` as JSON through the bounded loader, or a :class:`HubResponseError` naming ``what`` and the problem."""
    try:
        return load_json(body, what=what, max_bytes=limit)
    except PlannerError as exc:
        raise HubResponseError(str(exc)) from None
