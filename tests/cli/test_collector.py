"""planner.bounds.collector: ``python -m planner advise`` freezes what it has loaded before it ranks; the CLI called
in another process (these tests, the dashboard) freezes nothing; the answer is the same either way."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from planner.bounds.collector import freeze_long_lived
from planner.cli import main

ROOT = Path(__file__).resolve().parents[2]
ARGS = ["advise", "--model", "Qwen/Qwen3-0.6B", "--context", "4096", "--users", "4", "--gpus-max", "1", "--json"]


def test_the_cli_called_in_process_freezes_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    here = threading.get_ident()
    frozen_here: list[int] = []  # gc.freeze calls from this thread (the dashboard's AppTest runs freeze in theirs)
    freeze = gc.freeze

    def recorded() -> None:
        if threading.get_ident() == here:
            frozen_here.append(1)
        freeze()

    monkeypatch.setattr(gc, "freeze", recorded)
    assert freeze_long_lived() is False
    assert main(ARGS) == 0
    assert frozen_here == []
    in_process = capsys.readouterr().out
    script = "import gc, runpy, sys; sys.argv = ['planner', *sys.argv[1:]]\n"
    script += "try:\n    runpy.run_module('planner', run_name='__main__')\nexcept SystemExit:\n    pass\n"
    script += "print(gc.get_freeze_count() > 0, file=sys.stderr)"
    done = subprocess.run(
        [sys.executable, "-c", script, *ARGS], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stderr.strip().splitlines()[-1] == "True"
    assert done.stdout == in_process


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    """``advise --json | head -c 100``: the pipe closes mid-output; the command ends quietly (exit 141, as a shell
    reports a writer whose reader left), where it printed a BrokenPipeError traceback."""
    argv = ["advise", "--model", "meta-llama/Llama-3.1-8B", "--users", "5", "--context", "4096", "--json"]
    with subprocess.Popen(
        [sys.executable, "-m", "planner", *argv], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert len(proc.stdout.read(100)) == 100
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=120) == 141 and "Traceback" not in err, err
