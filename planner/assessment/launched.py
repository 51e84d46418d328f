"""A request as its engine is launched for a number of users (:func:`for_users`), before
:func:`planner.assessment.assess.assess` asks the engine what it prints at start-up."""

from __future__ import annotations

import math

from planner.core.overhead import EngineProfile
from planner.engines.registry import engine_of
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult


def for_users(request: PlanRequest, result: PlanResult, users: int | None) -> PlanRequest:
    """``request`` as its engine is launched for ``users`` at once, spread over the replicas
    (:meth:`planner.engines.base.Engine.for_users`: llama.cpp's ``-np``); unchanged without a target."""
    if users is None or not isinstance(request.overhead, EngineProfile):
        return request
    engine, profile = engine_of(request.overhead)
    sized = engine.for_users(request, result, profile, math.ceil(users / result.replicas))
    return request if sized == profile else request.model_copy(update={"overhead": sized})
