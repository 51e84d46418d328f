"""The share candidate with a Windows term (issue 20; docs/fidelity.md, 'The share candidate with a Windows term'):
:mod:`bench.share_split`'s candidate (the encoder's non-torch per item token, the one-RTX-3090 document's six boots
cold, no desktop share) plus :mod:`planner.engines.vllm.windows_share`'s term (a per-process amount until 2026-12-07's
fifty-fourth session, since then a share of the weights the rank loaded), fitted on the start-ups
planned ``--host windows`` alone. Those start-ups are blind cases (no other term is fitted on them), so the term is
checked by two halves by source (:func:`halves`: the public documents, each whole in one half, the larger first into
the smaller half): fitted on one half, each start-up of the other is planned with it; ``python -m bench.windows_split``
prints both halves' shares and held-out medians beside the whole set's figures.
"""

from __future__ import annotations

import re
import statistics
from functools import cache
from typing import Any

from bench.calibrate import fit, windows_cases
from bench.fidelity import _report, run_all
from bench.fidelity_cases import load_cases, setup_of
from bench.fidelity_result import CaseResult
from bench.fidelity_tables import recent
from bench.share_split import candidate_case, held_ids, over_planned, restated_runs, summary
from planner.core.units import GiB

Case = dict[str, Any]
_FILE_ID = re.compile(r"file ids? (\d+)")


def source_of(case: Case) -> str:
    """The public document a case is read from: its first search-index file id, else its source text."""
    text = str(case.get("source", ""))
    found = _FILE_ID.search(text)
    return found.group(1) if found else text


def halves() -> tuple[frozenset[str], frozenset[str]]:
    """The Windows start-ups in two halves by source: sources by size (start-ups with a KV figure at HEAD, then
    their id), each into the half with fewer start-ups so far."""
    scored = {r.id for r in recent(run_all()) if r.kv_error_gib is not None}
    groups: dict[str, list[str]] = {}
    for case in windows_cases(load_cases()):
        groups.setdefault(source_of(case), []).append(case["id"])
    order = sorted(groups.items(), key=lambda kv: (-sum(i in scored for i in kv[1]), kv[0]))
    first: list[str] = []
    second: list[str] = []
    for _, ids in order:
        count = (sum(i in scored for i in first), sum(i in scored for i in second))
        (first if count[0] <= count[1] else second).extend(ids)
    return frozenset(first), frozenset(second)


@cache
def fold(held: frozenset[str]) -> tuple[float, dict[str, float]]:
    """The Windows share fitted without the start-ups ``held``, and each of those start-ups' KV error
    (planned - printed, GiB) planned with it."""
    cases = [candidate_case(c) for c in load_cases()]
    constants = fit([c for c in cases if c["id"] not in held], True, True)
    printed = {r.id: r for r in restated_runs(True, True)}
    errors = {}
    for case in cases:
        result = printed.get(case["id"])
        if case["id"] not in held or result is None or result.kv_error_gib is None or result.report is None:
            continue
        planned = _report(case, setup_of(case), constants).available_kv_cache_bytes_per_gpu
        errors[case["id"]] = result.kv_error_gib + (planned - result.report.available_kv_cache_bytes_per_gpu) / GiB
    return constants.windows_weights_share, errors


def held_out(results: tuple[CaseResult, ...]) -> dict[str, float]:
    """Every start-up's in-sample error, the Windows ones replaced by their other half's fold."""
    errors = {r.id: r.kv_error_gib for r in results if r.kv_error_gib is not None}
    for half in halves():
        errors.update(fold(half)[1])
    return errors


def main() -> int:
    held = held_ids()
    arms = (("HEAD restated", restated_runs()), ("candidate", restated_runs(True)),
            ("candidate + Windows", restated_runs(True, True)))  # fmt: skip
    for name, results in arms:
        s = summary(results, held)
        medians = f"{s['in']:.3f} / {s['family']:.3f} / {s['release']:.3f} GiB, held out {s['held']:.3f}"
        print(f"{name}: {medians}, verdicts {s['verdicts']}, over-planned {over_planned(results)}; {s['wrong']}")
    whole = restated_runs(True, True)
    print(f"Windows share, all: {fit([candidate_case(c) for c in load_cases()], True, True).windows_weights_share:.4f}")
    for i, half in enumerate(halves()):
        amount, errors = fold(half)
        in_sample = {r.id: r.kv_error_gib for r in whole if r.id in errors}
        print(
            f"half {i} held ({len(errors)}): fitted on the other {amount:.4f}; median |error| held out "
            f"{statistics.median(abs(e) for e in errors.values()):.3f}, in sample "
            f"{statistics.median(abs(e) for e in in_sample.values() if e is not None):.3f}"
        )
        for k in sorted(errors):
            print(f"   {errors[k]:+.2f} (in sample {in_sample[k]:+.2f}) {k}")
    cross = held_out(whole)
    print(
        f"in sample with the Windows folds: {statistics.median(abs(e) for e in cross.values()):.3f}; held out "
        f"{statistics.median(abs(e) for k, e in cross.items() if k in held):.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
