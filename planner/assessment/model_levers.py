"""The nearest set-ups that change the model as served (:mod:`planner.assessment.alternatives`): a smaller weight
format and a smaller KV cache among those the engine runs on the GPU, and a shorter context."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from planner.assessment.assess import Assessment
from planner.assessment.trial import SMALLER_TRIALS, Alternative, Goal, attempt, engine_name, longest_context_that_fits
from planner.core.kv_formats import kv_format
from planner.core.precision import weight_format
from planner.engines.registry import engine_names, formats_run, kv_dtypes_run
from planner.engines.served import served_somewhere
from planner.engines.support import ModelKind, kind_of
from planner.planning.plan import PlanRequest

# A smaller format saves at least half a bit a value: re-quantizing to the same width is not a fix a buyer takes
# (gpt-oss-120b ships in MXFP4, 4.25 bits: INT4 at 4.0 had been offered, its gain only vLLM's MXFP4 padding; an outside
# review, 2026-12-05). Every GGUF step (q6_k -> q5_k_m: 0.88) and every 16 -> 8 -> 4-bit step is larger.
MIN_SAVING_BITS = 0.5


def _moe(request: PlanRequest) -> ModelKind:
    return kind_of(request.model)


def smaller_weights(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    runs, _ = formats_run(engine_name(request), request.gpu, _moe(request))
    served = [w for w in runs if _served(request, w, request.resolved_kv_dtype)]
    return _first_smaller(request, goal, served, _weight_bits, "weights", "weights")


def _served(request: PlanRequest, weights: str, kv_dtype: str) -> bool:
    """Whether the pair is one to offer: under an engine, one it runs (its own lists are); under a generic profile,
    one some engine serves (:func:`planner.engines.served.served_somewhere`)."""
    if engine_name(request) in engine_names():
        return True
    return served_somewhere(weights, kv_dtype, request.gpu, _moe(request))


def _weight_bits(weights: str) -> float:
    return weight_format(weights).bits_per_weight


def smaller_kv(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    runs = kv_dtypes_run(engine_name(request), request.resolved_weights, request.gpu, _moe(request))
    served = [kv for kv in runs if _served(request, request.resolved_weights, kv)]
    return _first_smaller(request, goal, served, _kv_bits, "kv_dtype", "KV cache")


def _kv_bits(kv: str) -> float:
    return kv_format(kv).bits_per_value


def _first_smaller(
    request: PlanRequest, goal: Goal, runs: Iterable[str], bits: Callable[[str], float], field: str, words: str
) -> Alternative | None:
    """The first of ``runs`` with at least :data:`MIN_SAVING_BITS` fewer ``bits`` than the request's own ``field``
    (``weights``, ``kv_dtype``), the largest first and at most :data:`SMALLER_TRIALS` of them, that holds the goal."""
    own = bits(getattr(request, f"resolved_{field}"))
    smaller = sorted((value for value in runs if bits(value) <= own - MIN_SAVING_BITS), key=bits, reverse=True)
    for value in smaller[:SMALLER_TRIALS]:
        alternative = attempt(request.model_copy(update={field: value}), f"{words} in {value}", goal)
        if alternative:
            return alternative
    return None


def shorter_context(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    context = longest_context_that_fits(request, goal.held, goal.users)
    if not 0 < context < request.context_tokens:
        return None
    return attempt(request.at_context(context), f"context of {context:,} tokens", goal)
