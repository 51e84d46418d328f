"""A memo of bounded size: at most ``max_entries`` entries, the least recently used dropped first (what the advisor
keeps across rankings: :mod:`planner.advisor.reuse`, :func:`planner.engines.vllm.stage.vllm_stage`)."""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedMemo(Generic[K, V]):
    """A dict that keeps at most ``max_entries`` entries (0: none), dropping the least recently used; safe to share
    between threads (the dashboard serves each session in its own)."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> V:
        """Keep ``value`` under ``key`` and return it."""
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)
            return value

    def values(self) -> list[V]:
        with self._lock:
            return list(self._data.values())

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)
