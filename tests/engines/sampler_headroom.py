"""The sampler warm-up's headroom of a plan's last stage, planned afresh, for the tests that read it against the
public start-ups (tests/engines/test_vllm_sampler_share.py, tests/deploy/test_sysmem.py,
tests/fidelity/test_v2_warmup_pin.py)."""

from __future__ import annotations

from planner.engines.base import stage_total_bytes
from planner.engines.vllm.failures import clear_samplers, sampler_headroom
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.stage import vllm_stage
from planner.planning.plan import PlanRequest, PlanResult, plan


def planned_sampler_headroom(request: PlanRequest) -> tuple[tuple[int, int], PlanResult]:
    """``request`` planned with the sampler memo cleared: the last stage's (free, needed) bytes for the sampler's
    warm-up (:func:`planner.engines.vllm.failures.sampler_headroom`) and the plan."""
    clear_samplers()
    result = plan(request)
    profile = request.overhead
    assert isinstance(profile, VllmProfile)
    last = len(result.stages) - 1
    stage = vllm_stage(request, result, profile, last, stage_total_bytes(request, result, last))
    return sampler_headroom(request, result, profile, stage), result
