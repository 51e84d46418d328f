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


def test_an_unmeasured_gpu_beside_a_measured_one_takes_the_measured_efficiency() -> None:
    """Qwen3-235B-A22B FP8 under vLLM: on 4 x H200 its experts take aiconfigurator's measured fused-MoE time
    (ai-dynamo/aiconfigurator@095f58a51 .../h200_sxm/moe/vllm/0.14.0/moe_perf.parquet, fp8_block, moe TP 4); on
    8 x MI300X (no table) they took their bytes at the bandwidth and said their speed was unmeasured beside the
    H200's (moe_priced). They now take their roofline at the measured kernel's efficiency of the slower of MI300X's
    bandwidth neighbours, B200 (planner.advisor.moe_transfer), a note rather than a caveat; the H200 still leads, on
    its speed, not on a missing measurement."""
    options = _options("h200-sxm-141gb", "mi300x")
    mi300x = [o for o in options if o.gpu_id == "mi300x"]
    h200 = [o for o in options if o.gpu_id == "h200-sxm-141gb" and o.split_text == "TP 4"]
    assert mi300x and h200
    assert all(o.experts_priced == "transferred" for o in mi300x)
    assert all(o.experts_priced == "measured" for o in h200)
    assert not any(_caveat(o) for o in options)
    for o in mi300x:
        assert any(w.startswith("experts' time transferred from B200 (HGX/DGX B200)'s") for w in o.warnings)
    assert options[0].gpu_id == "h200-sxm-141gb"
    assert options[0].decode_tokens_per_s_per_user > max(o.decode_tokens_per_s_per_user or 0 for o in mi300x)


def test_no_caveat_where_nothing_in_the_ranking_is_measured() -> None:
    """MI300X alone: every option's experts take a measured GPU's efficiency alike, none caveated."""
    options = _options("mi300x")
    assert options and not any(_caveat(o) for o in options)
    assert all(o.experts_priced == "transferred" for o in options)
