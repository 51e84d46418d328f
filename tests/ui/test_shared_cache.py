"""The answers shared across sessions (issue 24): planned once per distinct set of settings, even when many sessions
ask at once; bounded in entries and in bytes (the bytes counted at least cover the memory an answer holds); a
failure is never kept."""

from __future__ import annotations

import gc
import threading
import time
import tracemalloc

import pytest

from planner.bounds.errors import PlannerError
from tests.hostile.test_linear_planning import largest
from ui import answers, turns
from ui.shared_cache import SharedCache, deep_size, key_of
from ui.state import Selection

LLAMA_70B = Selection(model_id="meta-llama/Llama-3.1-70B", gpu_count=2, context_tokens=32768)
SELECTIONS = (
    LLAMA_70B,
    Selection(model_id="deepseek-ai/DeepSeek-V3", gpu_id="h200-sxm-141gb", gpu_count=8, weights="fp8"),
    Selection(model_id="google/gemma-3-27b-it", gpu_id="l40s", gpu_count=2, context_tokens=65536, engine="sglang"),
    Selection(imported=largest("shared"), model_origin="custom", gpu_count=16, tensor_parallel=8, pipeline_parallel=2),
)


def test_an_answer_is_computed_once_per_key() -> None:
    cache = SharedCache()
    calls: list[str] = []

    def compute(name: str) -> str:
        calls.append(name)
        return name.upper()

    assert cache.get("a", lambda: compute("a")) == "A"
    assert cache.get("a", lambda: compute("a")) == "A"
    assert cache.get("b", lambda: compute("b")) == "B"
    assert calls == ["a", "b"]
    assert (cache.hits, cache.misses) == (1, 2)


def test_the_computation_others_wait_for_is_shared_work() -> None:
    """Its run keeps its slot while it computes (ui.turns): the runs waiting for the answer hold theirs."""
    seen: list[bool] = []
    SharedCache().get("k", lambda: seen.append(turns.computing_shared()))
    assert seen == [True] and not turns.computing_shared()


def test_many_sessions_asking_at_once_plan_once() -> None:
    """25 sessions on one link: one computes, the others wait for it and read the same object."""
    cache = SharedCache()
    calls: list[int] = []
    start = threading.Barrier(25)
    got: list[object] = []

    def slow() -> object:
        calls.append(1)
        time.sleep(0.2)
        return object()

    def session() -> None:
        start.wait()
        got.append(cache.get("link", slow))

    threads = [threading.Thread(target=session) for _ in range(25)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1
    assert len(got) == 25 and all(answer is got[0] for answer in got)


def test_a_failure_is_not_kept() -> None:
    cache = SharedCache()
    attempts: list[int] = []

    def failing() -> str:
        attempts.append(1)
        raise PlannerError("the split does not divide the heads")

    for _ in range(2):
        with pytest.raises(PlannerError):
            cache.get("bad", failing)
    assert len(attempts) == 2 and len(cache) == 0


def test_a_waiter_plans_itself_when_the_first_session_fails() -> None:
    cache = SharedCache()
    entered, release = threading.Event(), threading.Event()
    seen: list[str] = []

    def failing() -> str:
        entered.set()
        release.wait()
        raise PlannerError("no")

    def first() -> None:
        with pytest.raises(PlannerError):
            cache.get("key", failing)

    thread = threading.Thread(target=first)
    thread.start()
    entered.wait()
    waiter = threading.Thread(target=lambda: seen.append(cache.get("key", lambda: "planned")))
    waiter.start()
    time.sleep(0.05)
    release.set()
    thread.join()
    waiter.join()
    assert seen == ["planned"]


def test_entries_are_bounded_least_recently_used_first_out() -> None:
    cache = SharedCache(max_entries=3)
    for name in "abc":
        cache.get(name, lambda name=name: name)  # type: ignore[misc]
    cache.get("a", lambda: "again")  # a is used: b is now the oldest
    cache.get("d", lambda: "d")
    assert len(cache) == 3
    assert cache.get("b", lambda: "recomputed") == "recomputed"
    assert cache.get("a", lambda: "again") == "a"


def test_bytes_are_bounded() -> None:
    cache = SharedCache(max_entries=1000, max_bytes=2_000_000)
    for index in range(40):
        cache.get(str(index), lambda: bytes(100_000))
    assert cache.size_bytes <= 2_000_000
    assert 15 <= len(cache) <= 20  # ~100 kB each
    cache.get("huge", lambda: bytes(3_000_000))  # larger than the whole budget: returned, not kept
    assert cache.size_bytes <= 2_000_000


@pytest.mark.parametrize("kind", ["memory", "compare"])
@pytest.mark.parametrize("sel", SELECTIONS, ids=lambda s: s.spec.id)
def test_the_bytes_counted_cover_the_memory_an_answer_holds(kind: str, sel: Selection) -> None:
    def plan() -> object:
        return answers._memory(sel, None) if kind == "memory" else answers._grid(sel)

    plan()  # the planner's own caches warm
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        answer = plan()
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    counted = deep_size(answer)
    assert held <= counted <= 3 * held + 100_000, (held, counted)
    assert counted < (200_000 if kind == "memory" else 1_500_000)  # the sizes stated in ui/shared_cache.py


def test_keys_carry_every_setting() -> None:
    base = key_of("memory", LLAMA_70B, None)
    assert key_of("memory", LLAMA_70B, None) == base
    assert key_of("compare", LLAMA_70B) != base
    for change in ({"users": 33}, {"unit": "GB"}, {"engine_version": "0.19.0"}, {"calibration": "x"}):
        assert key_of("memory", LLAMA_70B.model_copy(update=change), None) != base, change
    one, other = largest("one"), largest("other")
    custom = Selection(imported=one, model_origin="custom")
    assert key_of("memory", custom, None) != key_of("memory", custom.model_copy(update={"imported": other}), None)
