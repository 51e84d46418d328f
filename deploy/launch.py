"""``python -m deploy.launch run app.py [options]``: Streamlit's command line, with every connection's small
messages sent at once (``TCP_NODELAY``) and the cyclic garbage collector run less often (:func:`tune_gc`).

Why. Streamlit 1.67 binds its listening socket itself (``socket.socket(family=...)``, ``_bind_socket`` in
``streamlit/web/server/starlette/starlette_server.py``), so the socket's protocol number is 0, and each accepted
connection inherits it. asyncio sets ``TCP_NODELAY`` on a connection only when that number is ``IPPROTO_TCP``
(``asyncio/base_events.py`` ``_set_nodelay``, Python 3.8-3.14), so Nagle's algorithm stays on. It holds a page run's
messages back until the browser acknowledges the ones before, and Linux delays that acknowledgement by up to 40 ms.
uvicorn hit the same problem with its own pre-bound socket (Kludex/uvicorn issue #3149, pull request #3155).

Measured here (a websocket client on loopback, 20 runs of a one-line page): every run took 44 ms; with the client
acknowledging at once (``TCP_QUICKACK``) 6 ms. With this module a Memory link alone takes 14-17 ms instead of 45,
and a cold link's page scripts stop waiting too (``make bench``: the floor page 1.02 -> 0.80 s, the Memory chart
1.17 -> 1.00 s); a slider move in the browser did not change measurably (its drawing is its time).

:func:`enable_nodelay` makes asyncio set ``TCP_NODELAY`` on every TCP connection whatever its protocol number;
:func:`main` does it before Streamlit starts. ``make run``, ``make serve`` (each replica), the container image and
the tests' servers start Streamlit this way.
"""

from __future__ import annotations

import contextlib
import gc
import socket
import sys
from asyncio import base_events
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_MARK = "_headroom_nodelay"
# CPython collects its youngest generation every 700 net allocations of container objects (tuples, dicts, models). An
# advisor ranking at a new context allocates some hundreds of thousands, nearly all freed by reference counting, and
# the server's collections took 10-48 ms of each slider move (25-33 of them a run, timed with gc.callbacks in the
# dashboard, 2026-12-05); at 50,000 a run makes about one. The older generations keep CPython's ratios (10, 10):
# a reference cycle that outlives a young collection is looked at again after ~500,000 allocations and the oldest
# after ~5 million (700: ~7,000 and ~70,000), a run or a few of a busy server, so memory held only by cycles (a
# traceback's frames) is freed a few runs later than before.
GC_THRESHOLD = (50_000, 10, 10)


def _is_tcp(sock: socket.socket) -> bool:
    return sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM


def enable_nodelay() -> bool:
    """From now on, asyncio's transports set ``TCP_NODELAY`` on every TCP socket (idempotent); whether asyncio has
    the hook (False on a Python without ``asyncio.base_events._set_nodelay``: nothing changed)."""
    original: Any = getattr(base_events, "_set_nodelay", None)
    if original is None:
        return False
    if getattr(original, _MARK, False):
        return True

    def set_nodelay(sock: socket.socket) -> None:
        if not _is_tcp(sock):
            original(sock)
            return
        with contextlib.suppress(OSError):  # a socket already closed by its peer
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    setattr(set_nodelay, _MARK, True)
    base_events._set_nodelay = set_nodelay  # type: ignore[attr-defined]
    return True


def command(script: Path, options: Sequence[str] = ()) -> list[str]:
    """The command that serves ``script`` with Streamlit ``options`` through this module (this interpreter)."""
    return [sys.executable, "-m", "deploy.launch", "run", str(script), *options]


def tune_gc() -> tuple[int, int, int]:
    """The collector's thresholds set to :data:`GC_THRESHOLD` (the comment above it); the thresholds in force."""
    gc.set_threshold(*GC_THRESHOLD)
    return gc.get_threshold()


def main(argv: list[str] | None = None) -> None:
    """Streamlit's command line (``streamlit run app.py ...``) with :func:`enable_nodelay` and :func:`tune_gc` in
    effect."""
    from streamlit.web.cli import main as streamlit_main

    enable_nodelay()
    tune_gc()
    sys.argv = ["streamlit", *(sys.argv[1:] if argv is None else argv)]
    streamlit_main(prog_name="streamlit")


if __name__ == "__main__":
    main()
