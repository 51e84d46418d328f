"""The checks :func:`planner.advisor.ranking.rank` makes of what it is asked before it plans anything: known
precisions, engines and KV dtypes, GPU counts of at least one, a context the model reaches."""

from __future__ import annotations

from collections.abc import Sequence

from planner.advisor.support import ENGINE_PREFERENCE
from planner.advisor.workload import Workload
from planner.bounds.errors import PlannerError
from planner.core.kv_formats import KV_FORMATS
from planner.core.model import ModelSpec
from planner.core.precision import WEIGHT_FORMATS


def check_inputs(
    model: ModelSpec, workload: Workload, counts: Sequence[int], weights: Sequence[str], kv_dtypes: Sequence[str]
) -> None:
    """Raise a :class:`PlannerError` naming the first input :func:`~planner.advisor.ranking.rank` cannot plan."""
    for name in weights:
        if name not in WEIGHT_FORMATS:
            raise PlannerError(f"weights: unknown precision {name!r}; choose from {', '.join(WEIGHT_FORMATS)}")
    for name in workload.engines or ():
        if name not in ENGINE_PREFERENCE:
            raise PlannerError(f"engines: unknown engine {name!r}; choose from {', '.join(ENGINE_PREFERENCE)}")
    for name in kv_dtypes:
        if name not in KV_FORMATS:
            raise PlannerError(f"kv_dtypes: unknown KV dtype {name!r}; choose from {', '.join(KV_FORMATS)}")
    if any(c < 1 for c in counts):
        raise PlannerError("counts: every GPU count must be at least 1")
    context, most = workload.context_tokens, model.longest_context  # a documented YaRN reaches its ceiling
    if context > most and workload.preset:  # the preset's length, not one the reader typed: say whose it is
        raise PlannerError(
            f"context: the {workload.preset} workload sizes each conversation at {context:,} tokens ({workload.plan_at}"
            f" of its lengths), past {model.id}'s maximum of {most:,}: choose a shorter workload or one length of at "
            f"most {most:,} tokens"
        )
    if context > most:
        with_yarn = " with the YaRN its card documents" if model.yarn is not None else ""
        raise PlannerError(f"context: {context:,} tokens exceeds {model.id}'s maximum of {most:,}{with_yarn}")
