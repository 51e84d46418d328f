"""When a set-up does not fit: the nearest ones that do (more GPUs, a smaller precision, a shorter context)."""

from __future__ import annotations

from pydantic import BaseModel

from planner.errors import PlannerError
from planner.parallel import default_parallelism
from planner.plan import PlanRequest, PlanResult, plan

FALLBACK_WEIGHTS = ("fp8", "int4-awq", "q4_k_m", "q3_k_m")
GPU_COUNTS = (2, 4, 8, 16)


class Alternative(BaseModel, frozen=True, extra="forbid"):
    """A changed set-up that fits, with what was changed."""

    change: str  # "4 GPUs", "weights int4-awq", "context 16,384 tokens", "KV cache fp8"
    request: PlanRequest
    result: PlanResult


def _try(request: PlanRequest, change: str) -> Alternative | None:
    try:
        result = plan(request)
    except PlannerError:
        return None
    return Alternative(change=change, request=request, result=result) if result.fits else None


def longest_context_that_fits(request: PlanRequest, sequences: float = 1.0) -> int:
    """The longest context (tokens) at which ``sequences`` sequences still fit; 0 when none does.

    Capacity falls monotonically with the context, so a binary search over [1, max_position_embeddings].
    """
    low, high = 0, request.model.max_position_embeddings
    while low < high:
        middle = (low + high + 1) // 2
        if (
            plan(request.model_copy(update={"context_tokens": middle, "shared_prefix_tokens": 0})).capacity.sequences
            >= sequences
        ):
            low = middle
        else:
            high = middle - 1
    return low


def nearest_fitting(request: PlanRequest) -> list[Alternative]:
    """Up to one alternative per lever, each changing one thing: GPU count, weight precision, KV dtype,
    context length."""
    found: list[Alternative] = []
    for count in GPU_COUNTS:
        if count <= request.gpu_count:
            continue
        tp, pp = default_parallelism(request.model, count)
        alternative = _try(
            request.model_copy(update={"gpu_count": count, "tensor_parallel": tp, "pipeline_parallel": pp}),
            f"{count} GPUs (TP {tp})",
        )
        if alternative:
            found.append(alternative)
            break
    current = request.resolved_weights
    for weights in FALLBACK_WEIGHTS:
        if weights == current:
            continue
        alternative = _try(request.model_copy(update={"weights": weights}), f"weights in {weights}")
        if alternative:
            found.append(alternative)
            break
    if request.resolved_kv_dtype not in ("fp8", "int4"):
        alternative = _try(request.model_copy(update={"kv_dtype": "fp8"}), "KV cache in fp8")
        if alternative:
            found.append(alternative)
    context = longest_context_that_fits(request)
    if 0 < context < request.context_tokens:
        alternative = _try(
            request.model_copy(update={"context_tokens": context, "shared_prefix_tokens": 0}),
            f"context of {context:,} tokens",
        )
        if alternative:
            found.append(alternative)
    return found
