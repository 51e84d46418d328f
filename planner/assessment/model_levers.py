"""The nearest set-ups that change the model as served (:mod:`planner.assessment.alternatives`): a smaller weight
format and a smaller KV cache among those the engine runs on the GPU, and a shorter context."""

from __future__ import annotations

from planner.assessment.assess import Assessment
from planner.assessment.trial import SMALLER_TRIALS, Alternative, Goal, attempt, engine_name, longest_context_that_fits
from planner.core.kv_formats import kv_format
from planner.core.precision import weight_format
from planner.engines.registry import formats_run, kv_dtypes_run
from planner.engines.support import ModelKind, kind_of
from planner.planning.plan import PlanRequest


def _moe(request: PlanRequest) -> ModelKind:
    return kind_of(request.model)


def smaller_weights(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    bits = weight_format(request.resolved_weights).bits_per_weight
    runs, _ = formats_run(engine_name(request), request.gpu, _moe(request))
    smaller = sorted((w for w in runs if weight_format(w).bits_per_weight < bits), key=_weight_bits, reverse=True)
    for weights in smaller[:SMALLER_TRIALS]:
        alternative = attempt(request.model_copy(update={"weights": weights}), f"weights in {weights}", goal)
        if alternative:
            return alternative
    return None


def _weight_bits(weights: str) -> float:
    return weight_format(weights).bits_per_weight


def smaller_kv(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    bits = kv_format(request.resolved_kv_dtype).bits_per_value
    runs = kv_dtypes_run(engine_name(request), request.resolved_weights, request.gpu, _moe(request))
    smaller = sorted((k for k in runs if kv_format(k).bits_per_value < bits), key=_kv_bits, reverse=True)
    for kv in smaller[:SMALLER_TRIALS]:
        alternative = attempt(request.model_copy(update={"kv_dtype": kv}), f"KV cache in {kv}", goal)
        if alternative:
            return alternative
    return None


def _kv_bits(kv: str) -> float:
    return kv_format(kv).bits_per_value


def shorter_context(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    context = longest_context_that_fits(request, goal.held, goal.users)
    if not 0 < context < request.context_tokens:
        return None
    return attempt(request.at_context(context), f"context of {context:,} tokens", goal)
