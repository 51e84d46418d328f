"""The ninth blind set (tests/fidelity/cases/vllm-blind-2026-12i.json): six public vLLM 0.24-0.28 start-ups found on
2026-12-04 through the search index and scored before anything changed (each case's ``unseen_score``): Qwen2.5-0.5B
on an RTX 4090 under WSL2 (0.27.1), Qwen3-Coder-30B-A3B at TP 4 and Qwen3-Coder-Next's Mamba-block refusal on four
L40S (0.24.0), Gemma 4 26B-A4B FP8 and Gemma 4 E4B on one L40S (0.25.1), and a patched Qwen3.8-27B AutoRound build
on an RTX 3090 (0.28.0). As first scored: median |KV error| 1.51 GiB, worst 3.33; 5 of 6 verdicts right (the
patched build, predicted to refuse a 131,072-token request, started)."""

from __future__ import annotations

import pytest

from tests.fidelity.blind_sets import assert_as_scored, assert_sourced_and_held_out, first_scores, load_blind_set

BLIND, RESULTS = load_blind_set("vllm-blind-2026-12i.json")
# What the planner gives now where it differs from the first score: since 2026-12-04 the 1.17 GiB fitted on desktop
# GeForce / RTX start-ups is not planned on the datacenter cards built on the same dies (planner.core.gpu
# DevicePlatform.desktop_card), a rule chosen on the seven L40S start-ups of this set and the tenth, which are no
# longer blind for it (median |KV error| 0.75 -> 0.41 GiB; 6 of 7 verdicts right before and after)
NOW: dict[str, float] = {
    # 0.12 until Qwen3-Coder-30B-A3B-Instruct was catalogued with its 262,144 RoPE positions (2026-12-07, fifty-fourth
    # session; Qwen3-30B-A3B's 40,960 before: 0.053 GiB more weights a rank)
    "vllm-0.24-4xl40s-qwen3-coder-30b-a3b-bf16-tp4-32k": 0.07,
    # +0.41 until the KV-head replication was counted in the 12 attention layers only (2026-12-07, fifty-fourth session)
    "vllm-0.24-4xl40s-qwen3-coder-next-tp4-16k-mamba-refusal": 0.44,
    # 0.42 before the forward's refit, 0.43 until vLLM's prefix-LM floor of 2,496 batched tokens (2026-12-05; its
    # printed tokens are those of 2,496: tests/engines/test_vllm_batch_resolution.py), 0.39 (tokens +3.0 %) until the
    # V slot of the k_eq_v global layers was planned (2026-12-06: 25.66 GiB of weights planned, 25.80 printed)
    # +0.38 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.25-l40s-gemma4-26b-a4b-fp8-32k-util092": 0.33,
    # Model Runner V2's sampler derived from the source and no V2 graph estimate before 0.29 (2026-12-04): -1.34
    # before (0.97 GiB of fitted sampler term over Gemma's 262,144-token vocabulary, 0.84 of graph estimate); +0.09
    # until the shared-KV layers' k/v projections vLLM 0.25 builds were planned (2026-12-06: 0.10 GiB more weights)
    # -0.01 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.25-l40s-gemma4-e4b-it-bf16-16k-util085": -0.04,
    # the Windows host (planner.deploy.host, since 2026-12-04, chosen after this case and the eleventh set's WSL2
    # start-ups were read): the card's whole 23.99 GiB and no desktop-card share; the first score took the total
    # from the log and planned the share (-2.27); -1.10 until V2's sampler was derived (its printed peak 0.08 GiB);
    # -0.07 until the desktop share was planned under Windows too (2026-12-06: ten of eleven WSL2 start-ups hold it,
    # this one, Qwen2.5-0.5B, does not)
    # -1.25 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # -1.12 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx4090-wsl2-qwen25-0.5b-2k-util085": -1.1,
    # the syv-ai image's lm_head and embed_tokens as it serves them, int8 group 128 (2026-12-07, read from its
    # prepare/ scripts, planner.core.vocab_formats; the printed weights of its util-0.972 boot, 14.26 GiB, planned
    # 14.32): -3.33 from the tokens when found, -1.01 now, and it starts as it did
    # -1.01 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # -1.26 before the 4-bit body at 4.125 bits, symmetric with no zero point (2026-12-07, planner.core.vocab_formats)
    # -1.17 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    # -1.31 before the desktop share's refit on the merged tree (2026-12-07, graphics_extra 1.046 -> 1.032 GiB)
    "vllm-0.28-rtx3090-qwen38-27b-w4a16-autoround-syvai-131k-util096": -1.30,
}
VERDICTS_NOW: dict[str, bool] = {
    "vllm-0.24-4xl40s-qwen3-coder-next-tp4-16k-mamba-refusal": False,
    "vllm-0.28-rtx3090-qwen38-27b-w4a16-autoround-syvai-131k-util096": True,
}


def test_the_set_is_sourced_and_kept_out_of_the_fit() -> None:
    assert_sourced_and_held_out(BLIND, RESULTS, 6)


# The mechanistic non-torch model (2026-12-07, fifty-third session; docs/fidelity.md 'The share candidate split
# by host'): no desktop share, the vision encoder's non-torch per item token, a per-process share under --host
# windows, the one-RTX-3090 document's boots cold; each value before it in the comment above it
NOW.update(
    {
        # -1.10 before
        # -1.25 until the Windows term was a share of the weights loaded (2026-12-07, fifty-fourth session)
        "vllm-0.27-rtx4090-wsl2-qwen25-0.5b-2k-util085": -0.14,
        # -1.30 before
        "vllm-0.28-rtx3090-qwen38-27b-w4a16-autoround-syvai-131k-util096": -0.27,
        # +0.33 before
        # +0.21 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        "vllm-0.25-l40s-gemma4-26b-a4b-fp8-32k-util092": 0.23,
        # -0.04 before
        # -0.16 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # -0.14 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        "vllm-0.25-l40s-gemma4-e4b-it-bf16-16k-util085": -0.15,
    }
)


# FlashInfer's decode workspace inside FULL's first capture (2026-12-07, fifty-fourth session: vLLM's estimate
# takes the larger of the modes' first captures; the refit Windows share 0.0705 -> 0.0738 and encoder amount
# 42,337 -> 46,417 B a token); each value before it in the comment above it
NOW.update(
    {
        # -0.27 before
        "vllm-0.28-rtx3090-qwen38-27b-w4a16-autoround-syvai-131k-util096": -0.20,
    }
)


# The Triton top-k / top-p kernel's cached buffer in the sampler warm-up, min(next_pow2(min(SMs, rows)), SMs)
# fp32 vocabulary rows (2026-12-07, fifty-sixth session, helper coder3; the refit Triton copies 3.7133 -> 3.5844);
# each value before it in the comment above it
NOW.update(
    {
        # +0.07 before
        "vllm-0.24-4xl40s-qwen3-coder-30b-a3b-bf16-tp4-32k": 0.01,
        # +0.44 before
        "vllm-0.24-4xl40s-qwen3-coder-next-tp4-16k-mamba-refusal": 0.38,
        # +0.24 before
        "vllm-0.25-l40s-gemma4-26b-a4b-fp8-32k-util092": 0.13,
    }
)


@pytest.mark.parametrize("case", BLIND, ids=[c["id"] for c in BLIND])
def test_each_as_scored(case: dict[str, object]) -> None:
    assert_as_scored(case, RESULTS, NOW, VERDICTS_NOW)


def test_first_scores() -> None:
    median, worst, right = first_scores(BLIND)
    assert (median, worst, right) == (pytest.approx(1.51, abs=0.01), pytest.approx(3.33, abs=0.01), 5)


# Restated from the planner's output for a Gated DeltaNet layer's own peak in the profile run and make calibrate's
# encoder refit 41,312 -> 37,217 B a token (2026-12-07, fifty-sixth session, helper relout2); the value before in the
# comment.
NOW.update(
    {
        # +0.25 until coder3's Triton sampler buffer beside relout2's Gated DeltaNet layer peak (fifty-sixth session,
        # both refits)
        "vllm-0.25-l40s-gemma4-26b-a4b-fp8-32k-util092": 0.14,  # +0.24
        "vllm-0.25-l40s-gemma4-e4b-it-bf16-16k-util085": -0.13,  # -0.14
    }
)
