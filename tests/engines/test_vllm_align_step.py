"""Review 45c, finding 3: in Mamba cache mode 'align' (prefix caching on for Qwen3.5 / 3.6 / 3.8) vLLM 0.22.0-0.26.0
asserts that the hybrid's attention block fits one step (``VllmConfig.validate_block_size``, 0.22.0
``config/vllm.py:2101-2107``, 0.25.1 :2186-2192, 0.26.0 :2265-2271, after the KV cache is sized: 0.26.0
``v1/engine/core.py:321``); 0.27.0 dropped it (``config/vllm.py:2272-2310``). Before, the planner said these set-ups
start. Prefix caching is opt-in for hybrids until 0.27.1, so by default nothing is checked there."""

from __future__ import annotations

import json
from typing import Any

import pytest

from planner.cli import main
from planner.engines.logscan import Lines, find_failure

# Qwen3.6-35B-A3B on one H100: attention blocks of 1,056 tokens (one state page each) against a 1,024-token step
QWEN = ["fit", "--model", "Qwen/Qwen3.6-35B-A3B", "--gpu", "h100-sxm-80gb", "--max-num-batched-tokens", "1024"]
QWEN += ["--max-num-seqs", "64", "--json"]
ASSERTION = "AssertionError: In Mamba cache align mode, block_size (1056) must be <= max_num_batched_tokens (1024)."


def _fit(capsys: pytest.CaptureFixture[str], version: str, *extra: str) -> dict[str, Any]:
    main([*QWEN, "--engine-version", version, *extra])
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


@pytest.mark.parametrize("version", ["0.22.0", "0.25.1", "0.26.0"])
def test_align_mode_refuses_a_step_below_the_block(capsys: pytest.CaptureFixture[str], version: str) -> None:
    """With --enable-prefix-caching: refused with vLLM's assertion once the pool is printed, and the nearest
    set-ups are the two cures, each starting: the step raised to the block, or prefix caching off."""
    data = _fit(capsys, version, "--enable-prefix-caching")
    assert data["verdict"] == "engine-refuses-to-start" and data["engine_failure"] == ASSERTION
    lines = data["engine_lines"]
    # 6.34 GiB, 183,734 tokens, 22.43x and the cures' 22 / 28 conversations (233,844 tokens without prefix caching)
    # before the mechanistic non-torch model (2026-12-07, fifty-third session): Qwen3.6-35B-A3B's vision encoder's
    # non-torch amount, 0.79 GiB; 5.55 GiB, 160,914 tokens, 19.64x and 19 / 25 conversations (204,800 tokens without
    # prefix caching) until make calibrate refitted that amount without club-3090 #851's INT4 weights (2026-12-07,
    # fifty-fourth session: 0.65 GiB); 5.69 GiB, 165,010 tokens, 20.14x and 20 / 25 conversations (210,013 tokens
    # without prefix caching) until FlashInfer's workspace was placed in FULL's first capture and make calibrate refit
    # the encoder amount to 46,417 B (2026-12-07: 0.71 GiB); 5.63 GiB, 163,254 tokens, 19.93x and 19 / 25 (207,778
    # without prefix caching) until make calibrate refit it to 41,312 B beside the MTP drafter's buffers (2026-12-07,
    # fifty-fifth session: 0.63 GiB); 5.71 GiB, 165,595 tokens, 20.21x and 20 / 25 (210,757 without prefix caching)
    # until a Gated DeltaNet layer's own profile peak (0.22 -> 0.11 GiB here) and make calibrate's encoder refit to
    # 37,217 B (2026-12-07, fifty-sixth session: 0.57 GiB); 5.77 GiB, 167,350 tokens, 20.43x and 20 / 26 (212,992
    # without prefix caching) until the Triton sampler's cached buffer beside it (the same session, coder3 with relout2)
    assert lines == ["Available KV cache memory: 5.72 GiB", "GPU KV cache size: 165,595 tokens",
                     "Maximum concurrency for 8,192 tokens per request: 20.21x", ASSERTION]  # fmt: skip
    nearest = data["nearest"]
    assert [n["change"] for n in nearest[:2]] == [
        "--max-num-batched-tokens 1056 (a step of one whole attention block, as 'align' mode needs)",
        "--no-enable-prefix-caching (Mamba cache mode 'none': no block checked against the step)",
    ]
    assert [n["conversations"] for n in nearest[:2]] == [20, 25]
    raised = _fit(capsys, version, "--enable-prefix-caching", "--max-num-batched-tokens", "1056")
    assert raised["engine_starts"] and raised["engine_lines"][1] == "GPU KV cache size: 165,595 tokens"
    off = _fit(capsys, version, "--no-enable-prefix-caching")
    assert off["engine_starts"] and off["engine_lines"][1] == "GPU KV cache size: 210,757 tokens"


@pytest.mark.parametrize(
    ("version", "extra", "tokens"),
    [
        # 233,844 and 183,734 before the mechanistic non-torch model (2026-12-07, fifty-third session); 204,800 and
        # 160,914 until make calibrate refitted the encoder amount without club-3090 #851's INT4 weights (fifty-fourth);
        # 210,013 and 165,010 until FlashInfer's workspace was placed in FULL's first capture and make calibrate refit
        # the encoder amount to 46,417 B (2026-12-07); 207,778 and 163,254 until make calibrate refit it to 41,312 B
        # beside the MTP drafter's buffers (2026-12-07, fifty-fifth session)
        # 210,757 and 165,595 until a Gated DeltaNet layer's own profile peak and the encoder refit to 37,217 B
        # (2026-12-07, fifty-sixth session); 212,992 and 167,350 until the Triton sampler's cached buffer beside it (the
        # same session, coder3 with relout2)
        ("0.26.0", (), "210,757"),  # opt-in for hybrids: mode 'none', nothing checked
        ("0.27.0", ("--enable-prefix-caching",), "165,595"),  # the assertion is gone
        ("0.27.1", ("--enable-prefix-caching",), "165,595"),
        ("0.28.0", (), "165,595"),  # on by default, and no assertion
    ],
)
def test_it_starts_where_the_release_checks_nothing(
    capsys: pytest.CaptureFixture[str], version: str, extra: tuple[str, ...], tokens: str
) -> None:
    data = _fit(capsys, version, *extra)
    assert data["engine_starts"] and data["engine_failure"] is None
    assert data["engine_lines"][1] == f"GPU KV cache size: {tokens} tokens"


@pytest.mark.parametrize(
    ("flags", "block", "step"),
    [
        # the review's other two: a 27B's block is 784 tokens (bf16 KV) against a 512-token step, given or defaulted
        (["--model", "Qwen/Qwen3.6-27B", "--gpu", "rtx-5090", "--weights", "int4", "--max-num-batched-tokens", "512"],
         784, 512),
        (["--model", "Qwen/Qwen3.5-27B", "--gpu", "rtx-pro-6000-blackwell", "--max-num-seqs", "1", "--context", "512"],
         784, 512),  # the default step min(1 x 512, 8192)
    ],
)  # fmt: skip
def test_the_default_step_is_checked_too(
    capsys: pytest.CaptureFixture[str], flags: list[str], block: int, step: int
) -> None:
    main(["fit", *flags, "--engine-version", "0.26.0", "--enable-prefix-caching", "--json"])
    failure = json.loads(capsys.readouterr().out)["engine_failure"]
    assert failure == (
        f"AssertionError: In Mamba cache align mode, block_size ({block}) must be <= max_num_batched_tokens ({step})."
    )


def test_a_log_with_the_assertion_reads_as_that_refusal() -> None:
    assert find_failure(Lines(f"(EngineCore_DP0 pid=1) {ASSERTION}")) == (
        "mamba-align-step",
        f"(EngineCore_DP0 pid=1) {ASSERTION}",
    )
