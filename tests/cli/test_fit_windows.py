"""``fit``'s "KV per token" counts every layer at every token; for a model with windowed layers it says so, since
its windowed layers keep at most their window (an outside review read Gemma 3's 507,904 bytes as what vLLM stores
a token, 2026-12-05). 62 layers x 16 KV heads x 128 x 2 x 2 bytes = 507,904."""

from __future__ import annotations

import pytest

from planner.cli import main


def _kv_line(capsys: pytest.CaptureFixture[str], model: str) -> str:
    main(["fit", "--model", model, "--gpu", "h100-sxm-80gb", "--context", "32768", "--engine", "vllm"])
    return next(line for line in capsys.readouterr().out.splitlines() if line.startswith("KV per token"))


def test_a_windowed_model_says_its_windows_keep_less(capsys: pytest.CaptureFixture[str]) -> None:
    line = _kv_line(capsys, "google/gemma-3-27b-it")
    assert line.endswith("507,904 bytes (whole model, as if every layer kept every token: its windowed layers keep "
                         "at most 1,024)")  # fmt: skip


def test_a_model_without_windows_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    assert _kv_line(capsys, "meta-llama/Llama-3.1-8B").endswith("131,072 bytes (whole model)")
