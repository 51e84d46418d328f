"""The fixed KV-cache size lever (vLLM ``--kv-cache-memory-bytes``): with a fixed size the memory fraction no longer
sizes the cache, so the nearest set-ups change the size itself — the largest that starts when the size asked for
does not fit the GPU, the smallest that holds the goal when it is too small.

Sizes are tried in steps of :data:`KV_SIZE_STEP_BYTES` (``--kv-cache-memory-bytes 40G`` is 40 GiB to vLLM: a
capital suffix is binary, ``utils/argparse_utils.py`` ``human_readable_int``), each judged by
:func:`planner.assessment.assess.assess`. Running out of memory is monotone (a smaller cache never fails where a
larger one started; a pool too small for one request is the other end, and is not counted as a failure to start
here), and the conversations held grow with the size.
"""

from __future__ import annotations

from planner.assessment.assess import Assessment, VerdictState, assess
from planner.assessment.search import HIGHER_CURES, largest_where, smallest_where
from planner.bounds.errors import PlannerError
from planner.bounds.walltime import BudgetExceeded
from planner.core.units import GiB
from planner.planning.plan import PlanRequest

FIELD = "kv_cache_memory_bytes"  # the launch setting's profile field (planner.engines.settings)
KV_SIZE_STEP_BYTES = GiB // 4


def fixed_kv_bytes(request: PlanRequest) -> int | None:
    """The fixed KV-cache size per GPU the request's engine profile is started with; ``None``: the fraction sizes
    it (or the profile has no such setting)."""
    value = getattr(request.overhead, FIELD, None)
    return value if isinstance(value, int) else None


def with_fixed_kv(request: PlanRequest, size_bytes: int) -> PlanRequest:
    """``request`` with its engine's fixed KV-cache size set to ``size_bytes``."""
    return request.model_copy(update={"overhead": request.overhead.model_copy(update={FIELD: size_bytes})})


def _judged(request: PlanRequest, goal: int) -> Assessment | None:
    try:
        return assess(request, goal)
    except BudgetExceeded:
        raise  # the run's time is up: never taken for a set-up that does not fit
    except PlannerError:
        return None


def size_for_goal(request: PlanRequest, goal: int, found: Assessment) -> tuple[int, str] | None:
    """``(size, why)``: the fixed size nearest the one asked for that starts and holds ``goal`` conversations — the
    largest that starts when the engine refuses the size asked for, else the smallest larger one that holds the
    goal; ``None`` when the request has no fixed size or no size does."""
    asked = fixed_kv_bytes(request)
    if asked is None:
        return None

    def judged(step: int) -> Assessment | None:
        return _judged(with_fixed_kv(request, step * KV_SIZE_STEP_BYTES), goal)

    def starts(step: int) -> bool:  # or refuses only for a pool too small: monotone in the size
        a = judged(step)
        if a is None or a.state is not VerdictState.ENGINE_REFUSES:
            return a is not None
        return a.report is not None and a.report.failure_kind in HIGHER_CURES

    def holds(step: int) -> bool:
        a = judged(step)
        return a is not None and a.fits and a.conversations >= goal

    asked_step = max(1, asked // KV_SIZE_STEP_BYTES)
    if found.state is VerdictState.ENGINE_REFUSES:
        largest = largest_where(1, asked_step, starts)
        return (largest * KV_SIZE_STEP_BYTES, "the largest that starts") if largest and holds(largest) else None
    largest = largest_where(asked_step, request.gpu_memory_bytes // KV_SIZE_STEP_BYTES, starts)
    smallest = None if largest is None else smallest_where(asked_step, largest, holds)
    return None if smallest is None else (smallest * KV_SIZE_STEP_BYTES, f"the smallest that holds {goal:,}")
