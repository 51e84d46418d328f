"""What the blind-set tests share: each case's outcome against the score recorded when it was found
(``unseen_score``), or, where a change since moved it, the figure the change gives now."""

from __future__ import annotations

import statistics
from collections.abc import Mapping

import pytest

from bench.fidelity_result import CaseResult


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


def assert_sourced_and_held_out(blind: list[dict[str, object]], results: Mapping[str, CaseResult], count: int) -> None:
    """Every case of the set cites its search-index file, is scored, and is kept out of ``make calibrate``."""
    assert len(blind) == len(results) == count
    for case in blind:
        setup = case["setup"]
        assert "file id" in str(case["source"]) and isinstance(setup, dict) and "unseen" in setup["not_fitted"]


def first_scores(blind: list[dict[str, object]]) -> tuple[float, float, int]:
    """(median |KV error|, worst |KV error|, verdicts right) as the set was first scored (the KV error over the
    cases with a KV figure: a refusal before the KV sizing prints none)."""
    scores = [c["unseen_score"] for c in blind]
    errors = [abs(s["kv_error_gib"]) for s in scores if isinstance(s, dict) and s["kv_error_gib"] is not None]
    return statistics.median(errors), max(errors), sum(bool(s["verdict_right"]) for s in scores if isinstance(s, dict))
