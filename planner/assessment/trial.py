"""What every nearest set-up is judged by (:mod:`planner.assessment.alternatives`): the goal it must meet, the
changed request assessed as the pages assess it, and the change in words when it meets the goal."""

from __future__ import annotations

from typing import NamedTuple

from pydantic import BaseModel

from planner.assessment.assess import Assessment, assess
from planner.bounds.errors import PlannerError
from planner.bounds.walltime import BudgetExceeded, check
from planner.core.overhead import EngineProfile
from planner.planning.plan import PlanRequest

SMALLER_TRIALS = 4  # weight formats or KV dtypes tried below the current one


class Alternative(BaseModel, frozen=True, extra="forbid"):
    """A changed set-up that meets the goal, with what was changed."""

    change: str  # "memory fraction 0.80", "4 GPUs (TP 4 × PP 1)", "weights in int4-awq", "context of 16,384 tokens"
    request: PlanRequest
    assessment: Assessment


class Goal(NamedTuple):
    """What an alternative must hold, and the target it is judged against: the target users the page its link
    opens assesses it for. They differ when the set-up does not fit at all (any set-up that loads and holds one
    conversation is offered) and the engine sizes its launch by the target (llama.cpp's ``-np`` slots that fit,
    :meth:`planner.engines.base.Engine.for_users`): judged for one user it would claim one slot where its page
    launches as many as fit."""

    held: int  # whole conversations it must hold
    users: int  # the target users it is assessed against


def assessed(request: PlanRequest, goal: Goal) -> Assessment | None:
    """``request`` assessed against the goal's users; ``None`` for a set-up the planner refuses outright."""
    try:
        return assess(request, goal.users)
    except BudgetExceeded:
        raise  # the run's time is up: never taken for a set-up that does not fit
    except PlannerError:
        return None


def holds(request: PlanRequest, goal: Goal) -> Assessment | None:
    found = assessed(request, goal)
    return found if found is not None and found.fits and found.conversations >= goal.held else None


def attempt(request: PlanRequest, change: str, goal: Goal) -> Alternative | None:
    found = holds(request, goal)
    return Alternative(change=change, request=request, assessment=found) if found else None


def longest_context_that_fits(request: PlanRequest, conversations: int = 1, users: int | None = None) -> int:
    """The longest context (tokens) at which ``conversations`` whole conversations still fit, judged against
    ``users`` target users (default: ``conversations``; :class:`Goal`); 0 when none does.

    Capacity falls monotonically with the context, so a binary search over [1, max_position_embeddings]. A
    conversation lives in one data-parallel replica, so whole conversations are counted per replica.
    """
    goal = Goal(conversations, users or conversations)
    low, high = 0, request.model.context_limit
    while low < high:
        check()
        middle = (low + high + 1) // 2
        if holds(request.at_context(middle), goal) is not None:
            low = middle
        else:
            high = middle - 1
    return low


def engine_name(request: PlanRequest) -> str:
    overhead = request.overhead
    return overhead.engine_name if isinstance(overhead, EngineProfile) else overhead.kind
