"""bench.speed_sets' row listings: ``--worst N`` / ``--set NAME`` (the rows a speed set misses most, with what groups
them) and ``--over [SHARE]`` (every row a set misses by more than a share, worst first), so a before -> after names
the rows and not only the cells (issue 21)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.speed_sets import main, sets, worst, worst_lines
from planner.advisor.benchmarks import load_rows
from planner.advisor.validation import scored
from tests.advisor.unseen_2026_12 import UNSEEN_2026_12_MISSES

AMD = "unseen-2026-12d.toml"
UNSEEN = Path(__file__).parent / "benchmarks" / "unseen-2026-12.toml"


def test_the_worst_rows_come_first_with_their_set_up(capsys: pytest.CaptureFixture[str]) -> None:
    """unseen-2026-12d.toml (OCI's Llama 3.1 405B FP8 on 8 x MI300X at batch 1, 8 and 64, its README): the batch-64
    row is the set's worst and leads, each line names the model, the GPUs, the lengths, the concurrency and the
    prompt chunk the scoring gives vLLM."""
    lines = worst_lines(sets(AMD)[AMD], 2)
    assert len(lines) == 2
    assert "oci-mi300x8-llama31-405b-fp8-bs64-128-128" in lines[0]
    assert "meta-llama/Llama-3.1-405B fp8 on 8 x mi300x, 128/128 c=64 chunk=8192" in lines[0]
    errors = [abs(float(line.split("%")[0])) for line in lines]
    assert errors == sorted(errors, reverse=True)
    assert main(["--set", AMD, "--worst", "1"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == [AMD, f"    {lines[0]}"]


def test_a_set_not_known_is_refused() -> None:
    with pytest.raises(SystemExit, match=r"no speed set 'nope\.toml'"):
        main(["--set", "nope.toml", "--worst", "1"])


def test_the_worst_rows_of_the_first_blind_set_are_its_named_misses() -> None:
    """Over 50 % on unseen-2026-12.toml: exactly the rows tests/advisor/unseen_2026_12.py names with a reason, the
    worst first (8 x H100 Llama 4 Maverick FP8 at 128/4096: 6,744 tokens/s measured, +231 %; +198 % before an
    attention-DP step's collectives were TensorRT-LLM's, planner/advisor/collectives.py, +237 % before its rank's
    prompts held the step, planner/advisor/rank_balance.py; +191 %, +231 % before each attention-DP rank read its
    own layers whole, the same module)."""
    missed = worst(scored(load_rows((UNSEEN,))))
    assert {s.id for s in missed} == set(UNSEEN_2026_12_MISSES)
    assert [abs(s.error or 0.0) for s in missed] == sorted((abs(s.error or 0.0) for s in missed), reverse=True)
    first = missed[0]
    assert first.id == "trtllm-h100x8-llama4-maverick-fp8-128-4096" and first.measured == 6744.0
    assert round(first.error or 0.0, 2) == 1.91


def test_the_command_lists_them_per_set(capsys: pytest.CaptureFixture[str]) -> None:
    """``--over 1.5``: per set a count line, then one line per row (signed error, family/regime, measured,
    predicted, id). (``--over 2.0`` listed one row there, +231.2 %, before each attention-DP rank read its own
    layers whole.)"""
    assert main(["--over", "1.5"]) == 0
    out = capsys.readouterr().out
    assert "unseen-2026-12.toml: 2 rows over 150%" in out
    line = next(x for x in out.splitlines() if x.endswith("trtllm-h100x8-llama4-maverick-fp8-128-4096"))
    assert line.split()[:3] == ["+190.7%", "fused/long_context", "6744"]
