"""ui.turns: who draws next (issue 25 finding 3). Each rule driven with threads, a clock the test moves and a CPU
clock it sets; nothing here is timed (the effect on a visitor's page is measured by ``make bench``,
bench/attack.py)."""

from __future__ import annotations

import ast
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

import pytest

from planner.bounds.walltime import check
from ui import turns
from ui.turns import Busy, Run, Turns


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def cpu() -> Clock:
    return Clock()


def _turns(clock: Clock, cpu: Clock, slots: int = 2) -> Turns:
    return Turns(slots=slots, heavy_slots=1, clock=clock, cpu=cpu)


def _use(t: Turns, clock: Clock, session: str, seconds: float) -> None:
    """``session`` holds a slot for ``seconds``."""
    run = t.admit(session, 60)
    with t.running(run):
        clock.now += seconds


class Waiter:
    """``admit`` in a thread: whether and when it got its turn, or what it raised."""

    order: ClassVar[list[str]] = []

    def __init__(self, t: Turns, session: str, seconds: float = 60) -> None:
        self.t, self.session, self.run, self.error = t, session, None, None
        self.started = threading.Event()
        self.thread = threading.Thread(target=self._admit, args=(seconds,), daemon=True)
        self.thread.start()
        _until(lambda: any(w.session == session for w in t._waiting) or self.started.is_set() or self.error)

    def _admit(self, seconds: float) -> None:
        try:
            self.run = self.t.admit(self.session, seconds)
            Waiter.order.append(self.session)
        except Busy as exc:
            self.error = exc
        self.started.set()

    def done(self) -> None:
        assert self.run is not None
        with self.t.running(self.run):
            pass


def _until(condition, seconds: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the scheduler"
        time.sleep(0.005)


@contextmanager
def _held(t: Turns, session: str) -> Iterator[Run]:
    run = t.admit(session, 60)
    with t.running(run):
        yield run


def test_a_visitor_who_used_little_goes_before_a_session_that_loops(clock: Clock, cpu: Clock) -> None:
    t = _turns(clock, cpu, slots=1)
    _use(t, clock, "looper", 0.3)  # fresh still (under FRESH_S), but it has used the server
    Waiter.order = []
    with _held(t, "someone"):
        looper = Waiter(t, "looper")
        clock.now += 0.01
        fresh = Waiter(t, "fresh")
    _until(lambda: fresh.started.is_set())
    assert Waiter.order == ["fresh"] and not looper.started.is_set()
    fresh.done()
    _until(lambda: looper.started.is_set())
    looper.done()


def test_a_session_looping_cheap_pages_turns_busy_by_its_runs(clock: Clock, cpu: Clock) -> None:
    """Eight sessions looping a failing Hub import (a cheap page, ~0.05 s in its slot) stayed fresh by their seconds
    and were drawn as light pages beside a visitor's (bench/attack.py): runs count as well as seconds."""
    t = _turns(clock, cpu, slots=4)
    cheap = 0.05
    for _ in range(int(turns.FRESH_RUNS) - 1):
        _use(t, clock, "looper", cheap)
    assert t.cost("looper") < turns.FRESH_S and not t.admit("looper", 60).heavy  # a few cheap runs: fresh still
    t._running.clear()
    for _ in range(2):  # two more back to back (the count decays a little while it loops)
        _use(t, clock, "looper", cheap)
    assert t.cost("looper") < turns.FRESH_S  # its seconds alone would keep it fresh
    assert t.admit("looper", 60).heavy  # busy by its runs, whatever they cost
    t._running.clear()
    clock.now += turns.HALF_LIFE_S  # a person reading a while: its count halves, and it is fresh again
    assert not t.busy("looper")


def test_a_cold_link_and_a_reader_stay_fresh(clock: Clock, cpu: Clock) -> None:
    t = _turns(clock, cpu, slots=4)
    for _ in range(2):  # a cold link: its first paint, then the rest once the chart is drawn
        _use(t, clock, "visitor", 0.1)
    assert not t.busy("visitor")
    for _ in range(6):  # the load test's visitor: three links in one session, two runs each, back to back
        assert not t.busy("team")
        _use(t, clock, "team", 0.1)
    for _ in range(30):  # ten pages a minute for three minutes
        _use(t, clock, "reader", 0.1)
        clock.now += 6.0
    assert t.runs("reader") < turns.FRESH_RUNS and not t.busy("reader")


def test_heavy_sessions_share_one_lane_and_wait_for_light_pages(clock: Clock, cpu: Clock) -> None:
    t = _turns(clock, cpu, slots=4)
    for session in ("a", "b"):
        _use(t, clock, session, turns.FRESH_S + 1)
    a = t.admit("a", 60)
    assert a.heavy
    with t.running(a):
        b = Waiter(t, "b")
        with _held(t, "fresh") as fresh:  # a light page draws beside the heavy one, a slot being free
            assert not fresh.heavy
        assert not b.started.is_set()  # the lane is taken
    _until(lambda: b.started.is_set())
    b.done()


def test_a_heavy_run_waits_while_a_light_page_draws_unless_it_has_waited_long(clock: Clock, cpu: Clock) -> None:
    t = _turns(clock, cpu, slots=4)
    _use(t, clock, "looper", turns.FRESH_S + 1)
    with _held(t, "fresh"):
        looper = Waiter(t, "looper")
        time.sleep(2 * turns.POLL_S)
        assert not looper.started.is_set()
        clock.now += turns.PATIENCE_S  # waited long enough: a stream of light pages does not starve it
        _until(lambda: looper.started.is_set())
    looper.done()


def test_one_run_per_session_and_the_newer_request_wins(clock: Clock, cpu: Clock) -> None:
    t = _turns(clock, cpu, slots=2)
    with _held(t, "s"):
        older = Waiter(t, "s")  # a free slot, but its session already draws
        newer = Waiter(t, "s")
        _until(lambda: older.error is not None)
        assert "stopped" in str(older.error)
        assert not newer.started.is_set()
    _until(lambda: newer.started.is_set())
    newer.done()


def test_a_run_without_a_turn_within_its_budget_is_told_so() -> None:
    t = Turns(slots=1)
    with _held(t, "someone"), pytest.raises(Busy, match="waited its whole budget"):
        t.admit("late", 0.05)


def _lane_taken(clock: Clock, cpu: Clock, session: str) -> tuple[Turns, Run, Run]:
    """Two slots: a busy session's run holding the heavy lane, and ``session``'s light run admitted beside it."""
    t = _turns(clock, cpu, slots=2)
    _use(t, clock, "heavy", turns.FRESH_S + 1)
    return t, t.admit("heavy", 60), t.admit(session, 60)


def _past_the_mark(clock: Clock, cpu: Clock) -> None:
    """The run's own CPU use passes the heavy mark, and its next check looks at the others."""
    cpu.now += turns.HEAVY_AFTER_S
    clock.now += turns.CHECK_EVERY_S


def test_a_run_that_turns_heavy_gives_its_slot_up_while_the_lane_is_taken(clock: Clock, cpu: Clock) -> None:
    t, lane, run = _lane_taken(clock, cpu, "grows")
    outcome: list[str] = []

    def draw() -> None:
        with t.running(run):
            _past_the_mark(clock, cpu)
            check()  # a planning loop's check: it waits here for the lane
            outcome.append("resumed")

    thread = threading.Thread(target=draw, daemon=True)
    with t.running(lane):
        thread.start()
        _until(lambda: run in t._waiting)
        assert run.heavy and run.paused and run not in t._running
        third = t.admit("third", 1)  # its slot went to another page
        with t.running(third):
            pass
        assert not outcome
    _until(lambda: outcome == ["resumed"])
    thread.join(5)


def test_a_run_computing_shared_work_keeps_its_slot_when_it_turns_heavy(clock: Clock, cpu: Clock) -> None:
    """A cached computation others may wait for (their runs holding slots) is never paused for a slot: paused, it
    would wait for the slots its waiters hold until every budget ran out (bench/load.py saw 25 sessions stall 20 s
    on one advisor link)."""
    t, lane, run = _lane_taken(clock, cpu, "computes")
    outcome: list[str] = []

    def draw() -> None:
        with t.running(run), turns.shared_work():
            _past_the_mark(clock, cpu)
            check()
            outcome.append("went on")

    with t.running(lane):
        thread = threading.Thread(target=draw, daemon=True)
        thread.start()
        thread.join(5)
        assert outcome == ["went on"] and run.heavy and not run.paused


@turns.shares_work
def _computed(value: int) -> int:
    """A computation others may wait for."""
    check()
    return value * 2


def test_shares_work_marks_the_whole_call_and_keeps_the_function(clock: Clock, cpu: Clock) -> None:
    t, lane, run = _lane_taken(clock, cpu, "computes")
    results: list[int] = []

    def draw() -> None:
        with t.running(run):
            _past_the_mark(clock, cpu)
            results.append(_computed(21))

    with t.running(lane):
        thread = threading.Thread(target=draw, daemon=True)
        thread.start()
        thread.join(5)
        assert results == [42] and not run.paused
    assert _computed.__name__ == "_computed" and "others may wait" in (_computed.__doc__ or "")


def test_past_max_paused_the_costliest_paused_run_is_stopped(clock: Clock, cpu: Clock, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(turns, "MAX_PAUSED", 1)
    t = _turns(clock, cpu, slots=3)
    _use(t, clock, "heavy", turns.FRESH_S + 1)
    _use(t, clock, "costly", 0.4)
    lane = t.admit("heavy", 60)
    errors: list[str] = []

    def grow(session: str) -> None:
        run = t.admit(session, 60)
        with t.running(run):
            cpu.now += turns.HEAVY_AFTER_S
            clock.now += turns.CHECK_EVERY_S
            try:
                check()
            except Busy as exc:
                errors.append(f"{session}: {exc}")

    with t.running(lane):
        costly = threading.Thread(target=grow, args=("costly",), daemon=True)
        costly.start()
        _until(lambda: any(w.session == "costly" for w in t._waiting))
        cheap = threading.Thread(target=grow, args=("cheap",), daemon=True)
        cheap.start()
        _until(lambda: bool(errors))
        assert errors[0].startswith("costly: The server is busy with other visitors' heavy pages")
    costly.join(5)
    cheap.join(5)


def test_checks_outside_a_run_do_nothing() -> None:
    check()  # no budget, no hook: the planner without the dashboard


ROOT = Path(__file__).resolve().parents[2]


def _cached_functions() -> list[tuple[str, ast.FunctionDef, int]]:
    """Every function of the dashboard under ``st.cache_data`` or ``st.cache_resource``: (file, node, index of the
    cache decorator)."""
    found = []
    for path in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            for index, decorator in enumerate(node.decorator_list):
                call = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(call, ast.Attribute) and call.attr in ("cache_data", "cache_resource"):
                    found.append((str(path.relative_to(ROOT)), node, index))
    return found


def test_every_cached_function_marks_its_computation_as_shared_work() -> None:
    cached = _cached_functions()
    assert len(cached) >= 6  # the advisor's four, the what-if page's and the Hub import's
    for path, node, index in cached:
        below = node.decorator_list[index + 1 : index + 2]
        assert below and ast.unparse(below[0]) in ("shares_work", "turns.shares_work"), (
            f"{path}: {node.name} is cached but not marked: put @shares_work (ui.turns) right under its cache "
            "decorator, so that its run keeps its slot while other runs wait for it"
        )
