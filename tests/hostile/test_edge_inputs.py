"""Hostile input, second pass (issue 25): a model without any KV cache under speculative decoding, a raced file
check, and what a failed Hub import tells whoever reads it."""

from __future__ import annotations

import json
import math
import os
import stat
import threading
from pathlib import Path

import pytest

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.bounds.files import read_regular_file
from planner.cli import main
from planner.core.model import ModelSpec
from planner.deploy.options import DeploymentOptions, SpeculativeOptions
from planner.planning.plan import PlanRequest, plan
from planner.sources.config import spec_from_hf_config

NO_CACHE = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_hidden_layers": 4,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "layer_types": ["mlp"] * 4,
}
PROPOSERS = {
    "eagle": SpeculativeOptions(method="eagle"),
    "eagle3": SpeculativeOptions(method="eagle3"),
    "draft": SpeculativeOptions(method="draft", draft_model=get_model("meta-llama/Llama-3.2-1B").spec),
}


def _no_cache_spec() -> ModelSpec:
    return spec_from_hf_config(NO_CACHE, "x/mlp-only")


@pytest.mark.parametrize("method", list(PROPOSERS))
def test_a_model_without_kv_cache_plans_with_a_proposer(method: str) -> None:
    """Finding 5: every layer without a KV cache and an EAGLE / EAGLE-3 / draft proposer divided by zero in
    ``capacity_of`` (the contiguous reservation left the proposer's cache out). The proposer's cache is the
    sequence's whole cache then, and a contiguous engine reserves it too, at max_model_len."""
    gpu = get_gpu("h100-sxm-80gb")
    request = PlanRequest(
        model=_no_cache_spec(),
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes,
        context_tokens=4096,
        deployment=DeploymentOptions(speculative=PROPOSERS[method]),
    )
    capacity = plan(request).capacity
    assert capacity.sequences > 0 and math.isfinite(capacity.sequences)
    # the proposer's cache at 4,096 tokens is the only per-sequence cache: the contiguous count cannot exceed it
    assert 0 < capacity.sequences_contiguous <= capacity.sequences_paged


@pytest.mark.parametrize("method", ["eagle", "eagle3"])
def test_the_cli_plans_a_model_without_kv_cache_with_a_proposer(
    method: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``fit`` printed a 31-line traceback (exit 1) for the same model."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps(NO_CACHE))
    code = main(["fit", "--config", str(config), "--gpu", "h100-sxm-80gb", "--speculative-method", method])
    out = capsys.readouterr()
    assert "Traceback" not in out.err and code == 0, out.err[-800:]
    assert "conversations" in out.out


def _read_in_thread(path: Path, seconds: float) -> str:
    """What :func:`read_regular_file` does with ``path`` within ``seconds``: the error's text, ``"read"``, or
    ``"hung"`` (a reader blocked on a FIFO is then released by opening it for writing)."""
    outcome: list[str] = []

    def work() -> None:
        try:
            read_regular_file(path, 1_000, "a config.json")
            outcome.append("read")
        except PlannerError as exc:
            outcome.append(str(exc))

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(seconds)
    if not outcome and stat.S_ISFIFO(os.lstat(path).st_mode):  # let a reader blocked on the FIFO go
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(seconds)
        return "hung"
    return outcome[0] if outcome else "hung"


def test_a_fifo_swapped_in_after_the_check_is_refused_not_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding 6: the file was checked with ``stat`` and then opened by path, so a symlink swapped from a regular
    file to a FIFO between the two blocked ``open()`` for good. The race is made certain here: ``os.stat`` answers
    for a regular file while the path is a FIFO with no writer."""
    fifo = tmp_path / "config.json"
    os.mkfifo(fifo)
    regular = tmp_path / "regular.json"
    regular.write_text("{}")
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda path, *a, **k: real_stat(regular) if Path(path) == fifo else real_stat(path))
    outcome = _read_in_thread(fifo, 3.0)
    assert outcome != "hung", "open() blocked on a FIFO"
    assert "not a regular file" in outcome, outcome


def test_a_fifo_and_a_directory_are_refused_and_a_file_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert "not a regular file" in _read_in_thread(fifo, 3.0)
    assert "not a regular file" in _read_in_thread(tmp_path, 3.0)
    (tmp_path / "log.txt").write_bytes(b"x" * 1_000)
    assert read_regular_file(tmp_path / "log.txt", 1_000, "a log") == b"x" * 1_000
    (tmp_path / "big.txt").write_bytes(b"x" * 1_001)
    with pytest.raises(PlannerError, match="larger than a log can be"):
        read_regular_file(tmp_path / "big.txt", 1_000, "a log")


@pytest.mark.parametrize("value", [10**400, -(10**400), 10**5000], ids=["400 digits", "minus 400", "5000 digits"])
def test_a_count_too_large_for_a_float_is_refused_by_name(value: int) -> None:
    """Found by the config fuzzer (a dict need not come from JSON): the message's digit count formatted the integer
    as a float and raised OverflowError past 10^308."""
    with pytest.raises(PlannerError, match="num_hidden_layers is a number with"):
        spec_from_hf_config({**NO_CACHE, "layer_types": None, "num_hidden_layers": value}, "x/y")
