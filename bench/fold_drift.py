"""Which fitted vLLM constant a leave-one-family-out (or release-out) fold moves, and which start-ups it moves.

``python -m bench.fold_drift`` refits the vLLM constants without each model family, as ``make fidelity``'s
family-out fold does (:func:`bench.fidelity.run_all`), and for every fitted field whose refit value differs from the
shipped one plans each vLLM >= 0.22 start-up of the held-out family (those with a KV figure) with the shipped constants
but that one field taken from the fold. It prints, per family, each moved field (shipped -> refit) with the summed
|KV move| over the family's start-ups and the start-ups it moves most: the term whose fit depends on the family
(issue 20). ``--by release``: the same per release (:func:`bench.fidelity.case_release`). ``--median``: beside each
field, the folds' median |held-out error| over every scored start-up (family out, or release out with ``--by release``)
as the fold leaves it and with that field's drift undone (:func:`median_without`): which fitted constant's drift
carries the median.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable
from functools import cache
from typing import Any, NamedTuple

from bench.calibrate import fit
from bench.fidelity import _is_fitted, _report, case_release, run_all
from bench.fidelity_cases import load_cases, setup_of
from bench.fidelity_tables import recent
from planner.core.units import GiB
from planner.engines.vllm.versions import VllmConstants

Case = dict[str, Any]
SKIPPED = frozenset({"fit"})  # how the constants were fitted: no term of the plan
TOP = 3  # start-ups listed per moved field


class Drift(NamedTuple):
    """One fitted field a family's fold moves: its values and the KV it moves each of the family's start-ups by."""

    family: str
    field: str
    shipped: Any
    refit: Any
    moves: tuple[tuple[str, float], ...]  # (case id, KV with the refit field less in sample, GiB), largest first

    @property
    def total_gib(self) -> float:
        return sum(abs(m) for _, m in self.moves)


def moved_fields(shipped: VllmConstants, refit: VllmConstants) -> list[str]:
    """The fields of ``refit`` that differ from ``shipped`` (the fit record left aside)."""
    return [n for n in type(shipped).model_fields if n not in SKIPPED and getattr(shipped, n) != getattr(refit, n)]


def kv_gib(case: Case, constants: VllmConstants) -> float:
    return _report(case, setup_of(case), constants).available_kv_cache_bytes_per_gpu / GiB


@cache
def scored_ids() -> frozenset[str]:
    """The vLLM >= 0.22 start-ups with a KV figure (``/tmp/tools/list_cases.py``'s 140)."""
    return frozenset(r.id for r in recent(run_all()) if r.kv_error_gib is not None and r.cv_error_gib is not None)


def fold_errors(by: str = "family") -> dict[str, float]:
    """Each scored start-up's held-out KV error (GiB): family out (``cv_error_gib``), or release out
    (``loro_error_gib``) with ``by`` "release"."""
    field = "loro_error_gib" if by == "release" else "cv_error_gib"
    errors = ((r.id, getattr(r, field)) for r in recent(run_all()) if r.id in scored_ids())
    return {i: e for i, e in errors if e is not None}


def median_without(drift: Drift, errors: dict[str, float]) -> float:
    """The median |held-out error| over ``errors`` (:func:`fold_errors`) with ``drift``'s moves taken off its
    start-ups' errors: the fold's median had that one field kept at its shipped value (the fold's other refit fields
    left as they are; their interaction with it ignored)."""
    moved = dict(drift.moves)
    return statistics.median(abs(e - moved.get(i, 0.0)) for i, e in errors.items())


def family_of(case: Case) -> str:
    return setup_of(case).family


FOLDS: dict[str, Callable[[Case], str]] = {"family": family_of, "release": case_release}


def family_drift(
    family: str, cases: list[Case], shipped: VllmConstants, key: Callable[[Case], str] = family_of
) -> list[Drift]:
    """Each field the fold without ``family`` (a release with ``key`` :func:`bench.fidelity.case_release`) moves,
    and the KV move of its scored start-ups, largest total first."""
    refit = fit([c for c in cases if key(c) != family])
    own = [c for c in cases if key(c) == family and c["id"] in scored_ids()]
    base = {c["id"]: kv_gib(c, shipped) for c in own}
    out = []
    for field in moved_fields(shipped, refit):
        swapped = shipped.model_copy(update={field: getattr(refit, field)})
        moves = sorted(((c["id"], kv_gib(c, swapped) - base[c["id"]]) for c in own), key=lambda m: -abs(m[1]))
        out.append(Drift(family, field, getattr(shipped, field), getattr(refit, field), tuple(moves)))
    return sorted(out, key=lambda d: -d.total_gib)


def all_drift(by: str = "family") -> list[Drift]:
    """:func:`family_drift` of every family (``by`` "release": release) with a fitted start-up."""
    cases, key = load_cases(), FOLDS[by]
    shipped = fit(cases)
    folds = sorted({key(c) for c in cases if _is_fitted(c)})
    return [d for f in folds for d in family_drift(f, cases, shipped, key)]


def _value(v: Any) -> str:
    if isinstance(v, tuple):
        return "[" + ", ".join(f"{e.since}: tp1 {e.tp1} tp2 {e.tp2} pp {e.pp}" for e in v) + "]"
    return str(v)


def lines(drifts: list[Drift], min_gib: float = 0.0, errors: dict[str, float] | None = None) -> list[str]:
    """One line per moved field (summed |KV move| at least ``min_gib``), its top start-ups indented below; with
    ``errors`` (:func:`fold_errors`), the folds' median as it is and without that field's drift."""
    out = []
    base = statistics.median(abs(e) for e in errors.values()) if errors else None
    for d in drifts:
        if d.total_gib < min_gib or not d.moves:
            continue
        median = f"  median {base:.3f} -> {median_without(d, errors):.3f}" if errors and base is not None else ""
        head = f"{d.family}: {d.field} {_value(d.shipped)} -> {_value(d.refit)}  sum|move| {d.total_gib:.2f} GiB"
        out.append(head + median)
        out.extend(f"    {m:+.2f} {i}" for i, m in d.moves[:TOP])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fold_drift", description=__doc__.splitlines()[0])
    parser.add_argument("--min-gib", type=float, default=0.05, help="list fields moving at least this much in all")
    parser.add_argument("--by", choices=sorted(FOLDS), default="family", help="the folds: families or releases")
    parser.add_argument("--median", action="store_true", help="the folds' median without each field's drift")
    args = parser.parse_args(argv)
    errors = fold_errors(args.by) if args.median else None
    print("\n".join(lines(all_drift(args.by), args.min_gib, errors)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
