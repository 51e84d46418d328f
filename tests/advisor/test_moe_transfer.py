"""vLLM's fused MoE on a GPU aiconfigurator does not time takes its roofline time at the measured kernel's efficiency
of the neighbouring measured GPUs (planner.advisor.moe_transfer; issue 21, review 2026-12-07).

Numbers: ai-dynamo/aiconfigurator@095f58a51 ``systems/data/{h200_sxm,b200_sxm}/moe/vllm/*/moe_perf.parquet``
(planner/advisor/paged_moe_tables.toml), Qwen3-235B-A22B's BF16 layer (hidden 4,096, experts 1,536 wide, 8 of 128)
at moe TP 8 and 8 tokens: H200 76.3 us, B200 76.25 us. Bandwidths: MI300X 5.3 TB/s (AMD's datasheet) between
H200's 4.8 and B200's 8.0 (NVIDIA's)."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor import Workload, rank
from planner.advisor.engine_speed import experts_roofline_seconds, step
from planner.advisor.moe_transfer import transferred_moe
from planner.advisor.throughput import decode_load, setup_for

QWEN = "Qwen/Qwen3-235B-A22B"
MOE_LAYERS = 94  # Qwen3-235B-A22B's config.json: 94 layers, every one MoE


def test_mi300x_experts_take_the_slower_neighbours_measured_ratio() -> None:
    load = decode_load(get_model(QWEN).spec, "bf16", "fp8", 8, 32768)
    mi300x = setup_for(get_gpu("mi300x"), "vllm", "16-bit", 8, "bf16")
    ratios = {}
    for gid, measured_us in (("h200-sxm-141gb", 76.3), ("b200-sxm", 76.25)):
        there = setup_for(get_gpu(gid), "vllm", "16-bit", 8, "bf16")
        ratios[gid] = MOE_LAYERS * measured_us * 1e-6 / experts_roofline_seconds(there, load)
    assert ratios["b200-sxm"] > ratios["h200-sxm-141gb"]  # the same time at a faster roofline: the slower ratio
    t = transferred_moe(mi300x, load, lambda s: experts_roofline_seconds(s, load))
    assert t is not None and t.gpu_name.startswith("B200")
    assert t.ratio == pytest.approx(ratios["b200-sxm"], rel=1e-3)
    assert t.seconds == pytest.approx(experts_roofline_seconds(mi300x, load) * ratios["b200-sxm"], rel=1e-3)
    assert t.high == pytest.approx(ratios["b200-sxm"], rel=1e-3) and t.low < ratios["h200-sxm-141gb"]
    bare = load._replace(experts_bytes=0.0, flops=load.flops - load.expert_flops, expert_flops=0.0)
    assert step(mi300x, load).seconds == pytest.approx(step(mi300x, bare).seconds + t.seconds, rel=1e-6)


def test_rtx_pro_6000_fp8_experts_take_h100s_ratio() -> None:
    """1.8 TB/s: below every measured GPU with FP8 rows, the nearest (H100 SXM, 3.35 TB/s) alone is its neighbour;
    vLLM's H100 FP8 row at moe TP 4 and 8 tokens: 132.7 us."""
    load = decode_load(get_model(QWEN).spec, "fp8", "fp8", 8, 32768)
    rtx = setup_for(get_gpu("rtx-pro-6000-blackwell-max-q"), "vllm", "fp8", 4, "fp8")
    h100 = setup_for(get_gpu("h100-sxm-80gb"), "vllm", "fp8", 4, "fp8")
    t = transferred_moe(rtx, load, lambda s: experts_roofline_seconds(s, load))
    assert t is not None and t.gpu_name.startswith("H100")
    ratio = MOE_LAYERS * 132.7e-6 / experts_roofline_seconds(h100, load)
    assert t.seconds == pytest.approx(experts_roofline_seconds(rtx, load) * ratio, rel=5e-3)


def test_transferred_options_carry_a_note_not_a_caveat() -> None:
    """The transferred speed no longer ranks an option after measured ones for want of a measurement: a note."""
    w = Workload.fixed_length(32768, concurrent_conversations=20)
    ranking = rank(get_model(QWEN).spec, w, gpus=[get_gpu("mi300x")], counts=(4, 8), weights=["bf16"])
    moved = [o for o in ranking.options if o.experts_priced == "transferred"]
    assert moved
    for o in moved:
        assert not any(u.startswith("experts' speed unmeasured") for u in o.undermining)
        assert any(n.startswith("experts' time transferred from") for n in o.warnings)
