"""A memo of bounded size: at most ``max_entries`` entries, the least recently used dropped first (what the advisor
keeps across rankings: :mod:`planner.advisor.reuse`, :func:`planner.engines.vllm.stage.vllm_stage`)."""

from __future__ import annotations

import itertools
from collections import OrderedDict
from threading import Lock
from typing import Generic, TypeVar

K = TypeVar("K")
S = TypeVar("S")
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


class Scope(Generic[K, V]):
    """One scope of a :class:`ScopedMemo`: its entries, read and kept under the scope's token."""

    __slots__ = ("_entries", "_token")

    def __init__(self, entries: BoundedMemo[tuple[int, K], V], token: int) -> None:
        self._entries = entries
        self._token = token

    def get(self, key: K) -> V | None:
        return self._entries.get((self._token, key))

    def put(self, key: K, value: V) -> V:
        """Keep ``value`` under ``key`` in this scope and return it."""
        return self._entries.put((self._token, key), value)


class ScopedMemo(Generic[S, K, V]):
    """Entries of many scopes under one bound on the entries of all of them (``max_entries``), the least recently
    used dropped first: a scope (a model under one engine profile, whose key is costly to hash) is hashed once when
    asked for (:meth:`scope`), its entries then keyed by a small token. A bound on scopes instead let a lever's
    profile of a handful of entries push out a scope of hundreds used at every ranking. ``max_scopes`` bounds the
    tokens kept; a scope forgotten gets a new token (its old entries, no longer read, age out).

    >>> memo: ScopedMemo[str, int, str] = ScopedMemo(max_scopes=8, max_entries=3)
    >>> big, small = memo.scope("default"), memo.scope("lever")
    >>> for i in range(2):
    ...     _ = big.put(i, f"stage {i}")
    >>> _ = small.put(0, "lever stage"); _ = big.get(0)
    >>> _ = small.put(1, "lever stage 1")  # the least recently used entry (big's 1) goes, not big's scope
    >>> big.get(0), big.get(1), small.get(0), len(memo)
    ('stage 0', None, 'lever stage', 3)
    """

    def __init__(self, max_scopes: int, max_entries: int) -> None:
        self._tokens: BoundedMemo[S, int] = BoundedMemo(max_scopes)
        self._entries: BoundedMemo[tuple[int, K], V] = BoundedMemo(max_entries)
        self._next = itertools.count()

    @property
    def max_entries(self) -> int:
        return self._entries.max_entries

    @max_entries.setter
    def max_entries(self, value: int) -> None:
        self._entries.max_entries = value

    def scope(self, key: S) -> Scope[K, V]:
        """The scope of ``key`` (two threads asking at once may each get a token: their entries are the same)."""
        token = self._tokens.get(key)
        if token is None:
            token = self._tokens.put(key, next(self._next))
        return Scope(self._entries, token)

    def clear(self) -> None:
        self._tokens.clear()
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
