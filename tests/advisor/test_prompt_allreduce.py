"""A TensorRT-LLM prompt in a serving run pays its bytes of the step's all-reduces, not their latency, and
TensorRT-LLM's HBM share is its own constant (planner/advisor/engine_speed.py ``prompt_allreduce_seconds``,
``trt_bw_hbm``; issue 21)."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

from model_catalog import get_gpu, get_model
from planner.advisor.benchmarks import load_rows
from planner.advisor.engine_speed import (
    FITTED,
    allreduce_seconds,
    bandwidth_efficiency,
    prefill_in_serving,
    prompt_allreduce_seconds,
    step,
)
from planner.advisor.throughput import prefill_load, setup_for
from planner.advisor.validation import scored

UNSEEN = Path(__file__).parent / "benchmarks" / "unseen-2026-12.toml"


def test_a_trt_prompt_pays_its_bytes_not_the_latency() -> None:
    """Llama-3.3-70B, a 1,000-token prompt on 8 H200s over NVLink: TensorRT-LLM runs it in the decode step's forward,
    so of its 160 all-reduces it adds the bytes (2 x 7/8 of 1,000 x 8,192 x 2 bytes each, at the link's rate) and
    not the 160 latencies; vLLM's prompt keeps both."""
    h200 = get_gpu("h200-sxm-141gb")
    load = prefill_load(get_model("meta-llama/Llama-3.3-70B-Instruct").spec, "fp8", 1000)
    trt = setup_for(h200, "trtllm", "fp8", 8, "fp8")
    whole = allreduce_seconds(trt, load)
    latency = allreduce_seconds(trt, load._replace(allreduce_bytes=0.0))
    assert load.allreduces == 160 and round(latency * 1e6, 6) == round(160 * FITTED.ar_nvlink_s * 1e6, 6)
    assert abs(prompt_allreduce_seconds(trt, load) - (whole - latency)) < 1e-12
    _, link = trt.link
    assert abs(prompt_allreduce_seconds(trt, load) - 160 * 1000 * 8192 * 2 * 2 * 7 / 8 / link) < 1e-12
    vllm = setup_for(h200, "vllm", "fp8", 8, "fp8")
    compute = step(vllm, load._replace(dense_bytes=0.0, experts_bytes=0.0), with_kv=False).compute_seconds
    weights = step(vllm, load._replace(flops=0.0, allreduce_bytes=0.0), with_kv=False).memory_seconds
    share = load.tokens / (vllm.prefill_chunk or 8192)
    assert compute is not None
    expected = compute + allreduce_seconds(vllm, load) + share * weights
    assert abs((prefill_in_serving(vllm, load) or 0.0) - expected) < 1e-12


def test_trt_hbm_share_is_its_own() -> None:
    h200, l40s = get_gpu("h200-sxm-141gb"), get_gpu("l40s")
    assert bandwidth_efficiency(setup_for(h200, "trtllm", "fp8", 1, "fp8")) == FITTED.trt_bw_hbm
    assert bandwidth_efficiency(setup_for(h200, "vllm", "fp8", 1, "fp8")) == FITTED.cb_bw_hbm
    assert bandwidth_efficiency(setup_for(l40s, "trtllm", "fp8", 1, "fp8")) == FITTED.cb_bw_gddr


def test_the_hopper_128_128_cells_under_tensor_parallelism() -> None:
    """TensorRT-LLM 0.17's 128/128 cells at TP 2-8 on H100 and H200 and the v1.0 8 x H200 Qwen3-235B one (unseen,
    never fitted), most of whose GPU time is prompts: under-predicted -26 to -56 % (median 35.0 %) when each prompt
    paid two all-reduce latencies a layer of its own; with the bytes alone and the refit constants -4 to -27 %."""
    pattern = re.compile(r"trtllm017-h[12]00x[248]-.*-128-128$|trtllm-h200x8-qwen3-235b-fp8-128-128$")
    errors = {s.id: s.error for s in scored(load_rows((UNSEEN,))) if pattern.match(s.id) and s.error is not None}
    # the attention-DP Qwen3-235B cell at +11.2 % (-14.3 % before its step's collectives were TensorRT-LLM's
    # all-gather and reduce-scatter per MoE layer, planner/advisor/collectives.py; +11.9 % before each attention-DP
    # rank read its own layers whole, planner/advisor/rank_balance.py); the tensor-parallel ones unchanged
    adp = errors.pop("trtllm-h200x8-qwen3-235b-fp8-128-128")
    assert round(adp, 3) == 0.112 and len(errors) == 15 and all(e < 0 for e in errors.values())
    errors[""] = adp
    assert statistics.median(abs(e) for e in errors.values()) <= 0.18 and max(abs(e) for e in errors.values()) <= 0.30
