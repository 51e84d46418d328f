"""bench.speed_sets' row listing (``--worst N``, ``--set NAME``): the rows a speed set misses most, with what groups
them, so a before -> after names the rows and not only the cells (issue 21)."""

from __future__ import annotations

import pytest

from bench.speed_sets import main, sets, worst_lines

AMD = "unseen-2026-12d.toml"


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
