"""A speed no public benchmark of its engine family on its vendor's GPUs checks undermines the verdict (an outside
review, 2026-12-06): eight MI300X were the green pick for Llama 3.3 70B at 128k under vLLM with no AMD row of a
paged engine among the package's benchmarks, while MLPerf Inference v4.1 puts 8 x MI300X about level with 8 x H100
on Llama-2-70B and below 8 x H200, where the speed model ranked it above both."""

from __future__ import annotations

from model_catalog import get_model
from planner.advisor import Workload, rank
from planner.advisor.option_warnings import measured_pairs, unmeasured_note

LLAMA_70B = get_model("meta-llama/Llama-3.3-70B-Instruct").spec


def test_the_measured_pairs_are_the_benchmark_rows() -> None:
    pairs = measured_pairs()
    assert {("NVIDIA", "paged"), ("NVIDIA", "fused"), ("NVIDIA", "layer-split"), ("Apple", "layer-split")} <= pairs
    # a Strix Halo laptop's llama.cpp rows (Radeon, Vulkan) do not measure Instinct; an Arc's vLLM rows not Gaudi
    assert ("AMD RDNA 3.5", "layer-split") in pairs and ("AMD CDNA 3", "layer-split") not in pairs
    assert ("AMD CDNA 3", "paged") not in pairs and ("Intel Gaudi 3", "paged") not in pairs
    assert unmeasured_note("NVIDIA", "paged", "vLLM") is None
    assert (unmeasured_note("AMD CDNA 3", "paged", "vLLM") or "").startswith("speed unmeasured: no public benchmark")


def test_mi300x_under_llamacpp_is_caveated_too() -> None:
    """The review's case: eight MI300X under llama.cpp had a green verdict because a Strix Halo's rows counted."""
    workload = Workload.fixed_length(8192, concurrent_conversations=10, gpu_ids=("mi300x",), engines=("llamacpp",))
    options = rank(LLAMA_70B, workload).options
    assert options and all(any(u.startswith("speed unmeasured") for u in o.undermining) for o in options)


def test_mi300x_under_vllm_is_caveated_and_no_longer_the_green_pick() -> None:
    ranking = rank(LLAMA_70B, Workload.fixed_length(131072, concurrent_conversations=10))
    amd = [o for o in ranking.options if o.gpu_id == "mi300x" and o.engine == "vllm"]
    assert amd and all(any(u.startswith("speed unmeasured") for u in o.undermining) for o in amd)
    best = ranking.best
    assert best is not None and best.vendor == "NVIDIA" and not best.undermining
    nvidia = [o for o in ranking.options if o.vendor == "NVIDIA" and o.engine == "vllm"]
    assert not any(u.startswith("speed unmeasured") for o in nvidia for u in o.undermining)
