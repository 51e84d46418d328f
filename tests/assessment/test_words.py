"""Issue 22: a headline a manager can check. When the conversations held are not the pool's tokens divided by the
context, the same sentence says why (windowed layers keep only a window of each conversation; whole blocks);
contexts are written 1M, not 1024k."""

from __future__ import annotations

import json

import pytest

from planner.assessment.words import context_label
from planner.cli import main


def _sentence(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """vLLM 0.19 prints the pool's tokens (blocks x 16 / groups); from 0.20.1 it prints concurrency x max_model_len,
    which a windowed model's headline then divides evenly (see the last test)."""
    main(["fit", "--gpu", "h100-sxm-80gb", "--engine", "vllm", "--engine-version", "0.19.0", *argv, "--json"])
    text = str(json.loads(capsys.readouterr().out)["verdict_sentence"])
    capacity, target = text.rsplit(" That ", 1)  # the target sentence (32 users unless --users, planner.core.defaults)
    assert "the target of 32 users" in target, text
    return capacity


def test_contexts_in_mebi_tokens_are_written_as_such() -> None:
    assert [context_label(t) for t in (1048576, 2097152, 10485760, 131072)] == ["1M", "2M", "10M", "128k"]


def test_chunked_attention_is_named_in_the_headline(capsys: pytest.CaptureFixture[str]) -> None:
    text = _sentence(
        capsys, "--model", "meta-llama/Llama-4-Scout-17B-16E", "--gpus", "8", "--weights", "fp8", "--kv-dtype", "fp8",
        "--context", "1048576",
    )  # fmt: skip
    assert "1024k" not in text
    assert text.endswith(
        "holds 4.38 million tokens of FP8 KV cache: 15 concurrent conversations of 1M tokens, more than 4,384,624 ÷ "
        "1,048,576 because "
        "its 36 chunked-attention layers keep only the current 8,192-token chunk of each conversation."
    ), text


def test_sliding_windows_are_named_in_the_headline(capsys: pytest.CaptureFixture[str]) -> None:
    text = _sentence(
        capsys, "--model", "google/gemma-4-31B-it", "--gpus", "2", "--weights", "fp8", "--kv-dtype", "fp8",
        "--context", "32768",
    )  # fmt: skip
    # 215,648 until the mechanistic non-torch model (2026-12-07, fifty-third session): Gemma 4's encoder amount;
    # 214,960 until make calibrate refitted that amount without club-3090 #851's INT4 weights (fifty-fourth session);
    # 215,008 until FlashInfer's workspace was placed in FULL's first capture and make calibrate refit the encoder
    # amount to 46,417 B (2026-12-07); 214,976 until make calibrate refit it to 41,312 B beside the MTP drafter's
    # buffers (2026-12-07, fifty-fifth session)
    assert text.endswith(
        # 215,008 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
        "holds 215,024 tokens of FP8 KV cache: 20 concurrent conversations of 32k tokens, more than 215,024 ÷ 32,768 "
        "because its 50 sliding-window layers keep only the last 1,024 tokens of each conversation."
    ), text  # 431.7 k and 32 before vLLM's page unification; "215.9 k ÷ 32k" mixed 1,000 and 1,024 until 2026-12-05


def test_a_full_attention_model_needs_no_explanation(capsys: pytest.CaptureFixture[str]) -> None:
    text = _sentence(capsys, "--model", "meta-llama/Llama-3.1-8B", "--context", "8192")
    assert text.endswith("concurrent conversations of 8k tokens.") and "because" not in text


def test_a_release_that_prints_concurrency_x_context_needs_no_explanation(capsys: pytest.CaptureFixture[str]) -> None:
    """From vLLM 0.20.1 "GPU KV cache size" is int(max_concurrency x max_model_len): the headline's tokens divided by
    the context give the conversations, window or not."""
    argv = ["fit", "--gpu", "h100-sxm-80gb", "--engine", "vllm", "--engine-version", "0.31.0", "--json"]
    main([*argv, "--model", "google/gemma-4-31B-it", "--gpus", "2", "--weights", "fp8", "--context", "32768"])
    data = json.loads(capsys.readouterr().out)
    tokens, conversations = data["kv_budget_tokens_per_replica"], data["conversations_total"]
    assert tokens // 32768 == conversations and "because" not in data["verdict_sentence"]
