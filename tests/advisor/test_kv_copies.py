"""A decode step reads the KV cache each GPU holds (an outside expert review, 2026-12-05): MLA's latent is held
whole by every tensor-parallel GPU, and KV heads fewer than the GPUs are replicated, so the speed model may not
divide those reads by the GPU count. DeepSeek-V3 on eight MI300X at 50 x 32k had been 56 tokens/s per user with
47 GB read per GPU a step, less than the 57.6 GB of cache each GPU holds."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor import Workload, rank
from planner.advisor.engine_speed import FITTED, bandwidth_efficiency, step
from planner.advisor.throughput import Setup, decode_load
from planner.core.kv import kv_bytes_per_sequence

MI300X = get_gpu("mi300x")
DEEPSEEK = get_model("deepseek-ai/DeepSeek-V3").spec


def test_every_gpu_reads_the_whole_latent_cache() -> None:
    setup = Setup(MI300X, "paged", "fp8", 8, "tensor", False)
    load = decode_load(DEEPSEEK, "fp8", "fp8", 50, 32_768)
    kv = 50 * kv_bytes_per_sequence(DEEPSEEK, "fp8", 32_768)  # each GPU's copy: 61 x 576 bytes a token
    assert kv == pytest.approx(50 * 32_768 * 61 * 576, rel=0.01)
    bandwidth = MI300X.bandwidth_bytes_per_s * bandwidth_efficiency(setup)  # type: ignore[operator]
    expected = (load.weights_bytes(FITTED.moe_locality) / 8 + kv) / bandwidth
    assert step(setup, load).memory_seconds == pytest.approx(expected, rel=1e-6)
    assert kv / bandwidth > 0.009  # the cache alone takes longer than the 9.7 ms the whole step had been given


def test_the_pick_runs_at_the_speed_its_reads_allow() -> None:
    """At TP 8 every GPU reads all 50 conversations' latents (32.6 tokens/s, the review's arithmetic ~35; 36 at the
    HBM share of 0.92 before the refit of 2026-12-07, now 0.82). vLLM's data-parallel ranks (the experts split over
    all eight, ``FusedMoEParallelConfig``) each read their own conversations' latents, copied over the rank's own
    GPUs, priced as the measured attention-DP rows are, and a prompt's attention runs on its rank's GPUs: the pick,
    eight ranks of TP 1, holds 464 conversations at ~49 tokens/s (53 before the refit), its first token 2.4 s, and
    says where its speed may be optimistic (each rank's own read of the 17 GB of non-expert weights, which the
    measured rows fit better without)."""
    ranking = rank(DEEPSEEK, Workload.fixed_length(32_768, concurrent_conversations=50))
    tp8 = next(o for o in ranking.options if (o.gpu_id, o.tensor_parallel, o.engine) == ("mi300x", 8, "vllm"))
    # 56 before the copies were read; 32.6 before the experts took B200's measured fused-MoE efficiency (moe_transfer)
    assert tp8.decode_tokens_per_s_per_user == pytest.approx(23.1, abs=1.5)
    # the MI300X ranks' figures are what this test reads; since AMD's vLLM row on eight MI300X (2026-12-06) they no
    # longer carry "speed unmeasured" (planner.advisor.option_warnings.unmeasured_note), DeepSeek's own gap they do
    best = next(o for o in ranking.options if (o.gpu_id, o.tensor_parallel, o.replicas) == ("mi300x", 1, 8))
    assert not any(u.startswith("speed unmeasured") for u in best.undermining)
    assert any(u.startswith("speed likely optimistic") for u in best.undermining)
    # 512 until HIP's graph and non-torch terms on a CDNA 3 device were fitted (2026-12-07, hip_graphs.py)
    assert best.experts_shared and best.conversations == 464 and "data-parallel ranks" in best.label
    # 49.4 by the experts' roofline; 30.7 before a prompt's experts took the measured kernel's efficiency (prompt_moe)
    assert best.decode_tokens_per_s_per_user == pytest.approx(27.9, abs=1.5)
    assert any("reads its own 17 GB of non-expert weights" in w for w in best.warnings)
    assert not any("non-expert" in w for w in tp8.warnings)
    assert best.prefill_seconds is not None and tp8.prefill_seconds is not None
    # a 24,576-token prompt's attention on one GPU: 1.9 s more (3.9 against 2.0; over 3x before the prompt's routed
    # experts, split over all eight GPUs in both, took the measured kernel's efficiency, planner.advisor.prompt_moe)
    assert best.prefill_seconds > tp8.prefill_seconds + 1.8


def test_kv_heads_fewer_than_the_gpus_are_read_twice_and_enough_heads_once() -> None:
    """Qwen3-235B-A22B has 4 KV heads: at TP 8 each GPU holds one (two copies in all); Llama 3.1 70B's 8 at TP 8
    are split, one copy."""
    h100 = Setup(get_gpu("h100-sxm-80gb"), "paged", "fp8", 8, "tensor", False)
    for model_id, copies in (("Qwen/Qwen3-235B-A22B", 2), ("meta-llama/Llama-3.1-70B", 1)):
        model = get_model(model_id).spec
        load = decode_load(model, "fp8", "fp8", 50, 32_768)
        kv_alone = step(h100, load).memory_seconds - step(h100, load, with_kv=False).memory_seconds
        bandwidth = h100.gpu.bandwidth_bytes_per_s * bandwidth_efficiency(h100)  # type: ignore[operator]
        assert kv_alone == pytest.approx(load.kv_bytes * copies / 8 / bandwidth, rel=1e-6), model_id


def test_a_data_parallel_rank_copies_its_latent_over_its_own_gpus() -> None:
    """Eight GPUs as two ranks of TP 4: each rank's four GPUs hold its conversations' latent whole (four copies in
    a rank), where eight ranks of TP 1 hold one; a prompt's non-expert layers run on its rank's GPUs alone."""
    from planner.advisor.engine_speed import kv_copies, rank_prefill_seconds
    from planner.advisor.throughput import prefill_load

    group = Setup(MI300X, "paged", "fp8", 8, "tensor", False, attention_dp=True)
    load = decode_load(DEEPSEEK, "fp8", "fp8", 50, 32_768)
    assert kv_copies(group, load._replace(kv_heads=0)) == 1.0
    assert kv_copies(group._replace(attention_tp=4), load._replace(kv_heads=0)) == 4.0
    prompt = prefill_load(DEEPSEEK, "fp8", 24_576, 0)
    one, four = rank_prefill_seconds(group, prompt), rank_prefill_seconds(group._replace(attention_tp=4), prompt)
    assert one == pytest.approx(7 * four, rel=1e-9) and four > 0  # C - C/8 against C/4 - C/8
    assert rank_prefill_seconds(group._replace(attention_dp=False), prompt) == 0.0
