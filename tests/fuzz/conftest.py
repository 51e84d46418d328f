"""The fuzz suite (issue 11): hostile input at every boundary where outside text enters — link parameters, the
packed ``spec`` and ``calib`` tokens, config.json, pasted logs, Hub replies — asserting that only a named refusal
comes out (a :class:`PlannerError`, or a setting parser's ``ValueError`` with its reason), within a time bound per
example and a memory bound per test. ``pytest -m fuzz`` runs it (the Hub and log fuzzers in tests/sources/hub and
tests/fidelity carry the marker too); ``HEADROOM_FUZZ_EXAMPLES=2000`` runs it deeper."""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from planner.bounds.errors import PlannerError

EXAMPLES = int(os.environ.get("HEADROOM_FUZZ_EXAMPLES", "0")) or None
FUZZ = settings(
    max_examples=EXAMPLES or 120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    database=None,
)
FEW = settings(FUZZ, max_examples=EXAMPLES or 40)
SECONDS_PER_EXAMPLE = 1.0  # the slowest refusal or plan of any example (they take milliseconds)
MEMORY_PER_TEST = 256 * 2**20  # bytes the process's peak RSS may grow by during one fuzz test


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/fuzz" in str(item.fspath):
            item.add_marker(pytest.mark.fuzz)


@pytest.fixture(autouse=True)
def memory_budget() -> Iterator[None]:
    """The process's peak resident memory grows by at most :data:`MEMORY_PER_TEST` during the test."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    yield
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    assert grown < MEMORY_PER_TEST, f"peak memory grew by {grown / 2**20:.0f} MiB"


def only_named_refusals(work: Callable[[], Any], also: tuple[type[BaseException], ...] = ()) -> Any:
    """Run ``work``: a result, or a :class:`PlannerError` (any subclass: HubError, BudgetExceeded, …) or an
    exception of exactly a type in ``also``, with a short message, within :data:`SECONDS_PER_EXAMPLE`. Anything
    else (TypeError, OverflowError, RecursionError, a ValueError subclass such as pydantic's ValidationError or
    UnicodeDecodeError) fails the test."""
    start = time.perf_counter()
    result = None
    try:
        result = work()
    except Exception as exc:
        if not (isinstance(exc, PlannerError) or type(exc) in also):
            raise
        message = str(exc)
        assert message and len(message) < 2_000, message[:200]
    elapsed = time.perf_counter() - start
    assert elapsed < SECONDS_PER_EXAMPLE, f"{elapsed:.2f} s"
    return result
