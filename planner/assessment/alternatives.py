"""When a set-up does not fit, or misses its target: the nearest ones that do, each changing one thing.

Every candidate is judged by :func:`planner.assessment.assess.assess`, the same verdict the pages and the command line
show, so a suggestion's figures are the figures its link opens.
"""

from __future__ import annotations

from pydantic import BaseModel

from planner.assessment.assess import Assessment, assess
from planner.bounds.errors import PlannerError
from planner.bounds.walltime import check
from planner.core.parallel import default_parallelism
from planner.planning.plan import PlanRequest

FALLBACK_WEIGHTS = ("fp8", "int4-awq", "q4_k_m", "q3_k_m")
GPU_COUNTS = (2, 4, 8, 16)


class Alternative(BaseModel, frozen=True, extra="forbid"):
    """A changed set-up that meets the goal, with what was changed."""

    change: str  # "TP 2 on the same 2 GPUs", "4 GPUs (TP 4)", "weights in int4-awq", "context of 16,384 tokens"
    request: PlanRequest
    assessment: Assessment


def _holds(request: PlanRequest, goal: int) -> Assessment | None:
    try:
        found = assess(request, goal)
    except PlannerError:
        return None
    return found if found.fits and found.conversations >= goal else None


def _try(request: PlanRequest, change: str, goal: int) -> Alternative | None:
    found = _holds(request, goal)
    return Alternative(change=change, request=request, assessment=found) if found else None


def longest_context_that_fits(request: PlanRequest, conversations: int = 1) -> int:
    """The longest context (tokens) at which ``conversations`` whole conversations still fit; 0 when none does.

    Capacity falls monotonically with the context, so a binary search over [1, max_position_embeddings]. A
    conversation lives in one data-parallel replica, so whole conversations are counted per replica.
    """
    low, high = 0, request.model.max_position_embeddings
    while low < high:
        check()
        middle = (low + high + 1) // 2
        if _holds(request.at_context(middle), conversations) is not None:
            low = middle
        else:
            high = middle - 1
    return low


def _wider_split(request: PlanRequest, goal: int) -> Alternative | None:
    tp, pp = request.resolved_parallelism
    widest, _ = default_parallelism(request.model, request.gpu_count)
    if pp != 1 or widest <= tp:
        return None
    changed = request.model_copy(update={"tensor_parallel": widest})
    return _try(changed, f"TP {widest} on the same {request.gpu_count} GPUs", goal)


def _more_gpus(request: PlanRequest, goal: int) -> Alternative | None:
    for count in GPU_COUNTS:
        if count <= request.gpu_count:
            continue
        tp, pp = default_parallelism(request.model, count)
        changed = request.model_copy(update={"gpu_count": count, "tensor_parallel": tp, "pipeline_parallel": pp})
        found = _try(changed, f"{count} GPUs (TP {tp})", goal)
        if found:
            return found
    return None


def _smaller_weights(request: PlanRequest, goal: int) -> Alternative | None:
    for weights in FALLBACK_WEIGHTS:
        if weights != request.resolved_weights:
            found = _try(request.model_copy(update={"weights": weights}), f"weights in {weights}", goal)
            if found:
                return found
    return None


def _fp8_kv(request: PlanRequest, goal: int) -> Alternative | None:
    if request.resolved_kv_dtype in ("fp8", "fp8_e4m3", "fp8_e5m2", "int4"):
        return None
    return _try(request.model_copy(update={"kv_dtype": "fp8"}), "KV cache in fp8", goal)


def _shorter_context(request: PlanRequest, goal: int) -> Alternative | None:
    context = longest_context_that_fits(request, goal)
    if not 0 < context < request.context_tokens:
        return None
    return _try(request.at_context(context), f"context of {context:,} tokens", goal)


def nearest_fitting(request: PlanRequest, target_users: int | None = None) -> list[Alternative]:
    """Up to one alternative per lever, each changing one thing — a wider tensor-parallel split of the same
    GPUs, more GPUs, a smaller weight precision, an FP8 KV cache, a shorter context — that holds
    ``target_users`` conversations (one when no target is given)."""
    goal = max(1, target_users or 1)
    levers = (_wider_split, _more_gpus, _smaller_weights, _fp8_kv, _shorter_context)
    return [found for lever in levers if (found := lever(request, goal)) is not None]
