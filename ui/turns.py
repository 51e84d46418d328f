"""Who draws next: admission and fair sharing of the server's page runs between sessions (issue 25 finding 3).

At most :data:`SLOTS` runs draw at once, which bounds the server's memory by runs in flight rather than by
visitors. Python runs one thread at a time, so the runs in flight share one core; admitted in order of arrival,
ten sessions looping the heaviest links (an advisor ranking of five models, 2-3 s of CPU a run) and eight looping a
failing Hub import made a plain Memory page wait 20 s (``make bench``: :mod:`bench.attack`). Here:

- **Fair order.** Waiting runs start by their session's recent use of the server (:meth:`Turns.cost`: seconds its
  runs held a slot, halved every :data:`HALF_LIFE_S`), least first, less :data:`AGING` for every second waited (so
  none starves): a visitor who has used little goes ahead of sessions that loop pages.
- **Heavy runs share one lane.** A run is heavy when its session is busy (its use is :data:`FRESH_S` or more, or
  it ran :data:`FRESH_RUNS` runs or more, counted as use is: a session looping even cheap pages) or once the
  run has used :data:`HEAVY_AFTER_S` of CPU itself; at most
  :data:`HEAVY_SLOTS` heavy runs draw at once. A run that turns heavy while the lane is taken gives its slot up
  at its next check and waits, in fair order. It holds what it has built so far, so at most :data:`MAX_PAUSED`
  wait so: past that, the one whose session used the most is stopped with a named error.
- **Heavy pages yield to light ones.** A heavy run starts only while no light one draws or waits (unless it has
  waited :data:`PATIENCE_S`), and, drawing, after each :data:`QUANTUM_S` it pauses while a light run draws, for at
  most :data:`YIELD_RATIO` quanta and :data:`MAX_YIELDED_S` in all: a visitor's page gets the core, and a heavy
  page still ends within its budget.
- **Shared work keeps its slot.** A run computing what other runs may wait for (a cached answer in flight:
  Streamlit's caches hold the key's lock while computing, :mod:`ui.shared_cache` makes other sessions wait) turns
  heavy but does not give its slot up (:func:`shared_work`, :func:`shares_work`): paused, it would wait for a slot
  that the runs waiting for its answer hold, until every budget ran out (:mod:`bench.load` saw 25 sessions stall
  20 s on one advisor link).
- **One run per session.** A session's run waits while another of its runs draws; a waiting run gives way when
  its session asks for a newer one (the ``on_wait`` callback: Streamlit's stop/rerun check raises).

Use is the time a run holds its slot, not its thread's CPU time: much of the server's work for a run (its messages
serialised and sent, the script's set-up) is done by other threads while it holds its slot. The rules are measured,
not tuned here: bench/attack.py reports the visitor's page time beside the same visits without the attack, and
bench/load.py what 25 sessions opening links without pause see.

A run's checks are :func:`planner.bounds.walltime.check`, which every planning loop calls (hooked with
:func:`planner.bounds.walltime.pausing`). Pure Python, no Streamlit: tests drive it with threads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import wraps
from typing import ParamSpec, TypeVar

from planner.bounds.errors import PlannerError
from planner.bounds.walltime import pausing

SLOTS = 3  # runs drawing at once: the server's memory is bounded by runs in flight (bench/load.py measures it)
HEAVY_SLOTS = 1  # heavy runs among them
# A Memory page's run uses ~0.02-0.06 s of its thread's CPU (bench/attack.py, the visitor's links); an advisor
# ranking of five models 2-3 s.
HEAVY_AFTER_S = 0.25
# A session whose runs held slots less than this (decayed) is fresh. A Memory page holds its slot ~0.1-0.5 s under
# load, so a visitor reading each page for a while stays fresh (ten pages a minute: ~1 s a minute, ~0.3 s of use
# with a 20 s half-life), while a session looping links back to back is busy after a few.
FRESH_S = 1.0
# And that ran fewer runs than this (decayed as its use is): busy past either. A cheap page holds its slot ~0.05 s,
# so a session looping cheap pages back to back stayed fresh by its seconds alone, though each of its runs costs the
# event loop its request and its ~50 messages outside any slot (bench/attack.py: eight sessions looping a failing
# Hub import drawn as light pages, and a visitor's cold link waiting 0.4-1.0 s between its two runs for each round
# of theirs).
# A person reading a page every 6 s counts at most ~5.3 runs, a cold link 2, the load test's visitor (three links in
# one session) at most 6; a session asking for a page every 5 s or faster for a while is looping, whatever its pages
# cost (1 run every 5 s: 6.3).
FRESH_RUNS = 6.0
HALF_LIFE_S = 20.0
AGING = 1.0  # a waiting run's session is forgiven this many seconds of use per second it waits
MAX_PAUSED = 8
PATIENCE_S = 2.0  # a heavy run held back for light pages starts anyway after waiting this long
QUANTUM_S = 0.05  # a heavy run draws this long between two pauses for light pages
YIELD_RATIO = 4.0  # and pauses at most this many quanta
MAX_YIELDED_S = 2.0  # and at most this long in all: it holds the lane, which other heavy runs wait for
CHECK_EVERY_S = 0.005  # wall seconds between two looks at the others from one run (checks come far more often)
POLL_S = 0.1  # a waiting run looks at its session's newer requests this often
MAX_SESSIONS = 4_096  # sessions whose use is remembered (the ones that used least are forgotten first)
Callback = Callable[[], None] | None
BUSY = "The server is busy with other visitors' pages; this one waited its whole budget for a turn. Reload in a moment."
STOPPED = (
    "The server is busy with other visitors' heavy pages; this one was stopped to let lighter ones go first. "
    "Reload in a moment."
)


P = ParamSpec("P")
R = TypeVar("R")
_SHARED_WORK: ContextVar[int] = ContextVar("headroom_shared_work", default=0)


@contextmanager
def shared_work() -> Iterator[None]:
    """The block computes what other runs may be waiting for: its run keeps its slot (see the module docstring)."""
    token = _SHARED_WORK.set(_SHARED_WORK.get() + 1)
    try:
        yield
    finally:
        _SHARED_WORK.reset(token)


def computing_shared() -> bool:
    """Whether this thread is inside :func:`shared_work`."""
    return _SHARED_WORK.get() > 0


def shares_work(func: Callable[P, R]) -> Callable[P, R]:
    """``func`` runs as :func:`shared_work`: put it under a cache's decorator, so that it marks the computation
    the cache's other callers wait for (a test holds every cached function of the dashboard to it)."""

    @wraps(func)
    def marked(*args: P.args, **kwargs: P.kwargs) -> R:
        with shared_work():
            return func(*args, **kwargs)

    return marked


class Busy(PlannerError):
    """A run got no turn within its budget, or was stopped while waiting to let others go first."""


@dataclass(eq=False)
class Run:
    """One page run: its session, when it arrived, whether it is heavy, and its CPU clock."""

    session: str
    arrived: float
    deadline: float
    heavy: bool
    on_wait: Callback = None
    cpu_start: float = 0.0  # its thread's CPU clock when admitted (it turns heavy by its own CPU use)
    next_look: float = 0.0
    resumed: float = 0.0  # when it last started drawing (admitted, or back from a pause for light pages)
    since: float = 0.0  # when it last got a slot
    held: float = 0.0  # seconds it has held a slot (what its session is charged)
    yielded: float = 0.0  # seconds it paused for light pages
    paused: bool = False  # gave its slot up mid-run, holding what it built so far
    stopped: bool = False


class Turns:
    """The admission of page runs (see the module docstring); one per server process (:data:`TURNS`)."""

    def __init__(
        self,
        slots: int = SLOTS,
        heavy_slots: int = HEAVY_SLOTS,
        clock: Callable[[], float] = time.monotonic,
        cpu: Callable[[], float] = time.thread_time,
    ) -> None:
        self.slots, self.heavy_slots, self._clock, self._cpu = slots, heavy_slots, clock, cpu
        self._cond = threading.Condition()
        self._running: list[Run] = []
        self._waiting: list[Run] = []
        self._usage: dict[str, tuple[float, float, float]] = {}  # session -> (seconds held, runs, when)

    # -- accounting
    def cost(self, session: str) -> float:
        """The session's recent use of the server: the seconds its runs held a slot, halved every
        :data:`HALF_LIFE_S`. Held time, not the run's own CPU time: the server's work for a run (its messages
        serialised and sent, the script's set-up) is done by other threads, but while the run holds its slot."""
        return self._decayed(session)[0]

    def runs(self, session: str) -> float:
        """The runs the session ran (each admitted run, charged at its end), decayed as its :meth:`cost` is."""
        return self._decayed(session)[1]

    def busy(self, session: str) -> bool:
        """Whether the session's runs start heavy: its use is :data:`FRESH_S` or more, or its runs
        :data:`FRESH_RUNS` or more."""
        seconds, runs = self._decayed(session)
        return seconds >= FRESH_S or runs >= FRESH_RUNS

    def _busyness(self, session: str) -> float:
        """How near the session is to busy, by its seconds or its runs: the least busy are forgotten first."""
        seconds, runs = self._decayed(session)
        return max(seconds / FRESH_S, runs / FRESH_RUNS)

    def _decayed(self, session: str) -> tuple[float, float]:
        seconds, runs, at = self._usage.get(session, (0.0, 0.0, 0.0))
        factor = 0.5 ** ((self._clock() - at) / HALF_LIFE_S) if runs else 0.0
        return seconds * factor, runs * factor

    def _charge(self, session: str, seconds: float) -> None:
        before, runs = self._decayed(session)
        self._usage[session] = (before + max(0.0, seconds), runs + 1, self._clock())
        if len(self._usage) > MAX_SESSIONS:
            for name in sorted(self._usage, key=self._busyness)[: MAX_SESSIONS // 4]:
                del self._usage[name]

    # -- admission
    def _is_next(self, run: Run) -> bool:
        """Whether ``run`` is the waiting run to start now (see the module docstring for the rules)."""
        now = self._clock()
        costs = {w.session: self.cost(w.session) for w in self._waiting}
        drawing = {r.session for r in self._running}
        heavy_drawing = sum(r.heavy for r in self._running)
        light_present = any(not r.heavy for r in (*self._running, *self._waiting))

        def ready(w: Run) -> bool:
            if len(self._running) >= self.slots or w.session in drawing:
                return False
            if not w.heavy:
                return True
            # one lane, and only while no light page draws or waits (unless it has waited PATIENCE_S)
            return heavy_drawing < self.heavy_slots and (not light_present or now - w.arrived >= PATIENCE_S)

        candidates = [w for w in self._waiting if ready(w)]
        return bool(candidates) and min(candidates, key=lambda w: costs[w.session] - AGING * (now - w.arrived)) is run

    def _wait(self, run: Run) -> None:
        """Wait (holding the condition) until ``run`` may start, then count it as running; raises :class:`Busy`."""
        self._waiting.append(run)
        try:
            while run.stopped or not self._is_next(run):
                if run.stopped:
                    raise Busy(STOPPED)
                left = run.deadline - self._clock()
                if left <= 0:
                    raise Busy(BUSY)
                self._cond.wait(min(left, POLL_S))
                if run.on_wait is not None:
                    run.on_wait()
        finally:
            self._waiting.remove(run)
            self._cond.notify_all()
        self._running.append(run)
        run.paused = False
        run.since = run.resumed = self._clock()

    def admit(self, session: str, seconds: float, on_wait: Callback = None) -> Run:
        """Wait at most ``seconds`` for a turn, in fair order; the run (raises :class:`Busy`, or what ``on_wait``
        raises: a newer request of the session)."""
        now = self._clock()
        with self._cond:
            run = Run(session, now, now + seconds, self.busy(session), on_wait)
            for older in self._waiting:  # one waiting run per session: the newer request wins
                older.stopped = older.stopped or older.session == session
            self._wait(run)
        run.cpu_start = self._cpu()
        return run

    @contextmanager
    def running(self, run: Run) -> Iterator[None]:
        """The admitted ``run`` draws: its checks may pause it; its end frees its slot and charges its session."""
        try:
            with pausing(lambda: self.checkpoint(run)):
                yield
        finally:
            with self._cond:
                if run in self._running:
                    self._running.remove(run)
                    run.held += self._clock() - run.since
                self._charge(run.session, run.held)
                self._cond.notify_all()

    # -- during a run
    def checkpoint(self, run: Run) -> None:
        """At a planning check: turn heavy past :data:`HEAVY_AFTER_S` (waiting for the lane), or, heavy, let a
        light run go first for a moment."""
        now = self._clock()
        if now < run.next_look:
            return
        run.next_look = now + CHECK_EVERY_S
        with self._cond:
            if not run.heavy and self._cpu() - run.cpu_start >= HEAVY_AFTER_S:
                self._turn_heavy(run)
            elif run.heavy and now - run.resumed >= QUANTUM_S and run.yielded < MAX_YIELDED_S:
                self._cond.wait_for(self._no_light_page, timeout=YIELD_RATIO * QUANTUM_S)
                run.resumed = self._clock()
                run.yielded += run.resumed - now

    def _no_light_page(self) -> bool:
        return all(r.heavy for r in self._running)

    def _turn_heavy(self, run: Run) -> None:
        run.heavy = True
        if sum(r.heavy for r in self._running) <= self.heavy_slots or computing_shared():
            return  # the lane was free, or others wait for what it computes: it keeps drawing
        self._running.remove(run)
        run.held += self._clock() - run.since
        run.paused = True
        paused = [w for w in self._waiting if w.paused and not w.stopped] + [run]
        if len(paused) > MAX_PAUSED:
            costliest = max(paused, key=lambda w: (self.cost(w.session), w.arrived))
            costliest.stopped = True
            if costliest is run:
                self._cond.notify_all()
                raise Busy(STOPPED)
        self._cond.notify_all()
        self._wait(run)


TURNS = Turns()
