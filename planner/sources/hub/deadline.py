"""One time limit for a whole import, enforced on every socket read, however slowly a server trickles.

Per-read time-outs (``requests``' ``timeout=(connect, read)``) bound the wait for the *next* byte: a server
that sends one byte a second never trips them, in the status line, the headers or the body. So an import
carries a :class:`Deadline`, and while it is active (:func:`active`, a context variable: one per thread),
the connections of :class:`DeadlineAdapter` read through :class:`_DeadlineReader`, which before every
``recv`` shrinks the socket's time-out to what is left and raises :class:`TimeoutError` once nothing is.
``urllib3`` turns that into a read time-out, and the client into a :class:`HubConnectionError`.

The adapter works below ``http.client`` (``HTTPResponse.fp`` is what every read of the status line, the
headers and the body goes through); the pool classes are swapped in ``init_poolmanager``, the documented
place to customise a ``requests`` adapter's pool manager.
"""

from __future__ import annotations

import http.client
import io
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

__all__ = ["Deadline", "DeadlineAdapter", "active"]

_ACTIVE: ContextVar[Deadline | None] = ContextVar("planner_hub_deadline", default=None)


class Deadline:
    """A point in time (``time.monotonic``) ``seconds`` from now, after which an import gives up."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return self.end - time.monotonic()

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0

    def timeout(self, connect: float, read: float) -> tuple[float, float]:
        """A ``(connect, read)`` time-out no longer than what is left (at least 1 ms: 0 would mean none)."""
        left = max(self.remaining(), 0.001)
        return min(connect, left), min(read, left)


@contextmanager
def active(deadline: Deadline) -> Iterator[Deadline]:
    """Make ``deadline`` the one every read of a :class:`DeadlineAdapter` connection honours, in this context."""
    token = _ACTIVE.set(deadline)
    try:
        yield deadline
    finally:
        _ACTIVE.reset(token)


class _DeadlineReader(io.RawIOBase):
    """A socket's bytes, each ``recv`` bounded by the active deadline (like ``socket.SocketIO`` otherwise)."""

    def __init__(self, sock: socket.socket, plain: io.BufferedIOBase) -> None:
        super().__init__()
        self._sock = sock
        self._plain = plain  # the socket file http.client opened: holds the socket open until this closes

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            self._plain.close()
        super().close()

    def readinto(self, buffer: Any) -> int:
        deadline = _ACTIVE.get()
        if deadline is None:
            return self._sock.recv_into(buffer)
        left = deadline.remaining()
        if left <= 0:
            raise TimeoutError("the import's time limit is spent")
        base = self._sock.gettimeout()
        self._sock.settimeout(left if base is None else min(base, left))
        try:
            return self._sock.recv_into(buffer)
        finally:
            self._sock.settimeout(base)


class _DeadlineResponse(http.client.HTTPResponse):
    """``http.client``'s response, reading the socket through :class:`_DeadlineReader`."""

    def __init__(
        self, sock: socket.socket, debuglevel: int = 0, method: str | None = None, url: str | None = None
    ) -> None:
        super().__init__(sock, debuglevel, method, url)
        # Nothing was read from the base class's socket file yet: read through the deadline instead, and keep
        # that file (it counts as a reference to the socket, so closing the connection waits for this response).
        self.fp = io.BufferedReader(_DeadlineReader(sock, self.fp))


class _HTTPConnection(HTTPConnection):
    response_class = _DeadlineResponse


class _HTTPSConnection(HTTPSConnection):
    response_class = _DeadlineResponse


class _HTTPPool(HTTPConnectionPool):
    ConnectionCls = _HTTPConnection


class _HTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _HTTPSConnection


_POOLS = {"http": _HTTPPool, "https": _HTTPSPool}


class DeadlineAdapter(HTTPAdapter):
    """A ``requests`` adapter whose connections honour the active :class:`Deadline` on every read.

    Direct connections and those through an HTTP(S) proxy; a SOCKS proxy keeps its own connection classes
    (then the per-read time-outs and the checks between reads still apply).
    """

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any) -> None:
        super().init_poolmanager(connections, maxsize, block, **pool_kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(_POOLS)

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if proxy.lower().startswith(("http://", "https://")):
            manager.pool_classes_by_scheme = dict(_POOLS)
        return manager
