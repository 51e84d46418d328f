"""``python -m planner calibrate --log FILE``: the log parser and the comparison, without the dashboard."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from planner.calibration import calibrate_log
from planner.cli import main

ROOT = Path(__file__).resolve().parents[2]
LOGS = json.loads((ROOT / "tests/fixtures/reference/engine-logs-public.json").read_text(encoding="utf-8"))
CASE = LOGS[0]  # vLLM 0.19 on one H100, Llama-3.1-8B-Instruct, max_model_len 8192, util 0.95
# The log's lines name neither the model, the device total nor the release: they are given (from the fixture's
# record), the rest is read from the log.
SETUP = ["--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--engine-version", CASE["engine_version"]]


@pytest.fixture
def log_file(tmp_path: Path) -> Path:
    path = tmp_path / "startup.log"
    path.write_text("\n".join(CASE["verbatim"]), encoding="utf-8")
    return path


def test_calibrate_json_compares_every_printed_figure(log_file: Path, capsys) -> None:
    assert main(["calibrate", "--log", str(log_file), *SETUP, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["setup"]["model"] == "meta-llama/Llama-3.1-8B"
    assert data["setup"]["gpu"] == "h100-sxm-80gb"
    assert data["setup"]["max_model_len"] == CASE["max_model_len"]
    figures = {c["name"]: c for c in data["comparisons"]}
    reported = CASE["reported"]
    assert figures["available KV cache"]["printed"] == pytest.approx(reported["kv_cache_gib"])
    assert figures["weights"]["printed"] == pytest.approx(reported["weights_gib"])
    assert figures["KV cache tokens"]["printed"] == reported["kv_cache_tokens"]
    kv = figures["available KV cache"]
    assert kv["difference"] == pytest.approx(kv["predicted"] - kv["printed"])
    assert abs(kv["difference"]) < 1.0  # GiB: the prediction is close on this log
    assert data["calibration_token"].startswith("cal1~vllm~0.19.0~0.95~")
    assert data["calibrated_kv_gib"] == pytest.approx(reported["kv_cache_gib"], abs=0.05)
    assert set(data["setup"]["from_log"]) >= {"max_model_len", "gpu_memory_utilization"}
    expected = calibrate_log(
        "\n".join(CASE["verbatim"]), model="meta-llama/Llama-3.1-8B", gpu="h100-sxm-80gb", engine_version="0.19.0"
    )
    assert data["calibration_token"] == expected.calibration_token


def test_calibrate_table_and_given_set_up(log_file: Path, capsys) -> None:
    assert main(["calibrate", "--log", str(log_file), *SETUP, "--tp", "1"]) == 0
    out = capsys.readouterr().out
    assert "available KV cache" in out and "calibrated: cal1~vllm~" in out
    # counts in whole numbers, GiB and the concurrency in hundredths: the log's 476,016 tokens and 29,751 blocks
    # (CASE["reported"]) had read "476,016.00" and "29,751.00" (a review, 2026-12-07)
    rows = {line.split("  ")[0]: line.split() for line in out.splitlines()}
    assert rows["KV cache tokens"][-2] == "476,016" and rows["GPU blocks"][-2] == "29,751"
    assert rows["available KV cache"][-2] == "58.11" and rows["maximum concurrency"][-2] == "58.11"


@pytest.mark.slow
def test_calibrate_runs_as_a_module(log_file: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "planner", "calibrate", "--log", str(log_file), *SETUP, "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["setup"]["gpu"] == "h100-sxm-80gb"


def test_a_log_naming_its_model_only_in_its_arguments_asks_for_the_gpu_by_the_cli_flag(log_file: Path, capsys) -> None:
    """The excerpt names its model only in vLLM's "non-default args" line ('model': 'meta-llama/Llama-3.1-8B-Instruct')
    and prints no device total: the model is read, the GPU asked for by the CLI's own flag (the review of
    2026-12-07, finding 7: it had said the log does not name its model, and suggested ``gpu=...``)."""
    assert main(["calibrate", "--log", str(log_file), "--json"]) == 2
    err = capsys.readouterr().err
    assert "does not say which GPU; name it with --gpu (a catalog id)" in err
    assert "model" not in err.split("calibration:")[-1].split(";")[0]
    assert main(["calibrate", "--log", str(log_file), "--gpu", "h100-sxm-80gb", "--json"]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert data["setup"]["model"] == "meta-llama/Llama-3.1-8B" and "model" in data["setup"]["from_log"]
    assert (
        "Llama-3.1-8B-Instruct: planned as the catalog's Llama 3.1 8B (meta-llama/Llama-3.1-8B), same shapes"
        in (data["notes"])
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "not a regular file"),  # /dev/zero
        (b"x" * 4_000_001, "larger than a start-up log can be"),
        (b"hello, not a log", "no memory figures"),
        (b"\xff\xfe\x00" * 100, "no memory figures"),
        (b"Available KV cache memory: 58.11 GiB\nModel loading took 999999999999999 GiB", "weights_gib"),
    ],
)
def test_calibrate_refuses_in_one_line(tmp_path: Path, capsys, content: bytes | None, message: str) -> None:
    path = "/dev/zero"
    if content is not None:
        path = str(tmp_path / "bad.log")
        Path(path).write_bytes(content)
    assert main(["calibrate", "--log", path, "--json"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
