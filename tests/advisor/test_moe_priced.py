"""A GPU whose experts no table measures, ranked beside one whose experts are measured (planner.advisor.moe_priced)."""

from __future__ import annotations

from model_catalog import get_model
from planner.advisor import Option, Workload, rank


def _caveat(o: Option) -> str:
    return next((u for u in o.undermining if u.startswith("experts' speed unmeasured")), "")


def _options(*gpus: str) -> tuple[Option, ...]:
    workload = Workload.fixed_length(
        4096, concurrent_conversations=10, gpu_ids=gpus, engines=("vllm",), weights=("fp8",)
    )
    return rank(get_model("Qwen/Qwen3-235B-A22B").spec, workload).options


def test_an_unmeasured_gpu_beside_a_measured_one_says_so() -> None:
    """Qwen3-235B-A22B FP8 under vLLM: on 4 x H200 its experts take aiconfigurator's measured fused-MoE time
    (ai-dynamo/aiconfigurator@095f58a51 .../h200_sxm/moe/vllm/0.14.0/moe_perf.parquet, fp8_block, moe TP 4), on
    8 x MI300X (no table) their bytes at the bandwidth, which the H200 tables put 4-8x under the kernel's time at
    decode batches: the MI300X options say their experts' speed is unmeasured beside the H200's, and rank after
    the uncaveated H200 options instead of first on a roofline price. No slowdown factor is applied."""
    options = _options("h200-sxm-141gb", "mi300x")
    mi300x = [o for o in options if o.gpu_id == "mi300x"]
    h200 = [o for o in options if o.gpu_id == "h200-sxm-141gb" and o.split_text == "TP 4"]
    assert mi300x and h200
    assert all(o.experts_priced == "roofline" for o in mi300x)
    assert all(o.experts_priced == "measured" for o in h200) and not any(_caveat(o) for o in h200)
    for o in mi300x:
        assert "tables time vLLM's fused MoE of this model on H200 SXM 141GB, not on this GPU" in _caveat(o)
    assert options[0].gpu_id == "h200-sxm-141gb"


def test_no_caveat_where_nothing_in_the_ranking_is_measured() -> None:
    """MI300X alone: every option's experts are priced alike (the roofline), so none is flattered by it."""
    options = _options("mi300x")
    assert options and not any(_caveat(o) for o in options)
    assert all(o.experts_priced == "roofline" for o in options)
