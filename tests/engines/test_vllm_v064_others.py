"""vLLM 0.6.4 takes the whole device's use as its non-torch figure (``non_torch_allocations = (total - free) -
torch's allocated``, 0.6.4 ``vllm/worker/worker.py:200-217``), so memory other processes held before the start
comes off ``util x total`` in full; from 0.6.5 the worker's start is the baseline (``memory_profiling(
baseline_memory_in_bytes=total - init_gpu_memory)``, 0.6.5 ``worker.py:198-200``) and it does not. Found by the
plan-is-the-report property test: on an A10 with 3 GiB held the plan's pool was 0.79 GiB under the report's, and
both were wrong (the plan let the 2.21 GiB reserve take the first of it, the report ignored it)."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.core.units import GiB
from planner.deploy.options import DeploymentOptions
from planner.engines.registry import get_engine
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest, plan


def _pools(release: str, used_gib: int) -> tuple[int, int]:
    """(the plan's pool, the report's) per GPU, bytes: Llama-3.1-8B on an A10 at 8,192 tokens."""
    gpu, profile = get_gpu("a10"), VllmProfile(engine_version=release)
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.1-8B").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True),
        context_tokens=8192, max_model_len=8192, overhead=profile,
        deployment=DeploymentOptions(used_memory_bytes=used_gib * GiB) if used_gib else None,
    )  # fmt: skip
    result = plan(request)
    report = get_engine("vllm").report(request, result, profile)
    return result.stages[0].kv_cache_bytes, report.available_kv_cache_bytes_per_gpu


def test_0_6_4_counts_other_processes_in_full() -> None:
    free_plan, free_report = _pools("0.6.4", 0)
    held_plan, held_report = _pools("0.6.4", 3)
    assert free_plan == free_report and held_plan == held_report
    assert free_report - held_report == 3 * GiB  # 3.68 -> 0.68 GiB


@pytest.mark.parametrize("release", ["0.7.2", "0.19.0"])
def test_later_releases_take_the_start_as_their_baseline(release: str) -> None:
    """From 0.6.5 the report's pool does not move with what others held before the start (a V1 release refuses
    instead when they leave less than util x total free: planner.engines.vllm.failures)."""
    assert _pools(release, 0)[1] == _pools(release, 1)[1]
