"""The one interpreter lock in a long-lived server: how soon a waiting thread gets it.

A Streamlit process runs every session's script in a thread of its own and all of its I/O (each visitor's request
arriving, every message sent) on one event-loop thread, under one interpreter lock. A thread that waits for the
lock asks for it and gets it only after the holder's *switch interval* (5 ms by default, :func:`sys.setswitchinterval`)
and it gives it back at its next I/O wait, so with a few scripts drawing at once the event loop gets the lock a
few hundred times a second at most: each of the hundreds of messages a second that looping sessions send, and the
message that asks for a visitor's page, waits in line behind the scripts (the convoy effect of a CPU-bound thread
beside an I/O-bound one; Beazley, "Understanding the Python GIL", PyCon 2010; CPython's ``Python/ceval_gil.c``).

Measured with :mod:`bench.attack` (a plain Memory link opened while ten sessions loop advisor rankings and eight
loop a failing Hub import) and :mod:`bench.load` (25 sessions opening links without pause, 30 s), 2026-12-03 on
this machine (2 cores), visitor p50 under attack (alone: 45 ms) | load p95:

- 5 ms (the default): 1.4-2.1 s | 1.06-1.23 s. The visitor's script, once started, took ~30 ms: the rest was its
  request waiting for the event loop.
- 2 ms: 0.42-0.85 s | 1.08-1.11 s;  **1 ms: 0.39-0.54 s | 1.25-1.40 s**;  0.5 ms: 0.31-0.34 s | 1.28-1.54 s.

1 ms keeps a visitor's page well inside the attack's bound (twice its time alone plus 1 s) at a small cost to a
team's load (more lock hand-offs while threads contend; one session alone is unchanged).

>>> import sys
>>> share_the_lock()
>>> sys.getswitchinterval() == SWITCH_INTERVAL_S
True
"""

from __future__ import annotations

import sys

SWITCH_INTERVAL_S = 0.001  # see the module docstring: measured by bench/attack.py and bench/load.py


def share_the_lock() -> None:
    """Set the process's switch interval to :data:`SWITCH_INTERVAL_S` (once a process; a run calls it each time)."""
    if sys.getswitchinterval() != SWITCH_INTERVAL_S:
        sys.setswitchinterval(SWITCH_INTERVAL_S)
