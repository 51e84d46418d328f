"""What the blind-set tests share: each case's outcome against the score recorded when it was found
(``unseen_score``), or, where a change since moved it, the figure the change gives now."""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping
from typing import Any

import pytest

from bench.fidelity import run_all
from bench.fidelity_cases import CASES_DIR
from bench.fidelity_result import CaseResult


def load_blind_set(file_name: str) -> tuple[list[dict[str, Any]], dict[str, CaseResult]]:
    """A blind set's cases (``tests/fidelity/cases/<file_name>``) and their results in ``make fidelity``, by id."""
    blind: list[dict[str, Any]] = json.loads((CASES_DIR / file_name).read_text(encoding="utf-8"))
    ids = {c["id"] for c in blind}
    return blind, {r.id: r for r in run_all() if r.id in ids}


def assert_as_scored(
    case: Mapping[str, object],
    results: Mapping[str, CaseResult],
    now: Mapping[str, float] | None = None,
    verdicts_now: Mapping[str, bool] | None = None,
) -> None:
    """The verdict and KV error recorded when ``case`` was found, or ``verdicts_now`` and ``now`` where a change
    since moved them (tolerance 0.01 GiB: the printed precision)."""
    result, score = results[str(case["id"])], case["unseen_score"]
    assert isinstance(score, dict)
    assert bool(result.verdict_right) == (verdicts_now or {}).get(str(case["id"]), score["verdict_right"])
    expected = (now or {}).get(str(case["id"]), score["kv_error_gib"])
    assert result.kv_error_gib == pytest.approx(expected, abs=0.01)


def assert_sourced_and_held_out(
    blind: list[dict[str, object]],
    results: Mapping[str, CaseResult],
    count: int,
    cites: tuple[str, ...] = ("file id",),
) -> None:
    """Every case of the set cites its source (a search-index file, or another of ``cites``), is scored, and is kept
    out of ``make calibrate``."""
    assert len(blind) == len(results) == count
    for case in blind:
        setup = case["setup"]
        assert any(c in str(case["source"]) for c in cites)
        assert isinstance(setup, dict) and "unseen" in setup["not_fitted"]


def first_scores(blind: list[dict[str, object]]) -> tuple[float, float, int]:
    """(median |KV error|, worst |KV error|, verdicts right) as the set was first scored (the KV error over the
    cases with a KV figure: a refusal before the KV sizing prints none)."""
    scores = [c["unseen_score"] for c in blind]
    errors = [abs(s["kv_error_gib"]) for s in scores if isinstance(s, dict) and s["kv_error_gib"] is not None]
    return statistics.median(errors), max(errors), sum(bool(s["verdict_right"]) for s in scores if isinstance(s, dict))


def assert_records_unscored(
    blind: list[dict[str, object]], results: Mapping[str, CaseResult], printed: Mapping[str, float]
) -> None:
    """The set's out-of-scope cases are exactly ``printed``'s, each keeping its printed KV figure (GiB) and counting
    no error."""
    assert {str(c["id"]) for c in blind if "out_of_scope" in c["setup"]} == set(printed)  # type: ignore[operator]
    for case_id, kv in printed.items():
        result = results[case_id]
        assert result.reported_kv_gib == pytest.approx(kv) and result.kv_error_gib is None, case_id
