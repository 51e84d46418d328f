"""llama-server splits a draft model over the same GPUs as the target (``--device-draft`` unset), so a layer split
over two GPUs holds a share of the draft and of its cache on each (a maintainer's review, 2026-12-06: after the
split was planned a stage a GPU, the whole draft sat on the last GPU while the note said "on each GPU")."""

from __future__ import annotations

import pytest

from planner.cli import main

ARGV = ["fit", "--model", "meta-llama/Llama-3.3-70B-Instruct", "--gpu", "rtx-4090", "--engine", "llamacpp"]
ARGV += ["--weights", "q4_k_m", "--context", "8192"]


def _lines(capsys: pytest.CaptureFixture[str], *extra: str) -> list[str]:
    main([*ARGV, *extra])
    return capsys.readouterr().out.splitlines()


def _buffer(lines: list[str], device: str) -> float:
    line = next(x for x in lines if f"{device} model buffer size" in x)
    return float(line.split("=")[1].split()[0])


def test_the_draft_is_shared_over_both_gpus(capsys: pytest.CaptureFixture[str]) -> None:
    alone = _lines(capsys, "--gpus", "2")
    drafted = _lines(capsys, "--gpus", "2", "--draft-model", "meta-llama/Llama-3.2-1B")
    added = [_buffer(drafted, d) - _buffer(alone, d) for d in ("CUDA0", "CUDA1")]
    assert added[0] > 300 and added[0] == pytest.approx(added[1], abs=1.0), added  # ~357 MiB each, not 713 on one
    assert any("MiB on each GPU, counted beside the target's" in x for x in drafted)
