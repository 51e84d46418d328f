"""The set-up's concurrency across context lengths: :func:`planner.assessment.assess.assess` at each, so the curve at
the chosen context is the figure every other surface shows (the What-if page's and ``curve`` on the CLI)."""

from __future__ import annotations

from pydantic import BaseModel

from planner.assessment.assess import assess
from planner.bounds.errors import PlannerError
from planner.planning.plan import PlanRequest


class CurvePoint(BaseModel, frozen=True, extra="forbid"):
    """The set-up at one context length: the figures :func:`assess` gives there."""

    context_tokens: int
    concurrency: float  # all replicas, at most what the engine runs at once (Assessment.served_concurrency)
    conversations: int  # whole conversations, all replicas
    contiguous: int  # conversations if each reserved its whole length up front (naive allocation)
    kv_bytes_per_sequence: int


def concurrency_curve(request: PlanRequest, contexts: list[int], users: int | None = None) -> list[CurvePoint]:
    """:func:`assess` at each context length in ``contexts`` against ``users`` (an engine's ``max_model_len``
    follows the context), so the curve at the chosen context is the figure every other surface shows."""
    if any(c <= 0 for c in contexts):
        raise PlannerError("contexts: every context length must be a positive number of tokens")
    points = []
    for tokens in contexts:
        a = assess(request.at_context(tokens), users)
        points.append(
            CurvePoint(
                context_tokens=tokens,
                concurrency=a.served_concurrency,
                conversations=a.conversations,
                contiguous=a.result.capacity.sequences_contiguous,
                kv_bytes_per_sequence=a.result.capacity.kv_bytes_per_sequence,
            )
        )
    return points
