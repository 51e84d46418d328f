"""vLLM's and SGLang's fused MoE at aiconfigurator's measured times (planner.advisor.paged_moe)."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor.engine_speed import step
from planner.advisor.paged_moe import along, paged_moe_seconds, tables
from planner.advisor.throughput import decode_load, setup_for


def qwen3_235b(batch: int, weights: str = "bf16") -> tuple[object, object]:
    spec = get_model("Qwen/Qwen3-235B-A22B").spec
    return spec, decode_load(spec, weights, "bf16", batch, 1500)


def test_the_extract_is_aiconfigurators_figures() -> None:
    """ai-dynamo/aiconfigurator@095f58a51 .../b200_sxm/moe/sglang/0.5.9/moe_perf.parquet, sglang_fused_moe_triton,
    bfloat16, hidden 4,096, width 1,536, top-8 of 128, moe TP 8, EP 1, power_law_1.01: 0.033290 ms at 1 token,
    0.141103 ms at 96 (the extract keeps 4 significant digits)."""
    grid, by_setup = tables()
    row = by_setup[("sglang", "b200-sxm", "16-bit")][(4096, 1536, 8, 128, 8)]
    assert row[grid.index(1)] == pytest.approx(33.29e-6, rel=1e-9)
    assert row[grid.index(96)] == pytest.approx(141.1e-6, rel=1e-9)
    assert along(grid, row, 100) == pytest.approx(141.1e-6 + (152.8e-6 - 141.1e-6) * 4 / 32, rel=1e-9)


def test_a_sglang_step_takes_the_measured_experts_not_their_bytes() -> None:
    """Qwen3-235B-A22B BF16 on 8 x B200 under SGLang at 96 in flight: 94 MoE layers x 141.1 us, added to the step
    whose experts' bytes and FLOPs are taken out (the kernels run one after another)."""
    _, load = qwen3_235b(96)
    setup = setup_for(get_gpu("b200-sxm"), "sglang", "16-bit", 8, "bf16")
    assert load.moe_layers == 94
    assert paged_moe_seconds(setup, load) == pytest.approx(94 * 141.1e-6, rel=1e-9)
    without = load._replace(experts_bytes=0.0, flops=load.flops - load.expert_flops, expert_flops=0.0)
    assert step(setup, load).seconds == pytest.approx(step(setup, without).seconds + 94 * 141.1e-6, rel=1e-9)


def test_only_the_tables_formats_engines_and_gpus() -> None:
    """TensorRT-LLM (its own tables), llama.cpp, a GPU or a format the extract lacks keep the rate model."""
    _, load = qwen3_235b(32)
    b200 = get_gpu("b200-sxm")
    assert paged_moe_seconds(setup_for(b200, "trtllm", "16-bit", 8, "bf16"), load) is None
    assert paged_moe_seconds(setup_for(get_gpu("rtx-4090"), "vllm", "16-bit", 8, "bf16"), load) is None
    assert paged_moe_seconds(setup_for(b200, "vllm", "16-bit", 3, "bf16"), load) is None  # no moe TP 3
    ranks = setup_for(b200, "vllm", "16-bit", 8, "bf16")._replace(attention_dp=True, attention_tp=4)
    assert paged_moe_seconds(ranks, load) is None  # 2 data-parallel ranks, experts expert parallel: not extracted
    _, fp8 = qwen3_235b(32, "fp8")
    assert paged_moe_seconds(setup_for(b200, "vllm", "16-bit", 8, "bf16"), fp8) is None  # FP8 bytes, BF16 table
    assert paged_moe_seconds(setup_for(b200, "vllm", "fp8", 4, "fp8"), fp8) is not None
    # 1,536 / 8 = 192 is not a whole number of 128-wide FP8 blocks: not measured at moe TP 8
    assert paged_moe_seconds(setup_for(b200, "vllm", "fp8", 8, "fp8"), fp8) is None
    oss = decode_load(get_model("openai/gpt-oss-120b").spec, "mxfp4", "bf16", 32, 1500)
    assert paged_moe_seconds(setup_for(get_gpu("h100-sxm-80gb"), "vllm", "16-bit", 1, "mxfp4"), oss) is None
