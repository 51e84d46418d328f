"""The batch-size lever (vLLM ``--max-num-seqs``): what vLLM itself advises when a hybrid model's running
sequences outnumber its Mamba cache blocks ("Please lower max_num_seqs to at most N", rule ``mamba_block_refusal``,
vllm issue #49064) or when the sampler warm-up after graph capture runs out of memory ("Please try lowering
``max_num_seqs``", ``compile_or_warm_up_model``) or the CUDA-graph capture before it does (fewer sequences, fewer
capture sizes: ``max_cudagraph_capture_size`` defaults to twice ``max_num_seqs``, at most 512, 0.27.1
``config/vllm.py:1784``), and what cures the throwaway KV cache its graph profiling allocates when that does not
fit beside the weights (a block per sequence, :mod:`planner.engines.vllm.profiling_kv`).
Fewer sequences need fewer Mamba blocks, fewer CUDA-graph captures, a smaller profiling cache and a smaller sampler
warm-up, so starting is monotone in it: a binary search finds the largest that starts, judged by
:func:`planner.assessment.assess.assess`.
"""

from __future__ import annotations

from planner.assessment.assess import Assessment
from planner.assessment.search import largest_where, starts
from planner.engines.vllm.failures import max_num_seqs_of
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest

FIELD = "max_num_seqs"  # the launch setting's profile field (planner.engines.settings)
CURES = frozenset({"mamba-blocks", "sampler-oom", "graph-capture-oom", "graph-profile-oom"})  # lowering it cures
HIGHEST = 1024  # vLLM's largest default max_num_seqs (vllm/engine/arg_utils.py, _set_default_args)


def takes_max_num_seqs(request: PlanRequest) -> bool:
    """Whether the request's engine profile has the setting."""
    return FIELD in type(request.overhead).model_fields


def with_max_num_seqs(request: PlanRequest, seqs: int) -> PlanRequest:
    """``request`` with its engine started with ``--max-num-seqs seqs``."""
    return request.model_copy(update={"overhead": request.overhead.model_copy(update={FIELD: seqs})})


def default_seqs(request: PlanRequest) -> int | None:
    """The ``--max-num-seqs`` the request's engine starts with when none is set (vLLM's default by GPU and usage
    context); ``None``: an engine without the setting, or one set already."""
    overhead = request.overhead
    if not isinstance(overhead, VllmProfile) or overhead.max_num_seqs is not None:
        return None
    return max_num_seqs_of(request, overhead)


def seqs_that_start(request: PlanRequest, found: Assessment) -> int | None:
    """The largest ``--max-num-seqs`` below the one the engine refused with that starts it; ``None`` when the
    refusal is not one it cures, the engine has no such setting, or not even one sequence starts."""
    kind = found.report.failure_kind if found.report is not None else None
    if kind not in CURES or not takes_max_num_seqs(request):
        return None
    current = getattr(request.overhead, FIELD, None)
    high = (current - 1) if isinstance(current, int) else HIGHEST
    return largest_where(1, high, lambda seqs: starts(with_max_num_seqs(request, seqs)))
