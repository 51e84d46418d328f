"""Model Runner V2's CUDA-graph estimate by release (``versions.toml`` rule ``v2_cudagraph_estimate``), read in the
released wheels: a stub returning 0 from 0.22.0 to 0.28.0 (0.28.0 ``v1/worker/gpu/model_runner.py:843-845``), a real
estimate from 0.29.0 (0.29.0 ``v1/worker/gpu/cudagraph_utils.py:718-801``). The worker subtracts what the runner
returns (0.28.0 ``v1/worker/gpu_worker.py:532``, ``:562``), so a model on V2 before 0.29 loses no graph estimate
from its KV budget and captures its graphs afterwards, in the (1 - gpu_memory_utilization) headroom."""

from __future__ import annotations

import math
from typing import Any

import pytest

from bench.fidelity_cases import build_request, load_cases, setup_of
from planner.engines.base import engine_total_bytes
from planner.engines.vllm.blocks import VllmStage
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.runner import uses_model_runner_v2
from planner.engines.vllm.stage import stage_graphs, vllm_stage
from planner.engines.vllm.versions import vllm_rules
from planner.planning.plan import plan

QWEN3_14B_028 = "vllm-0.28-rtx5090-qwen3-14b-awq-util070-32k"
QWEN3_32B_028_RESTART = "vllm-0.28-rtx5090-qwen3-32b-awq-util070-8k"
QWEN38_027_V1 = "vllm-0.27-rtxpro6000-qwen38-27b-fp8-mtp3-seqs256-recipes831"


def _case(case_id: str) -> dict[str, Any]:
    return next(c for c in load_cases() if c["id"] == case_id)


def _stage(case_id: str) -> tuple[VllmStage, VllmProfile, int, bool]:
    """The first stage, its profile, the budget (util x total) and whether the model runs on Model Runner V2."""
    case = _case(case_id)
    request = build_request(case, setup_of(case))
    profile = request.overhead
    assert isinstance(profile, VllmProfile)
    total = engine_total_bytes(request)
    stage = vllm_stage(request, plan(request), profile, 0, total)
    v2 = uses_model_runner_v2(profile.rules, request.model, request.resolved_weights)
    return stage, profile, math.floor(profile.utilization * total), v2


def test_v2_estimates_its_graphs_from_0_29() -> None:
    assert not any(vllm_rules(v).v2_cudagraph_estimate for v in ("0.22.0", "0.25.1", "0.26.0", "0.27.1", "0.28.0"))
    assert vllm_rules("0.29.0").v2_cudagraph_estimate and vllm_rules("0.30.0").v2_cudagraph_estimate


def test_the_0_28_v2_logs_take_no_estimate_off_the_budget() -> None:
    """The RTX 5090 Qwen3 AWQ start-ups on 0.28.0 (dense, so Model Runner V2): the budget is consumed + peak + KV
    with nothing else taken off (14B at 32k: 0.70 x 31.36 = 21.95 = 11.22 + 1.46 + 9.27), and the 32B restart's
    peak activation (0.33 GiB, which holds the estimate the budget subtracted: gpu_worker.py peak_activation_memory
    = transient + estimate applied, 0.28.0 :542-544) is below the 0.81 GiB of graphs it then captured."""
    r14 = _case(QWEN3_14B_028)["reported"]
    printed = r14["consumed_gib"] + r14["transient_plus_graphs_gib"] + r14["kv_cache_gib"]
    assert round(0.70 * 31.36, 2) == pytest.approx(printed, abs=0.005)
    r32 = _case(QWEN3_32B_028_RESTART)["reported"]
    assert r32["transient_plus_graphs_gib"] < r32["cuda_graph_gib"]
    assert _stage(QWEN3_14B_028)[3] and _stage(QWEN3_32B_028_RESTART)[3]


def test_the_v1_runner_keeps_its_estimate_in_the_budget_at_0_27() -> None:
    """Qwen3.8-27B (hybrid: the V1 runner until 0.29) subtracts its estimate: budget - weights - peak - non-torch
    - graphs."""
    stage, _, budget, v2 = _stage(QWEN38_027_V1)
    assert not v2 and stage.cuda_graph > 0
    assert stage.available == budget - stage.weights - stage.activation - stage.non_torch - stage.cuda_graph


def test_v2_before_0_29_takes_no_estimate_off_the_budget() -> None:
    stage, profile, budget, v2 = _stage(QWEN3_14B_028)
    assert v2 and stage.cuda_graph > 0
    assert stage.available == budget - stage.weights - stage.activation - stage.non_torch
    case = _case(QWEN3_14B_028)
    request = build_request(case, setup_of(case))
    assert not profile.graphs_in_budget(request.model, request.resolved_weights)


def test_v2_from_0_29_and_v1_keep_the_estimate_in_the_budget() -> None:
    case = _case(QWEN3_14B_028)
    request = build_request(case, setup_of(case))
    on_029 = VllmProfile(engine_version="0.29.0")
    forced_v1 = VllmProfile(engine_version="0.28.0", use_v2_model_runner=False)
    assert on_029.graphs_in_budget(request.model, request.resolved_weights)
    assert forced_v1.graphs_in_budget(request.model, request.resolved_weights)
    assert not VllmProfile(engine_version="0.28.0", enforce_eager=True).graphs_in_budget(
        request.model, request.resolved_weights
    )


def test_what_a_v2_engine_before_0_29_holds_counts_its_graphs_outside_the_budget() -> None:
    """Another engine started after it finds vLLM's budget taken plus the graphs captured after it (as before 0.20);
    the same model on the V1 runner (forced) holds its budget alone, the estimate being inside it."""
    from planner.assessment.assess import assess
    from planner.assessment.search import footprint_bytes

    case = _case(QWEN3_14B_028)
    request = build_request(case, setup_of(case))
    a = assess(request, None, plan(request))
    profile = request.overhead
    assert isinstance(profile, VllmProfile) and a.report is not None
    layers = a.result.per_gpu.layers
    graphs = stage_graphs(request, profile, engine_total_bytes(request))  # the RTX 5090's: 256 sequences
    capture = profile.cudagraph_capture_bytes(layers[1] - layers[0], graphs)  # no FA3 accumulators off Hopper
    assert footprint_bytes(a) == a.report.budget_bytes + capture
    forced = request.model_copy(update={"overhead": profile.model_copy(update={"use_v2_model_runner": False})})
    v1 = assess(forced, None, plan(forced))
    assert v1.report is not None and footprint_bytes(v1) == v1.report.budget_bytes
