"""The twenty-second blind set (tests/fidelity/cases/vllm-blind-2026-12u.json): ten public vLLM start-ups found
through the search index on 2026-12-07, not in the repository, and scored before anything changed (HEAD a8059bb);
eight in scope: Qwen2.5-0.5B-Instruct on an RTX PRO 6000 Blackwell Server Edition at util 0.85 under vLLM 0.26.0,
eager and with CUDA graphs, each under Model Runner V1 and V2 (an A/B in vllm issue #50159, tokens only); Intel's
Qwen3.6-35B-A3B int4-mixed AutoRound on one RTX 3090 at 8,192 tokens under 0.22.0, refused for its KV cache at util
0.92 and started at 0.95 (club-3090 pull request #323); Qwen3.6-27B-FP8 with MTP 3 and fp8 KV at 262,144 tokens on
two RTX 3090s under 0.24.0 (pull request #594) and Qwen3.8-27B-FP8 likewise under 0.27.1 (pull request #1139, its
'Actual usage' split); two records, vLLM's int8 KV not modelled (cyankiwi's Gemma 4 31B AWQ at TP 2 on two RTX
3090s, 0.26.0, Model Runner V1 and V2; the issue's own description).

As first scored: verdicts 7 / 8 (the 0.92 refusal planned to start), median |KV error| 0.195 GiB, worst -2.12 (the
V1 graph boot); the V2 boots within 0.14 GiB, both V1 boots 1.70-2.12 GiB under. Each miss is named in
``bench.fidelity_unmatched`` (``bench.fidelity_unmatched_u``)."""

from __future__ import annotations

import pytest

from bench.fidelity import misses
from tests.fidelity.blind_sets import (
    assert_as_scored,
    assert_records_unscored,
    assert_sourced_and_held_out,
    first_scores,
    load_blind_set,
)

BLIND, RESULTS = load_blind_set("vllm-blind-2026-12u.json")
IN_SCOPE = [c for c in BLIND if "out_of_scope" not in c["setup"]]
AB = "vllm-0.26-rtxpro6000se-qwen25-05b-instruct-util085-"
REFUSAL = "vllm-0.22-rtx3090-qwen36-35b-a3b-autoround-int4-8k-util092-kv-refusal"
RECORDS = {
    "vllm-0.26-2x3090-gemma4-31b-awq-int8kv-util094-mr1": 10.54,
    "vllm-0.26-2x3090-gemma4-31b-awq-int8kv-util094-mr2": 11.43,
}
# Moved since first scored (GiB): the allocator's segment tails counted with the weights (2026-12-07,
# planner.engines.vllm.allocator), 0.14 GiB of them on each rank of the two-card Qwen3.6 / 3.8-27B FP8 boots
NOW = {
    # +0.16 as first scored
    "vllm-0.22-rtx3090-qwen36-35b-a3b-autoround-int4-8k-util095": 0.18,
    # -0.22 as first scored
    "vllm-0.24-2x3090-qwen36-27b-fp8-mtp3-fp8kv-262k-club3090-594": -0.36,
    # +0.35 as first scored
    "vllm-0.27-2x3090-qwen38-27b-fp8-mtp3-fp8kv-262k-club3090-1139": 0.21,
}
# Qwen2.5-0.5B's KV page a token: 24 layers x 2 KV heads x 64 x (K and V) x 2 bytes (config.json)
PAGE = 24 * 2 * 64 * 2 * 2


def test_the_set_is_sourced_and_kept_out_of_the_fit() -> None:
    """Every case cites its public source (a search-index file id, or the issue or pull request the 'issues'
    corpus returned, with its address), is scored, and is kept out of ``make calibrate``."""
    assert_sourced_and_held_out(BLIND, RESULTS, 10, cites=("file id", "https://github.com/"))
    assert len(IN_SCOPE) == 8


# The mechanistic non-torch model (2026-12-07, fifty-third session; docs/fidelity.md 'The share candidate split
# by host'): no desktop share, the vision encoder's non-torch per item token, a per-process share under --host
# windows, the one-RTX-3090 document's boots cold; each value before it in the comment above it
NOW.update(
    {
        # +0.17 before
        "vllm-0.22-rtx3090-qwen36-35b-a3b-autoround-int4-8k-util092-kv-refusal": 0.42,
        # +0.18 before
        "vllm-0.22-rtx3090-qwen36-35b-a3b-autoround-int4-8k-util095": 0.42,
        # -0.36 before
        "vllm-0.24-2x3090-qwen36-27b-fp8-mtp3-fp8kv-262k-club3090-594": -0.24,
        # +0.21 before
        "vllm-0.27-2x3090-qwen38-27b-fp8-mtp3-fp8kv-262k-club3090-1139": 0.33,
    }
)
# The int4-mixed-autoround remap and its encoder refit (wt_kv3090), then FlashInfer's decode workspace inside FULL's
# first capture (2026-12-07, fifty-fourth session: the graph estimate 0.50 -> 0.40 GiB; the refit encoder amount
# 42,337 -> 46,417 B a token); the remap's figures (-0.10 / -0.10) in the comment
NOW.update(
    {
        # -0.10 with the remap
        "vllm-0.22-rtx3090-qwen36-35b-a3b-autoround-int4-8k-util092-kv-refusal": -0.06,
        # -0.10 with the remap
        "vllm-0.22-rtx3090-qwen36-35b-a3b-autoround-int4-8k-util095": -0.07,
        # -0.16 with the allocator tails and the remap
        "vllm-0.24-2x3090-qwen36-27b-fp8-mtp3-fp8kv-262k-club3090-594": -0.20,
        # +0.41 with the allocator tails and the remap
        "vllm-0.27-2x3090-qwen38-27b-fp8-mtp3-fp8kv-262k-club3090-1139": 0.37,
    }
)
VERDICTS_NOW = {"vllm-0.22-rtx3090-qwen36-35b-a3b-autoround-int4-8k-util092-kv-refusal": True}

# Intel's int4-mixed layout (2026-12-07, fifty-fourth session; planner.core.mixed_formats, the remap at 4c96c4a): the
# Qwen3.6-35B-A3B checkpoint's attention and shared experts in INT8 rather than INT4, 0.66 GiB more weights (19.82 GiB,
# 19.16 before): the twins +0.42 -> -0.24; then make calibrate's refit without club-3090 #851's under-counted INT4
# weights (6f541ba: the encoder's non-torch per item token 51,796 -> 42,337 bytes) plans 0.14 GiB less encoder
# memory on each Qwen3.5-family boot that loads the vision tower: the twins -0.24 -> -0.10, the two-RTX-3090 27B FP8
# boots -0.24 -> -0.16 and +0.33 -> +0.41
NOW.update(
    {
        # +0.42 until the remap and refit (2026-12-07)
        # -0.10 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # -0.06 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.22-rtx3090-qwen36-35b-a3b-autoround-int4-8k-util092-kv-refusal": 0.01,
        # +0.42 until the remap and refit (2026-12-07)
        # -0.10 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # -0.07 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.22-rtx3090-qwen36-35b-a3b-autoround-int4-8k-util095": 0.01,
        # -0.24 until the refit (2026-12-07)
        # -0.16 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # -0.20 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.24-2x3090-qwen36-27b-fp8-mtp3-fp8kv-262k-club3090-594": -0.16,
        # +0.33 until the refit (2026-12-07)
        # +0.41 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # +0.37 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.27-2x3090-qwen38-27b-fp8-mtp3-fp8kv-262k-club3090-1139": 0.26,
    }
)


# The Triton top-k / top-p kernel's cached buffer in the sampler warm-up, min(next_pow2(min(SMs, rows)), SMs)
# fp32 vocabulary rows (2026-12-07, fifty-sixth session, helper coder3; the refit Triton copies 3.7133 -> 3.5844);
# each value before it in the comment above it
NOW.update(
    {
        # -1.70 before
        "vllm-0.26-rtxpro6000se-qwen25-05b-instruct-util085-eager-mr1": -1.73,
        # -2.12 before
        "vllm-0.26-rtxpro6000se-qwen25-05b-instruct-util085-graphs-mr1": -2.15,
    }
)


@pytest.mark.parametrize("case", IN_SCOPE, ids=[c["id"] for c in IN_SCOPE])
def test_each_as_scored(case: dict[str, object]) -> None:
    assert_as_scored(case, RESULTS, NOW, VERDICTS_NOW)


def test_first_scores() -> None:
    median, worst, right = first_scores(IN_SCOPE)
    assert (median, worst, right) == (pytest.approx(0.195, abs=0.001), pytest.approx(2.12, abs=0.01), 7)


def test_the_records_are_reported_not_scored() -> None:
    """The Gemma 4 AWQ boots keep their printed KV (int8 per-token-head KV is not modelled) and count no error."""
    assert_records_unscored(BLIND, RESULTS, RECORDS)


def test_the_ab_pools_are_the_tokens() -> None:
    """The A/B quotes tokens only: each budget is its tokens x 12 KiB (one KV group of a plain model), and the
    graph boots hold 17,584 (V1) and 8,544 (V2) tokens fewer than eager, 0.20 and 0.10 GiB, as the comment reads
    the logs ('MRv1 reserving ~0.21 GiB of capture headroom vs ~0.10 GiB for MRv2')."""
    tokens = {str(c["id"]).removeprefix(AB): c["reported"]["kv_cache_tokens"] for c in BLIND if AB in str(c["id"])}
    assert tokens["eager-mr1"] == tokens["eager-mr2"] == 6_908_880
    for name, count in tokens.items():
        assert RESULTS[AB + name].reported_kv_gib == pytest.approx(count * PAGE / 2**30, abs=0.005)
    assert (tokens["eager-mr1"] - tokens["graphs-mr1"]) * PAGE / 2**30 == pytest.approx(0.20, abs=0.005)
    assert (tokens["eager-mr2"] - tokens["graphs-mr2"]) * PAGE / 2**30 == pytest.approx(0.10, abs=0.005)


@pytest.mark.xfail(strict=True, reason="bench.fidelity_unmatched_u: the V1 sampler warm-up the A/B does not show")
def test_model_runner_v1_within_target() -> None:
    """Both V1 boots within 0.5 GiB: fails as found (-1.70 eager, -2.12 with graphs), the V2 boots within 0.14."""
    assert all(not misses(RESULTS[AB + name]) for name in ("eager-mr1", "graphs-mr1", "eager-mr2", "graphs-mr2"))


def test_the_kv_refusal_is_planned() -> None:
    """The 0.92 boot refused for its KV cache (0.07 GiB left for an 8,192-token window): planned to start as found,
    then for no memory at all (-0.03 GiB) with the int4-mixed weights; 'too small' (0.01 GiB) since FlashInfer's
    workspace sits in FULL's first capture (0.22.0 v1/worker/gpu_model_runner.py:6359-6364)."""
    assert RESULTS[REFUSAL].predicted_failure == "kv-cache-too-small"


def test_the_v1_sampler_term_is_the_sources() -> None:
    """The V1 boots' planned peak is 0.26.0's warm-up read from the source: 1,024 rows of the 151,936-token
    vocabulary held as bf16 logits, their fp32 copy (v1/sample/sampler.py:96), the probabilities
    (v1/sample/ops/topk_topp_sampler.py:141) and the noise (:457), beside the Triton kernel's 188-SM buffer
    (topk_topp_triton.py:906-919) and the batch's hidden states: within 0.06 GiB of the planned 2.18. So the A/B's
    equal V1 / V2 eager pools are a set-up question (bench.fidelity_unmatched_u), not this term's."""
    rows, vocab, tokens, hidden, sms = 1024, 151_936, 16_384, 896, 188
    source = rows * vocab * (2 + 4 + 4 + 4) + sms * vocab * 4 + tokens * hidden * 2
    report = RESULTS[AB + "eager-mr1"].report
    assert report is not None and report.activation_bytes / 2**30 == pytest.approx(source / 2**30, abs=0.06)


# Restated from the planner's output for a Gated DeltaNet layer's own peak in the profile run and make calibrate's
# encoder refit 41,312 -> 37,217 B a token (2026-12-07, fifty-sixth session, helper relout2); the value before in the
# comment.
NOW.update(
    {
        "vllm-0.22-rtx3090-qwen36-35b-a3b-autoround-int4-8k-util092-kv-refusal": -0.03,  # +0.01
        "vllm-0.22-rtx3090-qwen36-35b-a3b-autoround-int4-8k-util095": -0.03,  # +0.01
        "vllm-0.24-2x3090-qwen36-27b-fp8-mtp3-fp8kv-262k-club3090-594": -0.13,  # -0.16
        "vllm-0.27-2x3090-qwen38-27b-fp8-mtp3-fp8kv-262k-club3090-1139": 0.29,  # +0.26
    }
)
