"""vLLM's start-up against the memory already on the device: what is free when the worker starts, and the failures
that follow from it (each with the engine's own error, checked in :func:`planner.engines.vllm.failures.vllm_failure`
before the KV sizing):

- ``free-memory``: less free than ``util x total`` at the worker's first snapshot (rule
  ``startup_free_memory_check``, from 0.9.1);
- ``weights-oom``: the weights do not fit what is free, or an MTP drafter's own embedding and LM head do not fit
  beside them while it loads (freed once it shares the target's);
- ``out-of-memory``: a fixed ``--kv-cache-memory-bytes`` above what the weights and non-torch memory leave
  (:func:`fixed_kv_failure`);
- ``others-oom``: on a release that counts from its own start without that check (0.6.5-0.7.x), other processes
  holding more than the ``1 - util`` it leaves unused (:func:`baseline_kv_failure`).

Where the release's non-torch figure is the whole device's use (0.6.4; V1's worker from 0.8.0 to 0.9.0: rule
``non_torch_device_wide``) others' memory comes off the KV budget instead (:func:`planner.engines.vllm.stage.
others_counted`) and none of this fails.
"""

from __future__ import annotations

import math

from planner.core.overhead import FailureKind
from planner.deploy.speculative import mtp_load_bytes
from planner.engines.base import gib_text, stage_total_bytes
from planner.engines.platform import vllm_platform
from planner.engines.vllm.blocks import VllmStage
from planner.engines.vllm.held import held_at_start
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.stage import held_by_others
from planner.planning.context import speculative_method
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult

Failure = tuple[FailureKind, str]


def free_at_start(request: PlanRequest, result: PlanResult, profile: VllmProfile) -> tuple[int, int]:
    """(the first rank's device total, what is free on it when the worker takes its snapshot). On unified memory
    the host's share: the one given, or :data:`UMA_HOST_DEFAULT_BYTES`, which is read off a worker's own "Free
    memory on device (F/T GiB) on startup" line (``init_snapshot.free_memory``, 0.28.0 ``gpu_worker.py:784``), so
    it already holds that worker's one-GPU baseline (CUDA context), which is not counted twice."""
    total = stage_total_bytes(request, result, 0)
    world = result.tensor_parallel * result.pipeline_parallel
    integrated = vllm_platform(request.gpu).integrated
    others, host = held_by_others(result, profile, 0), profile.unified_memory_host_bytes
    return total, total - held_at_start(profile.fitted, world, integrated, others, host)


def drafter_load_bytes(request: PlanRequest, result: PlanResult) -> int:
    """What an MTP drafter holds while it loads beyond the weights it keeps, on a GPU of the last stage
    (:func:`planner.deploy.speculative.mtp_load_bytes`); 0 without one."""
    return mtp_load_bytes(request.model, result.tensor_parallel) if speculative_method(request) == "mtp" else 0


def memory_failure(
    request: PlanRequest, result: PlanResult, profile: VllmProfile, first: VllmStage, last: VllmStage
) -> Failure | None:
    """The start-up check of free memory against ``util x total`` (``gpu_worker.init_device``), then the weights
    against what is free, the last stage's with what an MTP drafter builds and frees while loading."""
    total, free = free_at_start(request, result, profile)
    util = profile.utilization_for(request.gpu)
    requested = math.floor(util * total)
    # the extensible KV cache (0.34) skips the check: v1/worker/utils.py:759-762, :783-797
    checked = profile.rules.startup_free_memory_check and first.capacity is None
    if free <= 0:  # nothing left for the worker's own CUDA context: CUDA fails before vLLM checks anything
        return "free-memory", (
            f"RuntimeError: CUDA error: out of memory (other processes leave the worker no room for its CUDA "
            f"context on the {gib_text(total)} GiB device)."
        )
    # --kv-cache-memory-bytes does not skip it: init_device calls request_memory whatever the KV size (0.22.0
    # v1/worker/utils.py:403, 0.27.0 :409-427 from gpu_worker.py:396, 0.29.0 :516)
    if checked and free < requested:
        return "free-memory", (
            f"ValueError: Free memory on device ({gib_text(free)}/{gib_text(total)} GiB) on startup is less than "
            f"desired GPU memory utilization ({util:g}, {gib_text(requested)} GiB). Decrease GPU "
            "memory utilization or reduce GPU memory used by other processes."
        )
    if first.weights > free:
        return "weights-oom", (
            f"torch.OutOfMemoryError: CUDA out of memory while loading the weights ({gib_text(first.weights)} GiB "
            f"per GPU, {gib_text(free)} GiB free)."
        )
    transient = drafter_load_bytes(request, result)
    if transient and last.weights + transient > free:
        return "weights-oom", (
            f"torch.OutOfMemoryError: CUDA out of memory while loading the MTP drafter: it builds its own embedding "
            f"and LM head ({gib_text(transient)} GiB per GPU, freed once it shares the target's) beside "
            f"{gib_text(last.weights)} GiB of weights, {gib_text(free)} GiB free."
        )
    return None


def fixed_kv_failure(
    request: PlanRequest, result: PlanResult, profile: VllmProfile, first: VllmStage
) -> Failure | None:
    """``--kv-cache-memory-bytes`` skips the profile-based sizing: the worker allocates that many bytes of KV cache
    after the profile run (``Worker.determine_available_memory``, 0.31.0 ``v1/worker/gpu_worker.py:586-607``, whose
    log line says "If OOM'ed, check the difference of initial free memory"), so a size above what the weights and
    non-torch memory leave free runs out of memory there."""
    if profile.kv_cache_memory_bytes is None:
        return None
    _, free = free_at_start(request, result, profile)
    left = free - first.weights - first.non_torch
    if profile.kv_cache_memory_bytes <= left:
        return None
    return "out-of-memory", (
        f"torch.OutOfMemoryError: CUDA out of memory allocating the KV cache: --kv-cache-memory-bytes asks for "
        f"{gib_text(profile.kv_cache_memory_bytes)} GiB per GPU, {gib_text(max(0, left))} GiB is free after the "
        "weights and non-torch memory."
    )


def baseline_kv_failure(
    request: PlanRequest, result: PlanResult, profile: VllmProfile, first: VllmStage
) -> Failure | None:
    """Other processes holding more than the ``1 - util`` vLLM leaves unused, on a release that counts from its
    own start and checks nothing then (0.6.5-0.7.x: rules ``non_torch_device_wide`` and
    ``startup_free_memory_check`` both off). Its pool is ``util x total`` less its own use (0.7.2
    ``vllm/worker/worker.py:222-236``, the baseline taken at the worker's start), which is not there:
    ``CacheEngine._allocate_kv_cache`` allocates it layer by layer (0.7.2 ``vllm/worker/cache_engine.py:99-106``,
    the profile's cached activation blocks reused) and runs out of memory once the others hold more than the reserve
    and the activation peak. Holding less than that but more than the reserve, the pool is allocated and leaves no
    room for what comes after it: the CUDA graphs it captures next (``Worker._warm_up_model``), or with
    ``--enforce-eager`` the first full batch's activations."""
    rules = profile.rules
    if rules.non_torch_device_wide or rules.startup_free_memory_check or profile.kv_cache_memory_bytes is not None:
        return None
    total, free = free_at_start(request, result, profile)
    others = held_by_others(result, profile, 0)
    reserve = total - math.floor(profile.utilization_for(request.gpu) * total)
    if others <= reserve or first.available <= 0:
        return None
    left = free - first.weights - first.non_torch  # for the pool and the activations
    held = f"other processes hold {gib_text(others)} GiB where vLLM leaves {gib_text(reserve)} GiB unused"
    if first.available > left:
        where = f"allocating the KV cache: vLLM sized {gib_text(first.available)} GiB per GPU"
    else:
        stage = (
            "at the first full batch" if profile.enforce_eager else "capturing CUDA graphs or at the first full batch"
        )
        where = (
            f"{stage}: the KV cache vLLM sized ({gib_text(first.available)} GiB per GPU) leaves "
            f"{gib_text(left - first.available)} GiB for activations that peak at {gib_text(first.activation)} GiB"
        )
    return "others-oom", (
        f"torch.OutOfMemoryError: CUDA out of memory {where} (gpu_memory_utilization x total, counted from its own "
        f"start: {held}). Lower gpu_memory_utilization by what they hold beyond it."
    )
