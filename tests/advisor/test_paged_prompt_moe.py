"""A vLLM or SGLang prompt's routed experts at aiconfigurator's measured fused-MoE times at the chunk's tokens
(planner.advisor.prompt_moe), as a decode step's are (planner.advisor.paged_moe)."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor.engine_speed import experts_roofline_seconds, prefill_alone, prefill_in_serving
from planner.advisor.paged_moe import tables
from planner.advisor.prompt_moe import alone_moe_seconds, prompt_moe_seconds
from planner.advisor.throughput import Load, prefill_load, setup_for


def stripped(load: Load) -> Load:
    return load._replace(experts_bytes=0.0, flops=load.flops - load.expert_flops, expert_flops=0.0)


def roofline(setup: object, load: Load) -> float:
    return experts_roofline_seconds(setup, load)  # type: ignore[arg-type]


def test_the_extract_reaches_a_prompt_chunks_tokens() -> None:
    """ai-dynamo/aiconfigurator@095f58a51 .../a100_sxm/moe/vllm/0.14.0/moe_perf.parquet, vllm_fused_moe, bfloat16,
    hidden 4,096, width 1,536, top-8 of 128, moe TP 8, EP 1, power_law_1.01: 0.562355 ms at 1,024 tokens, 0.797949
    ms at 2,048 (vLLM's max_num_batched_tokens on an A100), 2.475872 ms at 8,192 (the extract keeps 4 digits)."""
    grid, by_setup = tables()
    row = by_setup[("vllm", "a100-sxm-80gb", "16-bit")][(4096, 1536, 8, 128, 8)]
    assert grid[-1] == 16384
    assert row[grid.index(1024)] == pytest.approx(562.4e-6, rel=1e-9)
    assert row[grid.index(2048)] == pytest.approx(797.9e-6, rel=1e-9)
    assert row[grid.index(8192)] == pytest.approx(2476e-6, rel=1e-9)


def test_a_served_prompt_takes_its_share_of_the_chunks_measured_experts() -> None:
    """GPUStack's Qwen3-235B-A22B BF16 on 8 x A100 under vLLM 0.11.0 (unseen-2026-12b
    gpustack-a100x8-qwen3235ba22b-vllm-random-32000-100): a 32,000-token prompt runs in 2,048-token chunks, each
    MoE layer 797.9 us a chunk: 94 layers x 797.9 us x 32,000 / 2,048, in place of its experts' FLOPs and bytes."""
    spec = get_model("Qwen/Qwen3-235B-A22B").spec
    load = prefill_load(spec, "bf16", 32000)
    setup = setup_for(get_gpu("a100-sxm-80gb"), "vllm", "16-bit", 8, "bf16")
    assert setup.prefill_chunk == 2048
    expected = 94 * 797.9e-6 * 32000 / 2048
    assert prompt_moe_seconds(setup, load, 2048, roofline) == pytest.approx(expected, rel=1e-9)
    assert prefill_in_serving(setup, load) == pytest.approx(prefill_in_serving(setup, stripped(load)) + expected)


def test_a_prompt_alone_takes_each_passs_measured_experts() -> None:
    """The same prompt alone (time to first token): 15 full chunks of 2,048 tokens and one of 1,280, the layer
    interpolated between 1,024 (562.4 us) and 1,536 tokens (764.2 us)."""
    spec = get_model("Qwen/Qwen3-235B-A22B").spec
    load = prefill_load(spec, "bf16", 32000)
    setup = setup_for(get_gpu("a100-sxm-80gb"), "vllm", "16-bit", 8, "bf16")
    rest = 562.4e-6 + (764.2e-6 - 562.4e-6) * 256 / 512
    expected = 94 * (15 * 797.9e-6 + rest)
    assert alone_moe_seconds(setup, load, 2048, roofline) == pytest.approx(expected, rel=1e-9)
    assert prefill_alone(setup, load) == pytest.approx(prefill_alone(setup, stripped(load)) + expected)


def test_an_untimed_gpu_takes_the_measured_kernels_efficiency_at_the_chunk() -> None:
    """A GPU the tables lack (B300) takes the nearest measured GPU's measured / roofline ratio at the chunk's
    tokens, as a decode step does (planner.advisor.moe_transfer); TensorRT-LLM and llama.cpp keep the rate model."""
    spec = get_model("Qwen/Qwen3-235B-A22B").spec
    load = prefill_load(spec, "bf16", 8192)
    b300 = setup_for(get_gpu("b300-sxm"), "vllm", "16-bit", 8, "bf16")
    moved = prompt_moe_seconds(b300, load, 8192, roofline)
    assert moved is not None and moved > 0
    trtllm = setup_for(get_gpu("b200-sxm"), "trtllm", "16-bit", 8, "bf16")
    assert prompt_moe_seconds(trtllm, load, 8192, roofline) is None
