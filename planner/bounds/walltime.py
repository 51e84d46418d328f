"""A wall-clock budget for a piece of work that can grow (a page run, a CLI command): a deadline kept in a
:class:`contextvars.ContextVar`, and :func:`check`, called in every loop whose length depends on the input,
raising :class:`BudgetExceeded` (a :class:`PlannerError`, so every surface names it) once the deadline has passed.

Pure: no thread, no signal. A budget only stops work that checks it, so the loops that can grow call
:func:`check` (the advisor's enumeration, curves, binary searches, every plan and assessment). Budgets nest; the
earlier deadline wins.

The same checks are where long work can let other work go first: inside :func:`pausing`, :func:`check` also calls
the given hook (the dashboard's fair sharing of the server between visitors, ``ui.turns``), which may wait.

>>> with budget(60, "this example"):
...     check()
>>> with budget(0, "an empty budget"):
...     check()
Traceback (most recent call last):
planner.bounds.walltime.BudgetExceeded: an empty budget took longer than its budget of 0 s and was stopped; ...
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from planner.bounds.errors import PlannerError

__all__ = ["BudgetExceeded", "budget", "check", "pausing", "remaining"]


class BudgetExceeded(PlannerError):
    """The work took longer than its wall-clock budget and was stopped."""


@dataclass(frozen=True)
class _Deadline:
    at: float  # time.monotonic()
    seconds: float
    what: str


_DEADLINE: ContextVar[_Deadline | None] = ContextVar("headroom_deadline", default=None)
_PAUSE: ContextVar[Callable[[], None] | None] = ContextVar("headroom_pause", default=None)


@contextmanager
def budget(seconds: float, what: str = "the request") -> Iterator[None]:
    """Run the block under a deadline ``seconds`` from now (an enclosing earlier deadline stays in force)."""
    deadline = _Deadline(time.monotonic() + seconds, seconds, what)
    current = _DEADLINE.get()
    token = _DEADLINE.set(deadline if current is None or deadline.at < current.at else current)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


@contextmanager
def pausing(hook: Callable[[], None]) -> Iterator[None]:
    """Call ``hook`` at every :func:`check` in the block (it may wait, or raise a :class:`PlannerError`)."""
    token = _PAUSE.set(hook)
    try:
        yield
    finally:
        _PAUSE.reset(token)


def check() -> None:
    """Raise :class:`BudgetExceeded` when the current deadline has passed (nothing without a budget); inside
    :func:`pausing`, then call its hook."""
    deadline = _DEADLINE.get()
    if deadline is not None and time.monotonic() >= deadline.at:
        raise BudgetExceeded(
            f"{deadline.what} took longer than its budget of {deadline.seconds:g} s and was stopped; a shorter "
            "context, fewer GPU counts or a smaller model plan faster"
        )
    hook = _PAUSE.get()
    if hook is not None:
        hook()


def remaining() -> float | None:
    """Seconds left in the current budget (``None`` without one)."""
    deadline = _DEADLINE.get()
    return None if deadline is None else deadline.at - time.monotonic()
