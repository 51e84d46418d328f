"""The command line: every numeric argument bounded, every hostile config file a one-line error with exit status 2,
never a traceback or a run past its budget (issue 11)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from planner.cli import main

LLAMA = ["--model", "meta-llama/Llama-3.1-8B"]
H100 = ["--gpu", "h100-sxm-80gb"]
SHAPE = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
}


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], *names: str) -> str:
    start = time.perf_counter()
    with pytest.raises(SystemExit) as info:
        raise SystemExit(main(argv))
    elapsed = time.perf_counter() - start
    out = capsys.readouterr()
    assert info.value.code == 2, (out.out[-500:], out.err[-500:])
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.err[-500:]
    assert len(lines[0]) < 400
    for name in names:
        assert name in lines[0], lines[0]
    assert elapsed < 5
    return lines[0]


@pytest.mark.parametrize(
    ("extra", "name"),
    [
        (["--gpu-memory-gb", "1e308"], "--gpu-memory-gb"),  # OverflowError before the fix
        (["--gpu-memory-gb", "inf"], "--gpu-memory-gb"),  # OverflowError before the fix
        (["--gpu-memory-gb", "nan"], "--gpu-memory-gb"),
        (["--gpu-memory-gb", "-1"], "--gpu-memory-gb"),
        (["--gpu-memory-gb", "100001"], "--gpu-memory-gb"),
        ([*H100, "--gpus", "1000000000"], "--gpus"),  # ran past 30 s before the fix
        ([*H100, "--gpus", "0"], "--gpus"),
        ([*H100, "--tp", "65"], "--tp"),
        ([*H100, "--pp", "100000"], "--pp"),
        ([*H100, "--context", "99999999999999"], "--context"),
        ([*H100, "--context", "0"], "--context"),
        ([*H100, "--gpu-util", "5"], "--gpu-util"),
        ([*H100, "--gpu-util", "0"], "--gpu-util"),
        ([*H100, "--gpu-util", "nan"], "--gpu-util"),
        ([*H100, "--overhead-fraction", "1"], "--overhead-fraction"),
        ([*H100, "--max-num-batched-tokens", "999999999999999999"], "--max-num-batched-tokens"),
        ([*H100, "--users", "99999999999999999999"], "--users"),
        ([*H100, "--users", "-1"], "--users"),
        ([*H100, "--engine", "vllm", "--engine-version", "9" * 5000], "--engine-version"),
        ([*H100, "--gpus", "1" + "0" * 5000], "--gpus"),
        ([*H100, "--gpus", "\u0661"], "--gpus"),  # an Arabic-Indic digit one
    ],
)
def test_fit_arguments_are_bounded(capsys: pytest.CaptureFixture[str], extra: list[str], name: str) -> None:
    one_line_error(capsys, ["fit", *LLAMA, *extra, "--json"], name)


@pytest.mark.parametrize(
    ("extra", "name"),
    [
        (["--users", "999999999999999", "--context", "4096"], "--users"),
        (["--users", "10", "--context", "4096", "--budget", "inf"], "--budget"),
        (["--users", "10", "--context", "4096", "--budget", "-5"], "--budget"),
        (["--users", "10", "--context", "99999999999"], "--context"),
        (["--users", "10", "--context", "4096", "--shared-prefix", "99999999999"], "--shared-prefix"),
        (["--users", "10", "--context", "4096", "--gpus-max", "99999999999999"], "--gpus-max"),
        (["--users", "10", "--context", "4096", "--limit", "999999999999"], "--limit"),
        (["--users", "10", "--context", "4096", "--unified-memory-share", "2"], "--unified-memory-share"),
    ],
)
def test_advise_arguments_are_bounded(capsys: pytest.CaptureFixture[str], extra: list[str], name: str) -> None:
    one_line_error(capsys, ["advise", *LLAMA, *extra, "--json"], name)


def _write(tmp_path: Path, name: str, data: bytes | str) -> str:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return str(path)


CONFIGS: list[tuple[str, bytes | str, str]] = [
    ("binary", b"\x00\x01\x02binary\xff\xfe\x80", "UTF-8"),
    ("utf16", json.dumps(SHAPE).encode("utf-16"), "UTF-8"),
    ("nested", "[" * 100_000 + "]" * 100_000, "nested"),
    ("infinity", '{"num_hidden_layers": Infinity}', "Infinity"),
    ("nan", json.dumps({**SHAPE, "hidden_size": float("nan")}), "NaN"),
    ("digits", '{"num_hidden_layers": ' + "9" * 5000 + "}", "digits"),
    ("float-overflow", '{"num_hidden_layers": 1e400}', "too large"),
    ("pattern", json.dumps({**SHAPE, "model_type": "gemma3_text", "sliding_window_pattern": "x"}), "sliding_window"),
    ("layers", json.dumps({**SHAPE, "model_type": "mistral", "sliding_window": 4096, "num_hidden_layers": 10**7}), ""),
    ("gemma2", json.dumps({**SHAPE, "model_type": "gemma2", "num_hidden_layers": 10**9}), "num_hidden_layers"),
    ("list", "[1, 2, 3]", "object"),
    ("empty", "", "JSON"),
    ("huge", " " * 2_000_000, "larger"),
]


@pytest.mark.parametrize(("name", "data", "message"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_a_hostile_config_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, data: bytes | str, message: str
) -> None:
    path = _write(tmp_path, f"{name}.json", data)
    for command in (["inspect"], ["fit", *H100]):
        one_line_error(capsys, [*command, "--config", path, "--json"], message)


def test_config_groups_as_a_list_is_read_or_refused_in_one_line(tmp_path: Path, capsys) -> None:
    config = {**SHAPE, "quantization_config": {"quant_method": "compressed-tensors", "config_groups": [1, 2]}}
    path = _write(tmp_path, "groups.json", json.dumps(config))
    status = main(["inspect", "--config", path, "--json"])
    out = capsys.readouterr()
    assert (status == 0 and json.loads(out.out)["id"]) or (status == 2 and out.err.count("\n") == 1)


@pytest.mark.parametrize("target", ["", "/dev/zero", "/", "missing.json", "fifo"])
def test_a_config_path_that_is_no_regular_file_is_one_line(tmp_path: Path, capsys, target: str) -> None:
    """``--config ''`` fell through to the catalog lookup (AttributeError); ``/dev/zero`` read forever; a FIFO
    hung."""
    if target == "fifo":
        target = str(tmp_path / "fifo")
        os.mkfifo(target)
    elif target == "missing.json":
        target = str(tmp_path / target)
    one_line_error(capsys, ["inspect", "--config", target, "--json"])
