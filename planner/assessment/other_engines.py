"""Where a set-up's own engine refuses it: the other engines that take it as asked and start with it, each at its
own defaults. :func:`planner.engines.registry.engines_that_run` knows only what each engine refuses outright; an
engine that takes the set-up may still stop at start-up (vLLM's Mamba-block check for a hybrid model's sequences),
and sending a reader to it would only move the refusal (reviewer, 2026-12-05: Qwen3.5-27B refused by SGLang was
sent to vLLM 0.31.0, which refuses it at start-up)."""

from __future__ import annotations

from planner.assessment.assess import VerdictState, assess
from planner.bounds.errors import PlannerError
from planner.engines.base import Engine
from planner.engines.registry import engines_that_run
from planner.planning.request import PlanRequest


def engines_that_start(request: PlanRequest) -> tuple[Engine, ...]:
    """:func:`engines_that_run` that also start with the set-up (their assessment is not a refusal to start)."""
    starting = []
    for engine in engines_that_run(request):
        try:
            state = assess(request.model_copy(update={"overhead": engine.profile()}), notes=False).state
        except PlannerError:
            continue
        if state is not VerdictState.ENGINE_REFUSES:
            starting.append(engine)
    return tuple(starting)
