"""The twenty-third blind set (tests/fidelity/cases/vllm-blind-2026-12v.json): seven public vLLM start-ups found
through the search index on 2026-12-07, not in the repository, and scored before anything changed (HEAD 8918bde);
five in scope: Qwen3.8-27B-FP8 with MTP 3 and fp8 KV at 262,144 tokens on two RTX 5090s under 0.25.1 (club-3090
issue #998) and 0.27.1 (issue #1087, its 'Actual usage' split), RadixArk's Qwen3.8-27B NVFP4 likewise at util 0.90
on two RTX 5090s (0.27.1, issue #1026) and on the maintainer's two RTX 3090s through Marlin's fallback (0.25.1, the
compose header of f25a839a, tokens only), and nvidia/Qwen3.6-35B-A3B-NVFP4 at 180,224 tokens and 8 sequences on an
RTX PRO 6000 Blackwell with the Marlin MoE backend (0.25.1, vllm issue #49476); two records: the same RTX PRO 6000
boot with FlashInfer's b12x MoE backend (its workspace not modelled) and a 100,352-token RTX 5090 boot whose error
the index cuts (club-3090 issue #617).

As first scored: verdicts 5 / 5, median |KV error| 0.23 GiB, worst +0.45 (the 0.27.1 NVFP4 boot); every start-up
within the 0.5 GiB target, so none is named in ``bench.fidelity_unmatched``."""

from __future__ import annotations

import pytest

from bench.fidelity import misses
from planner.core.units import GiB
from tests.fidelity.blind_sets import (
    assert_as_scored,
    assert_records_unscored,
    assert_sourced_and_held_out,
    first_scores,
    load_blind_set,
)

BLIND, RESULTS = load_blind_set("vllm-blind-2026-12v.json")
IN_SCOPE = [c for c in BLIND if "out_of_scope" not in c["setup"]]
AB = "vllm-0.25-rtxpro6000-qwen36-35b-a3b-nvfp4-fp8kv-180k-seqs8-"
SPLIT = "vllm-0.27-2x5090-qwen38-27b-fp8-mtp3-fp8kv-262k-club3090-1087"
# What the planner gives now where it differs from the first score: the allocator's segment tails counted with the
# loaded weights (planner/engines/vllm/allocator.py) and the desktop share's refit on the merged tree (2026-12-07,
# fifty-third session); as first scored -0.06, +0.23, +0.45, -0.24, -0.03 GiB
NOW: dict[str, float] = {
    "vllm-0.25-2x5090-qwen38-27b-fp8-mtp3-fp8kv-262k-club3090-998": -0.20,
    SPLIT: 0.10,
    "vllm-0.27-2x5090-qwen38-27b-nvfp4-mtp3-fp8kv-262k-util090-club3090-1026": 0.33,
    "vllm-0.25-2x3090-qwen38-27b-nvfp4-marlin-mtp3-fp8kv-262k-util090-club3090-refrig": -0.36,
    AB + "marlin-49476": -0.01,
}
RECORDS = {
    AB + "b12x-49476": 52.89,
    "vllm-0.24-rtx5090-qwen36-27b-nvfp4-mtp3-fp8kv-100k-util085-club3090-617": 3.93,
}


def test_the_set_is_sourced_and_kept_out_of_the_fit() -> None:
    """Every case cites its public source (the issue or pull request the 'issues' corpus returned, or the
    repository file read from a fetched snapshot, with its address), is scored, and is kept out of ``make
    calibrate``."""
    assert_sourced_and_held_out(BLIND, RESULTS, 7, cites=("file id", "https://github.com/"))
    assert len(IN_SCOPE) == 5


# The mechanistic non-torch model (2026-12-07, fifty-third session; docs/fidelity.md 'The share candidate split
# by host'): no desktop share, the vision encoder's non-torch per item token, a per-process share under --host
# windows, the one-RTX-3090 document's boots cold; each value before it in the comment above it
NOW.update(
    {
        # -0.20 before
        # -0.08 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # +0.00 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # -0.03 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.25-2x5090-qwen38-27b-fp8-mtp3-fp8kv-262k-club3090-998": 0.00,
        # +0.10 before
        # +0.22 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # +0.29 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # +0.26 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.27-2x5090-qwen38-27b-fp8-mtp3-fp8kv-262k-club3090-1087": 0.14,
        # +0.33 before
        # +0.45 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # +0.53 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # +0.50 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.27-2x5090-qwen38-27b-nvfp4-mtp3-fp8kv-262k-util090-club3090-1026": 0.38,
        # -0.36 before
        # -0.24 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # -0.17 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # -0.20 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.25-2x3090-qwen38-27b-nvfp4-marlin-mtp3-fp8kv-262k-util090-club3090-refrig": -0.16,
        # -0.01 before
        # +0.23 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # +0.37 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # +0.40 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.25-rtxpro6000-qwen36-35b-a3b-nvfp4-fp8kv-180k-seqs8-marlin-49476": 0.48,
    }
)


@pytest.mark.parametrize("case", IN_SCOPE, ids=[c["id"] for c in IN_SCOPE])
def test_each_as_scored(case: dict[str, object]) -> None:
    assert_as_scored(case, RESULTS, NOW)


def test_first_scores() -> None:
    median, worst, right = first_scores(IN_SCOPE)
    assert (median, worst, right) == (pytest.approx(0.23, abs=0.001), pytest.approx(0.45, abs=0.001), 5)


def test_every_start_up_but_1026_within_target() -> None:
    """KV within 0.5 GiB, tokens within 3 % (10 % below a 10 GiB pool) and the verdict right: all five as found;
    #1026 left the target when make calibrate refitted the encoder amount without club-3090 #851's INT4 weights
    (2026-12-07, fifty-fourth session: KV +0.45 -> +0.53 GiB, tokens +2.8 -> +3.3 %, named in
    bench.fidelity_unmatched_y). Since FlashInfer's workspace sat in FULL's first capture and make calibrate refit that
    amount to 46,417 B a token (the same session) it is +0.50 GiB, within the KV target, its tokens +3.2 %, not. With
    the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session) it is +0.38 GiB,
    tokens +2.3 %: all five within target again."""
    out = {str(c["id"]): misses(RESULTS[str(c["id"])]) for c in IN_SCOPE if misses(RESULTS[str(c["id"])])}
    assert out == {}  # #1026's tokens until the drafter's buffers
    assert RESULTS["vllm-0.27-2x5090-qwen38-27b-nvfp4-mtp3-fp8kv-262k-util090-club3090-1026"].token_error == (
        # 0.023 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
        pytest.approx(0.027, abs=0.001)  # 0.032 until the drafter's buffers
    )


def test_the_records_are_reported_not_scored() -> None:
    """The b12x boot keeps its printed KV (the backend's workspace is not modelled) and the 100,352-token boot its
    3.93 GiB (its error cut in the index); neither counts an error."""
    assert_records_unscored(BLIND, RESULTS, RECORDS)


def test_the_moe_backend_ab_is_the_comments() -> None:
    """The comment's A/B on one RTX PRO 6000 ('Same weights, same flags, same GPU'): the b12x arm prints 11.47 GiB
    less KV than the Marlin arm; the planner's Marlin arm is +0.23 GiB (-0.01 before the mechanistic non-torch model,
    2026-12-07, fifty-third session: the RTX PRO 6000's desktop share of 1.03 GiB no longer planned, the vision
    encoder's amount in its place; +0.37 since make calibrate refitted that amount without club-3090 #851's
    under-counted INT4 weights, 2026-12-07, fifty-fourth session; +0.40 since FlashInfer's workspace sat in FULL's
    first capture and make calibrate refit that amount to 46,417 B a token, the same session; +0.48 since make
    calibrate refit it to 41,312 B beside the MTP drafter's buffers, 2026-12-07, fifty-fifth session)."""
    marlin, b12x = RESULTS[AB + "marlin-49476"], RESULTS[AB + "b12x-49476"]
    assert marlin.reported_kv_gib is not None and b12x.reported_kv_gib is not None
    assert marlin.reported_kv_gib - b12x.reported_kv_gib == pytest.approx(11.47, abs=0.005)
    # 0.48 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert marlin.kv_error_gib == pytest.approx(0.33, abs=0.01)  # +0.23, +0.37, +0.40 until the encoder refits


def test_the_0271_split_places_the_error() -> None:
    """vLLM 0.27.1 prints KV = requested - consumed - peak activation, its peak being the transient profile peak plus
    the CUDA-graph estimate (0.27.1 v1/worker/gpu_worker.py:527-528, :544-548): 28.88 - 15.03 - 1.59 = 12.26 GiB on
    #1087's first worker, whose estimate was 0.13 GiB (the second worker's 'CUDA graph pool memory' line). The planner's
    +0.26 is two offsetting terms: weights and non-torch memory 0.18 GiB over the printed 15.03 (+0.29 and 0.15 until
    FlashInfer's workspace sat in FULL's first capture and make calibrate refit the encoder amount to 46,417 B a token,
    2026-12-07, fifty-fourth session; +0.22 and 0.22 until make calibrate refitted the encoder amount without club-3090
    #851's under-counted INT4 weights, 2026-12-07, fifty-fourth session; +0.10 and 0.34 before the mechanistic non-torch
    model, 2026-12-07, fifty-third session: no desktop share, the vision encoder's amount; +0.23 and 0.20 before the
    allocator's segment tails counted with the loaded weights), and a transient peak of 1.03 GiB against the log's 1.46
    (1.59 - 0.13), which club-3090 PR #1139's 0.27.1 boot on two RTX 3090s of the same compose prints too (1.66 - 0.20,
    vllm-blind-2026-12u.json). Since the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07,
    fifty-fifth session): +0.14, the consumed memory 0.30 over (the drafter's 0.16 GiB of buffers in it, the encoder
    amount 0.04 GiB less)."""
    printed = next(c["reported"] for c in BLIND if c["id"] == SPLIT)
    assert printed["kv_cache_gib"] == pytest.approx(28.88 - printed["consumed_gib"] - printed["activation_peak_gib"])
    report = RESULTS[SPLIT].report
    assert report is not None
    consumed = (report.weights_bytes + report.non_torch_bytes) / GiB
    # 0.22 until make calibrate refitted the encoder amount without club-3090 #851's INT4 weights (2026-12-07,
    # fifty-fourth session), 0.15 until its refit to 46,417 B a token (the same session), 0.18 until the MTP drafter's
    # buffers (2026-12-07, fifty-fifth session)
    # 0.30 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert consumed - 15.03 == pytest.approx(0.26, abs=0.01)
    assert report.activation_bytes / GiB - (1.59 - 0.13) == pytest.approx(-0.43, abs=0.01)


# Restated from the planner's output for a Gated DeltaNet layer's own peak in the profile run and make calibrate's
# encoder refit 41,312 -> 37,217 B a token (2026-12-07, fifty-sixth session, helper relout2); the value before in the
# comment.
NOW.update(
    {
        "vllm-0.25-2x5090-qwen38-27b-fp8-mtp3-fp8kv-262k-club3090-998": 0.04,  # +0.00
        "vllm-0.27-2x5090-qwen38-27b-fp8-mtp3-fp8kv-262k-club3090-1087": 0.18,  # +0.14
        "vllm-0.27-2x5090-qwen38-27b-nvfp4-mtp3-fp8kv-262k-util090-club3090-1026": 0.41,  # +0.38
        "vllm-0.25-2x3090-qwen38-27b-nvfp4-marlin-mtp3-fp8kv-262k-util090-club3090-refrig": -0.13,  # -0.16
        "vllm-0.25-rtxpro6000-qwen36-35b-a3b-nvfp4-fp8kv-180k-seqs8-marlin-49476": 0.33,  # +0.48
    }
)
