"""The advisor's own request for one candidate (:meth:`planner.advisor.kept_memory.KeptMemory.request`), built by
the code the ranking runs, for tests that check properties of it rather than a copy of its fields."""

from __future__ import annotations

from functools import cache

from model_catalog import get_model, load_gpus, running_costs
from planner.advisor import Workload
from planner.advisor.costs import Assumptions
from planner.advisor.evaluate import Evaluator
from planner.advisor.options import Candidate
from planner.core.overhead import OverheadModel
from planner.planning.plan import PlanRequest

GPUS = load_gpus()


@cache
def _evaluator(model_id: str, context: int, overhead: OverheadModel) -> Evaluator:
    """One ranking's evaluator of the model at ``context`` tokens, every set-up planned with ``overhead``."""
    workload = Workload.fixed_length(context, concurrent_conversations=1)
    return Evaluator(get_model(model_id).spec, workload, overhead, 16, (), Assumptions.from_catalog(running_costs()))


def advisor_request(
    model_id: str, gpu_id: str, tp: int, weights: str, kv: str, overhead: OverheadModel, context: int
) -> PlanRequest:
    """One replica of ``tp`` GPUs as the advisor plans it (memory as the Memory page plans it, the expert group, the
    block size); raises what building the request raises (:class:`PlannerError`, a pydantic ``ValidationError``)."""
    evaluator, gpu = _evaluator(model_id, context, overhead), GPUS[gpu_id]
    candidate = Candidate(gpu, tp, tp, 1, weights, kv, None)
    return evaluator.request(candidate, overhead, evaluator.memory(gpu, overhead))
