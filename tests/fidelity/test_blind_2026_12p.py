"""The seventeenth blind set (tests/fidelity/cases/vllm-blind-2026-12p.json): eight public vLLM start-ups found
through the search index on 2026-12-06 and scored before anything changed (HEAD 4f6c35d); five in scope:

- Llama-3.1-8B-Instruct in BF16 on an A40 at util 0.90 and 4,096 tokens (0.26.0; the card planned on the L40S
  entry, the catalog's 46,068 MiB card);
- Qwen3-8B-FP8 at 2,048 tokens and Qwen3-14B-FP8 at 8,192 tokens, the latter plain and with the
  LMCacheConnectorV1, on one RTX 4090 under WSL2 at util 0.90 (0.27.1);
- Gemma 4 31B-it in BF16 on a Kaggle RTX PRO 6000 Blackwell (card inferred) at util 0.94, 32,768 tokens and 20
  sequences (0.23.0);

and three kept as records: Qwen3-30B-A3B with YaRN at 131,072 tokens on four 22 GB Turing boards (vLLM 0.8.5's V0
engine; the only public YaRN start-up of Qwen3 past 40,960 tokens found), and RedHat's Qwen3.6-35B-A3B NVFP4 on an
RTX 5090 under WSL2 and on a DGX Spark (0.20.0, before this check's 0.22 window).

As first scored: verdicts 4 / 5, median |KV error| 0.13 GiB, worst -1.40 (the Qwen3-8B WSL2 boot, with a
sampler refusal planned where it started); the two Qwen3-14B boots of the same machine within 0.01 GiB, Gemma 4 31B
+0.13, the A40 +0.66 (a cold compile). Each miss is named in ``bench.fidelity_unmatched`` with its reason read
from vLLM's source at the release."""

from __future__ import annotations

import pytest

from tests.fidelity.blind_sets import (
    assert_as_scored,
    assert_records_unscored,
    assert_sourced_and_held_out,
    first_scores,
    load_blind_set,
)

BLIND, RESULTS = load_blind_set("vllm-blind-2026-12p.json")
IN_SCOPE = [c for c in BLIND if "out_of_scope" not in c["setup"]]
# Moved since first scored: Gemma 4 31B +0.13 -> -0.08 GiB once vLLM's V slot of its k_eq_v global layers is
# planned (planner/engines/vllm/slots.py, read from the source the same session, this set not looked at).
NOW: dict[str, float] = {
    # -0.08 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.23-kaggle-rtxpro6000-gemma4-31b-bf16-32k-util094-seqs20": -0.14,
    # its cold compile ('compilation: 29.60 s') planned since 2026-12-07: the random copy of the 0.98 GiB embedding
    # table replaces the 0.26 GiB forward as the transient (+0.66 -> -0.05)
    "vllm-0.26-a40-llama31-8b-instruct-bf16-4k-util090": -0.05,
    # -1.40 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # -1.27 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx4090-wsl2-qwen3-8b-fp8-2k-util090": -1.26,
    # +0.01 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # +0.14 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx4090-wsl2-qwen3-14b-fp8-8k-util090": 0.03,
    # +0.01 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # +0.14 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx4090-wsl2-qwen3-14b-fp8-8k-util090-lmcache": 0.03,
}
# The WSL2 Qwen3-8B-FP8 boot's sampler verdict (sampler-oom planned, it started) is right since 2026-12-07: the
# capture term is fitted without FlashAttention 3's split accumulators (planner.engines.vllm.split_accum), so its
# 0.75 GiB capture leaves 0.25 GiB for the 0.088 GiB sampler peak (0.077 before); its KV error is as scored.
VERDICTS_NOW = {"vllm-0.27-rtx4090-wsl2-qwen3-8b-fp8-2k-util090": True}


def test_the_set_is_sourced_and_kept_out_of_the_fit() -> None:
    assert_sourced_and_held_out(BLIND, RESULTS, 8)
    assert len(IN_SCOPE) == 5


# The mechanistic non-torch model (2026-12-07, fifty-third session; docs/fidelity.md 'The share candidate split
# by host'): no desktop share, the vision encoder's non-torch per item token, a per-process share under --host
# windows, the one-RTX-3090 document's boots cold; each value before it in the comment above it
NOW.update(
    {
        # -1.26 before
        # -1.40 until the Windows term was a share of the weights loaded (2026-12-07, fifty-fourth session)
        "vllm-0.27-rtx4090-wsl2-qwen3-8b-fp8-2k-util090": -0.84,
        # +0.03 before
        # -0.11 until the Windows term was a share of the weights loaded (2026-12-07, fifty-fourth session)
        "vllm-0.27-rtx4090-wsl2-qwen3-14b-fp8-8k-util090": -0.01,
        # +0.03 before
        # -0.11 until the Windows term was a share of the weights loaded (2026-12-07, fifty-fourth session)
        "vllm-0.27-rtx4090-wsl2-qwen3-14b-fp8-8k-util090-lmcache": -0.01,
        # -0.14 before
        # -0.26 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # -0.23 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        "vllm-0.23-kaggle-rtxpro6000-gemma4-31b-bf16-32k-util094-seqs20": -0.24,
    }
)


# FlashInfer's decode workspace inside FULL's first capture (2026-12-07, fifty-fourth session: vLLM's estimate
# takes the larger of the modes' first captures; the refit Windows share 0.0705 -> 0.0738 and encoder amount
# 42,337 -> 46,417 B a token); each value before it in the comment above it
NOW.update(
    {
        # -0.84 before
        "vllm-0.27-rtx4090-wsl2-qwen3-8b-fp8-2k-util090": -0.87,
        # -0.01 before
        "vllm-0.27-rtx4090-wsl2-qwen3-14b-fp8-8k-util090": -0.06,
        # -0.01 before
        "vllm-0.27-rtx4090-wsl2-qwen3-14b-fp8-8k-util090-lmcache": -0.06,
    }
)


@pytest.mark.parametrize("case", IN_SCOPE, ids=[c["id"] for c in IN_SCOPE])
def test_each_as_scored(case: dict[str, object]) -> None:
    assert_as_scored(case, RESULTS, NOW, VERDICTS_NOW)


def test_first_scores() -> None:
    median, worst, right = first_scores(IN_SCOPE)
    assert (median, worst, right) == (pytest.approx(0.13, abs=0.01), pytest.approx(1.40, abs=0.01), 4)


def test_the_records_are_reported_not_scored() -> None:
    """The YaRN boot and the two 0.20.0 boots keep their printed KV figures and count no error."""
    printed = {
        "vllm-0.8-2080ti22g-x4-qwen3-30b-a3b-fp16-yarn-131k-util092": 4.07,
        "vllm-0.20-rtx5090-wsl2-qwen36-35b-a3b-nvfp4-fp8kv-64k-seqs1": 2.95,
        "vllm-0.20-dgxspark-qwen36-35b-a3b-nvfp4-fp8kv-64k-seqs1": 82.42,
    }
    assert_records_unscored(BLIND, RESULTS, printed)


def test_the_connector_leaves_the_gpu_pool_as_it_was() -> None:
    """LMCache's connector (a 16 GiB CPU buffer) printed the same 29,248 tokens as the plain boot, and the plan
    is the same: the offload tier adds no GPU memory in the plan, nor in the log."""
    plain = RESULTS["vllm-0.27-rtx4090-wsl2-qwen3-14b-fp8-8k-util090"]
    lmcache = RESULTS["vllm-0.27-rtx4090-wsl2-qwen3-14b-fp8-8k-util090-lmcache"]
    assert plain.reported_tokens == lmcache.reported_tokens == 29248
    assert plain.report is not None and lmcache.report is not None
    assert plain.report.available_kv_cache_bytes_per_gpu == lmcache.report.available_kv_cache_bytes_per_gpu


# Restated from the planner's output for a Gated DeltaNet layer's own peak in the profile run and make calibrate's
# encoder refit 41,312 -> 37,217 B a token (2026-12-07, fifty-sixth session, helper relout2); the value before in the
# comment.
NOW.update(
    {
        "vllm-0.23-kaggle-rtxpro6000-gemma4-31b-bf16-32k-util094-seqs20": -0.22,  # -0.23
    }
)
