"""What the ranking keeps of its first checks across :func:`planner.advisor.ranking.rank` calls: each candidate's
outcome up to its memory fit when none of those checks reads a length, so a ranking at a new context (the
dashboard's context slider) evaluates again only the candidates that pass them, in the same order.

The checks (:meth:`planner.advisor.evaluate.Evaluator.screen`, in this order): an illegal split, not for sale as
planned, no engine, an engine unsuited to the workload, no catalog host, and the first memory check (weights and
working memory against the GPU) when its stages read no length (:func:`planner.advisor.reuse.stages_reusable`: the
stages are then the ones :mod:`planner.advisor.reuse` keeps, at any length). What they read, all in the key
(:meth:`planner.advisor.evaluate.Evaluator.screen_key`): the model, GPUs, counts, precisions and KV dtypes
enumerated; the workload's pricing, engines, whether the hosts must be rack-mounted
(:func:`planner.advisor.suitability.rack_only`), each engine's suitability
(:func:`planner.advisor.suitability.engine_problem`, read as its answer: it reads the target), and unified-memory
share; the hosts; the overhead models, block size and the evaluator's own class. A candidate that passes is kept as
:class:`Pending`, with its engine and host, and whether its first memory check has passed at every length.

Bounded (:data:`SCREENS` entries, least recently used out); :func:`clear` empties it (tests compare with a cold
ranking; :func:`planner.advisor.reuse.clear` calls it).
"""

from __future__ import annotations

from typing import NamedTuple

from planner.advisor.costs import HostChoice
from planner.advisor.options import Candidate, Rejected
from planner.advisor.support import SupportRow
from planner.bounds.memo import BoundedMemo

# A screen holds one entry per candidate (2,640 for a 70B over the catalog at the default counts, precisions and
# KV dtypes, most a Rejected with its sentence: 2.6 MB measured with tracemalloc): 4 keep a few models and
# workloads (the slider moves one) within ~11 MB.
SCREENS = 4


class Pending(NamedTuple):
    """A candidate past the first checks: its engine's support row, its hosts (purchase pricing), whether its
    first memory check has passed at every length (``False``: not made yet, it reads the length), and the engines
    after it that run the set-up and suit the workload (``fallbacks``: tried in order where the first does not
    hold the target)."""

    candidate: Candidate
    row: SupportRow
    host: HostChoice | None
    fit_checked: bool
    fallbacks: tuple[SupportRow, ...] = ()


Screened = Rejected | Pending
ScreenKey = tuple[object, ...]
_SCREENS: BoundedMemo[ScreenKey, tuple[Screened, ...]] = BoundedMemo(SCREENS)


def kept(key: ScreenKey) -> tuple[Screened, ...] | None:
    """The screen kept under ``key`` (``None``: none)."""
    return _SCREENS.get(key)


def keep(key: ScreenKey, screened: tuple[Screened, ...]) -> tuple[Screened, ...]:
    """Keep ``screened`` under ``key`` and return it."""
    return _SCREENS.put(key, screened)


def clear() -> None:
    """Forget every screen kept."""
    _SCREENS.clear()
