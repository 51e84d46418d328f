"""The fifteenth blind set (tests/fidelity/cases/vllm-blind-2026-12n.json): fourteen public vLLM 0.27-0.28
start-ups found through the search index on 2026-12-06 by an outside reviewer and scored through the CLI before
anything changed (HEAD 9e0b68f):

- Qwen3.8-27B-FP8 on one H100 (0.27.1), started at 256 sequences and refused by the Mamba-block check at the default;
- an abliterated Qwen3.8-27B FP8 on an A100 80GB (Marlin W8A16) with MTP 4 at 131,072 tokens (0.27.1);
- Qwen3.8-27B-FP8 on a DGX Spark at util 0.50 and 4 sequences (0.28.0, prefix caching in 'align' mode);
- RadixArk's Qwen3.8-27B NVFP4 (NVIDIA's mixed layout) on one RTX 5090 under WSL2 at util 0.90-0.95 (0.27.1; five
  start-ups and the free-memory refusal at 0.95);
- Llama-3.1-8B AWQ on an RTX 3090 with a cold and a warm torch.compile cache (0.28.0);
- Qwen3.6-35B-A3B in BF16 on an RTX PRO 6000, refused by the Mamba-block check (0.28.0);
- Qwen2.5-7B AWQ on an RTX PRO 4000 Blackwell, a card the catalog lacks (planned on the RTX 4090's entry at its
  printed total, an indication only: out of scope).

As first scored: every verdict right (13 of 13 in scope), the KV cache far less so: median |KV error| 1.78 GiB over
the twelve in scope with a KV figure (1.38 counting one figure a source), one within 0.5 GiB, worst 5.84 (the DGX
Spark). The reviewer's first finding, vLLM 0.26.0-0.27.1 keeping prefix caching opt-in for hybrid models
(engine/arg_utils.py: "keep it opt-in for now"), which the planner had on from 0.26.0, is fixed since (rule
``hybrid_prefix_caching``, planner/engines/vllm/versions.toml); the H100 start-ups state the setting, so their scores
do not move. Each miss is named in ``bench.fidelity_unmatched`` with what would settle it."""

from __future__ import annotations

import pytest

from tests.fidelity.blind_sets import assert_as_scored, assert_sourced_and_held_out, first_scores, load_blind_set

BLIND, RESULTS = load_blind_set("vllm-blind-2026-12n.json")
IN_SCOPE = [c for c in BLIND if "out_of_scope" not in c["setup"]]
# The desktop share planned under Windows too (planner.deploy.host, 2026-12-06, chosen after this set was read, so no
# longer blind for it): the RTX 5090 WSL2 start-ups 1.17 GiB closer
NOW: dict[str, float] = {
    # +5.84 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.28-gb10-qwen38-27b-fp8-4k-util050-seqs4-align": 5.77,
    # +0.77 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-a100-80gb-qwen38-27b-fp8-marlin-mtp4-131k-util092": 0.71,
    # +4.24 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-h100-qwen38-27b-fp8-8k-util090-mamba-refusal": 4.18,
    # +0.29 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-h100-qwen38-27b-fp8-8k-util090-seqs256": 0.23,
    # +0.61 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # +0.35 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4fp8attn-fp8kv-82k-util090": 0.3,
    # +0.60 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # +0.35 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4fp8attn-fp8kv-82k-util093": 0.3,
    # +0.64 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # +0.38 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4fp8attn-fp8kv-82k-util094": 0.33,
    # +0.64 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # +0.38 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4fp8attn-fp8kv-128k-util094-kvoffload8": 0.33,
    # +0.64 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # +0.38 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4fp8attn-fp8kv-200k-util094": 0.33,
    # each boot in its own compile-cache state since 2026-12-07 (planner.engines.vllm.compile_copy): the cold one
    # holds the random copy of the 0.98 GiB embedding table (-0.56 -> -1.27; the warm one stays at -1.36), the pair's
    # difference 0.72 planned against 0.80 printed; the rest is the desktop share this headless server does not hold
    # -1.27 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # -1.14 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.28-rtx3090-llama31-8b-awq-util090-cold-compile": -1.13,
    # -1.36 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    "vllm-0.28-rtx3090-llama31-8b-awq-util090-warm-compile": -1.22,
    # +0.76 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # +0.89 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.28-rtxpro6000-qwen36-35b-a3b-bf16-32k-mamba-refusal": 0.9,
}


def test_the_set_is_sourced_and_kept_out_of_the_fit() -> None:
    assert_sourced_and_held_out(BLIND, RESULTS, 14)


# The mechanistic non-torch model (2026-12-07, fifty-third session; docs/fidelity.md 'The share candidate split
# by host'): no desktop share, the vision encoder's non-torch per item token, a per-process share under --host
# windows, the one-RTX-3090 document's boots cold; each value before it in the comment above it
NOW.update(
    {
        # +0.23 before
        # -0.56 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # -0.42 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # -0.48 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.27-h100-qwen38-27b-fp8-8k-util090-seqs256": -0.40,
        # +4.18 before
        # +3.39 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # +3.53 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # +3.47 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.27-h100-qwen38-27b-fp8-8k-util090-mamba-refusal": 3.55,
        # +0.71 before
        # -0.08 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # +0.06 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # +0.00 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.27-a100-80gb-qwen38-27b-fp8-marlin-mtp4-131k-util092": 0.04,
        # +0.30 before
        # +0.16 until the Windows term was a share of the weights loaded (2026-12-07, fifty-fourth session)
        "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4fp8attn-fp8kv-82k-util090": 0.00,
        # +0.30 before
        # +0.15 until the Windows term was a share of the weights loaded (2026-12-07, fifty-fourth session)
        "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4fp8attn-fp8kv-82k-util093": 0.00,
        # +0.33 before
        # +0.19 until the Windows term was a share of the weights loaded (2026-12-07, fifty-fourth session)
        "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4fp8attn-fp8kv-82k-util094": 0.03,
        # +0.33 before
        # +0.19 until the Windows term was a share of the weights loaded (2026-12-07, fifty-fourth session)
        "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4fp8attn-fp8kv-128k-util094-kvoffload8": 0.03,
        # +0.33 before
        # +0.19 until the Windows term was a share of the weights loaded (2026-12-07, fifty-fourth session)
        "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4fp8attn-fp8kv-200k-util094": 0.03,
        # -1.13 before
        "vllm-0.28-rtx3090-llama31-8b-awq-util090-cold-compile": -0.09,
        # -1.22 before
        "vllm-0.28-rtx3090-llama31-8b-awq-util090-warm-compile": -0.18,
        # +0.90 before
        # +1.15 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # +1.29 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # +1.23 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.28-rtxpro6000-qwen36-35b-a3b-bf16-32k-mamba-refusal": 1.31,
    }
)


# The Triton top-k / top-p kernel's cached buffer in the sampler warm-up, min(next_pow2(min(SMs, rows)), SMs)
# fp32 vocabulary rows (2026-12-07, fifty-sixth session, helper coder3; the refit Triton copies 3.7133 -> 3.5844);
# each value before it in the comment above it
NOW.update(
    {
        # +1.31 before
        "vllm-0.28-rtxpro6000-qwen36-35b-a3b-bf16-32k-mamba-refusal": 1.25,
    }
)


@pytest.mark.parametrize("case", IN_SCOPE, ids=[c["id"] for c in IN_SCOPE])
def test_each_as_scored(case: dict[str, object]) -> None:
    assert_as_scored(case, RESULTS, NOW)


def test_first_scores() -> None:
    median, worst, right = first_scores(IN_SCOPE)
    assert (median, worst, right) == (pytest.approx(1.78, abs=0.01), pytest.approx(5.84, abs=0.01), 13)


def test_the_card_the_catalog_lacks_is_reported_not_scored() -> None:
    """The RTX PRO 4000 Blackwell start-up: its printed 13.42 GiB kept as a record, no error counted."""
    (case,) = [c for c in BLIND if "out_of_scope" in c["setup"]]
    result = RESULTS[str(case["id"])]
    assert result.reported_kv_gib == pytest.approx(13.42) and result.kv_error_gib is None


# Restated from the planner's output for a Gated DeltaNet layer's own peak in the profile run and make calibrate's
# encoder refit 41,312 -> 37,217 B a token (2026-12-07, fifty-sixth session, helper relout2); the value before in the
# comment.
NOW.update(
    {
        "vllm-0.27-h100-qwen38-27b-fp8-8k-util090-seqs256": -0.34,  # -0.40
        "vllm-0.27-h100-qwen38-27b-fp8-8k-util090-mamba-refusal": 3.61,  # +3.55
        "vllm-0.27-a100-80gb-qwen38-27b-fp8-marlin-mtp4-131k-util092": 0.10,  # +0.04
        # +1.37 until coder3's Triton sampler buffer beside relout2's Gated DeltaNet layer peak (fifty-sixth session,
        # both refits)
        "vllm-0.28-rtxpro6000-qwen36-35b-a3b-bf16-32k-mamba-refusal": 1.32,  # +1.31
    }
)
