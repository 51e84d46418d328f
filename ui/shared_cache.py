"""Answers shared by every visitor of one server process: a page's planning, keyed by the full set of settings.

Twenty-five colleagues opening the same shared link ask for the same answer; each session runs its own script, but
the planning behind the page (the assessment, the nearest set-ups that fit, the engine's start-up check, the
figure) is made once and read by all of them. The key is the whole :class:`ui.state.Selection` (a frozen pydantic
model, so an imported or hand-described model is part of it) and whatever else the page planned with (its
deployment options), as JSON: two links share an answer only when every setting is the same.

The cache is bounded in entries and in bytes (each answer's size is its key's and its pickled size, measured once
when stored;
``tests/ui/test_shared_cache.py`` checks the live memory against it), least recently used first out. A computation
in flight is not started twice: a session asking for a key another session is computing waits for it (within
its run's budget) instead. A failure (a :class:`planner.bounds.errors.PlannerError`, a run out of budget) is not
kept: the next visitor plans again and sees the same named error.

Unlike ``st.cache_data`` nothing is copied or unpickled on a hit (the answers are frozen models and figures no
page changes), and unlike ``st.cache_resource`` it is bounded in bytes.
"""

from __future__ import annotations

import gc
import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from pydantic import BaseModel

from ui.turns import shared_work

T = TypeVar("T")
# Sizes measured (deep_size; tracemalloc agrees within 40 %): a Memory page answer ~0.17 MB (its figure 87 kB), a
# Compare grid of 64 assessments ~1.2 MB, the largest description the limits allow no more. 256 answers, 64 MB.
MAX_ENTRIES = 256
MAX_BYTES = 64 * 2**20
WAIT_SECONDS = 20.0  # a run's budget (ui.frame.PAGE_BUDGET_SECONDS): a waiter then plans itself


class _Entry(NamedTuple):
    value: Any
    size_bytes: int


class SharedCache:
    """A bounded, thread-safe map from a key to a computed answer, computed once per key at a time."""

    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._in_flight: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self.size_bytes = 0
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str, compute: Callable[[], T], wait_seconds: float = WAIT_SECONDS) -> T:
        """The answer under ``key``: kept, or being computed by another session (waited for), or ``compute()``."""
        while True:
            with self._lock:
                entry = self._entries.get(key)
                if entry is not None:
                    self._entries.move_to_end(key)
                    self.hits += 1
                    return entry.value  # type: ignore[no-any-return]
                running = self._in_flight.get(key)
                if running is None:
                    done = self._in_flight[key] = threading.Event()
                    self.misses += 1
                    break
            if not running.wait(wait_seconds):
                return compute()  # the other session is slow (a hostile link): plan without waiting longer
            # kept now, or the other session failed (nothing kept): look again, and plan if nobody else does
        try:
            with shared_work():  # others wait for it: its run keeps its slot (ui.turns)
                value = compute()
            self._store(key, value)
            return value
        finally:
            with self._lock:
                self._in_flight.pop(key, None)
            done.set()

    def _store(self, key: str, value: Any) -> None:
        size = sys.getsizeof(key) + deep_size(value)
        with self._lock:
            if size > self.max_bytes:
                return
            self._entries[key] = _Entry(value, size)
            self.size_bytes += size
            while len(self._entries) > self.max_entries or self.size_bytes > self.max_bytes:
                _, dropped = self._entries.popitem(last=False)
                self.size_bytes -= dropped.size_bytes

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.size_bytes = 0
            self.hits = self.misses = 0


# Shared by every answer, not held by one: classes, modules and code.
_NOT_HELD = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.CodeType)


def deep_size(value: object) -> int:
    """Bytes of ``value`` and of every object it reaches (``gc.get_referents``), each counted once; classes,
    modules and functions are not counted. Objects the answer shares with others (a catalog model) are counted
    too: an upper bound of what dropping it frees."""
    seen: set[int] = set()
    stack: list[object] = [value]
    total = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _NOT_HELD):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return total


def key_of(kind: str, *parts: BaseModel | str | int | float | bool | None) -> str:
    """The cache key of ``kind``'s answer for ``parts`` (the selection, the page's options): every field, as JSON."""
    return "\x1f".join([kind, *(p.model_dump_json() if isinstance(p, BaseModel) else repr(p) for p in parts)])


ANSWERS = SharedCache()  # every page's answers, one budget for the process
