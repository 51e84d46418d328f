"""Memory other processes hold when vLLM starts, release by release, as the wheels' workers count it.

vLLM 0.6.4 takes the whole device's use as its non-torch figure (``non_torch_allocations = (total - free) -
torch's allocated``, 0.6.4 ``vllm/worker/worker.py:200-217``), so memory other processes held before the start
comes off ``util x total`` in full; from 0.6.5 the worker's start is the baseline (``memory_profiling(
baseline_memory_in_bytes=total - init_gpu_memory)``, 0.6.5 ``worker.py:198-200``) and it does not. Found by the
plan-is-the-report property test: on an A10 with 3 GiB held the plan's pool was 0.79 GiB under the report's, and
both were wrong (the plan let the 2.21 GiB reserve take the first of it, the report ignored it).

The same test, replaying its database, then found 0.7.2 (a baseline, no check at the start): the pool it sizes is
not there once the others hold more than the reserve, and the planner predicted a start. And V1's worker from 0.8.0
to 0.9.0 counts the whole device again (0.8.5 ``vllm/v1/worker/gpu_worker.py:194-210``), where the planner took a
baseline and predicted the sampler's warm-up to run out of memory."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.core.units import GiB
from planner.deploy.options import DeploymentOptions
from planner.engines.base import EngineReport
from planner.engines.registry import get_engine
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.versions import vllm_rules
from planner.planning.plan import PlanRequest, plan


def _planned(release: str, used_gib: float) -> tuple[int, EngineReport]:
    """(the plan's pool per GPU in bytes, the engine report): Llama-3.1-8B on an A10 at 8,192 tokens, with
    ``used_gib`` held by other processes."""
    gpu, profile = get_gpu("a10"), VllmProfile(engine_version=release)
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.1-8B").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True),
        context_tokens=8192, max_model_len=8192, overhead=profile,
        deployment=DeploymentOptions(used_memory_bytes=round(used_gib * GiB)) if used_gib else None,
    )  # fmt: skip
    result = plan(request)
    return result.stages[0].kv_cache_bytes, get_engine("vllm").report(request, result, profile)


def _pools(release: str, used_gib: float) -> tuple[int, int]:
    """(the plan's pool, the report's) per GPU, bytes."""
    pool, report = _planned(release, used_gib)
    return pool, report.available_kv_cache_bytes_per_gpu


@pytest.mark.parametrize(("release", "held"), [("0.6.4", 2.5), ("0.8.5", 1), ("0.8.5", 2.5)])
def test_releases_that_count_the_whole_device_take_others_off_the_pool(release: str, held: float) -> None:
    """0.6.4 (3.68 -> 1.18 GiB with 2.5 GiB held) and V1's worker of 0.8.5 (3.55 -> 2.55 GiB with 1 GiB: before,
    the report kept 3.55 and predicted the sampler's warm-up to run out of memory; the plan gave 2.75 with 3 GiB)."""
    free_plan, free_report = _pools(release, 0)
    held_plan, report = _planned(release, held)
    assert report.failure_kind is None, report.failure
    assert free_plan == free_report and held_plan == report.available_kv_cache_bytes_per_gpu
    assert free_report - held_plan == round(held * GiB)


def test_which_releases_count_the_whole_device_and_which_check_at_the_start() -> None:
    """Read in the wheels: 0.9.0's V1 worker is still device-wide with no check; 0.9.1 takes a snapshot at
    ``init_device``, uses it as the baseline and refuses when less than ``util x total`` is free there."""
    expected = {"0.6.4": (True, False), "0.7.2": (False, False), "0.9.0": (True, False), "0.9.1": (False, True)}
    for release, (device_wide, checked) in expected.items():
        rules = vllm_rules(release)
        assert (rules.non_torch_device_wide, rules.startup_free_memory_check) == (device_wide, checked), release


@pytest.mark.parametrize(
    ("held", "where", "pool_gib"),
    [(3, "allocating the KV cache", 3.68), (2.5, "capturing CUDA graphs or at the first full batch", 3.68)],
)
def test_0_7_2_runs_out_of_memory_when_others_hold_more_than_the_reserve(
    held: float, where: str, pool_gib: float
) -> None:
    """0.7.2 sizes ``util x total`` less its own use from its start (2.21 GiB of the A10's 22.06 left unused) and
    checks nothing: 3 GiB held leaves 3.21 GiB for a 3.68 GiB pool (out of memory allocating it); 2.5 GiB leaves
    the pool but 0.03 of the 0.84 GiB its activations peak at. Before, both started with the plan's pool 0.79 and
    0.29 GiB under the report's."""
    _, report = _planned("0.7.2", held)
    assert report.failure_kind == "others-oom" and report.failure is not None
    assert where in report.failure and "other processes hold" in report.failure
    assert round(report.available_kv_cache_bytes_per_gpu / GiB, 2) == pool_gib
    assert _planned("0.7.2", 2)[1].failure_kind is None  # within the reserve it starts, with the whole pool


@pytest.mark.parametrize("release", ["0.7.2", "0.19.0"])
def test_later_releases_take_the_start_as_their_baseline(release: str) -> None:
    """From 0.6.5 the report's pool does not move with what others held before the start (a V1 release refuses
    instead when they leave less than util x total free: planner.engines.vllm.failures)."""
    assert _pools(release, 0)[1] == _pools(release, 1)[1]
