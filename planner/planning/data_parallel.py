"""Data-parallel ranks that share a mixture-of-experts model's experts: which weights an engine splits over all of
them (:func:`spread_of`), and the combinations with data-parallel attention no engine runs as planned
(:func:`check_ranks`)."""

from __future__ import annotations

from planner.bounds.errors import PlannerError
from planner.core.parallel import NODE_GPUS
from planner.core.weights import Spread
from planner.planning.request import PlanRequest


def ranks_of(request: PlanRequest, tensor_parallel: int, pipeline_parallel: int) -> int:
    """The data-parallel replicas (ranks) of ``request``'s split: those it plans one of (``replica_of``), else its
    GPUs over ``tp x pp``."""
    return request.replica_of or request.gpu_count // (tensor_parallel * pipeline_parallel)


def spread_of(request: PlanRequest, tensor_parallel: int, pipeline_parallel: int) -> Spread | None:
    """The weights split over every data-parallel rank of a stage as the engine splits them (:meth:`planner.core.
    overhead.OverheadModelBase.spread_over_replicas`); ``None`` with one replica, or whole copies, and beyond one
    server's :data:`NODE_GPUS` (replicas on several servers are planned as servers of their own: a data-parallel
    group across servers takes each engine's multi-node launch, not planned here)."""
    replicas = ranks_of(request, tensor_parallel, pipeline_parallel)
    if replicas < 2 or tensor_parallel * pipeline_parallel * replicas > NODE_GPUS:
        return None
    categories = request.overhead.spread_over_replicas(request.model)
    return Spread(tensor_parallel * replicas, categories) if categories else None


def check_ranks(request: PlanRequest, tensor_parallel: int, pipeline_parallel: int, spread: Spread | None) -> None:
    """Refused with a :class:`PlannerError` that names them: data-parallel attention
    (:attr:`planner.core.overhead.OverheadModelBase.attends_per_gpu`) where it changes nothing an engine plans (a
    model without routed experts, whose ranks would be plain replicas; one rank), or beyond what is planned here
    (pipeline stages, more GPUs than one server's: each engine's multi-node launch differs), and LoRA adapters on
    them (their expert slots are sized for whole copies: an upper bound where vLLM's plain data-parallel ranks
    share the experts)."""
    if not request.overhead.attends_per_gpu:
        return
    options = request.deployment
    if spread is not None and options is not None and options.lora is not None:
        raise PlannerError(
            "LoRA: adapters on data-parallel attention ranks are not planned (their expert slots are sized for "
            "whole copies); plan tensor parallelism, or leave data-parallel attention off"
        )
    model = request.model
    if model.moe is None:
        raise PlannerError(
            f"data-parallel attention: {model.display_name} has no routed experts to split over the GPUs; its "
            "data-parallel ranks would be plain replicas (leave the setting off and give the GPU count)"
        )
    if pipeline_parallel > 1 or request.gpu_count > NODE_GPUS:
        raise PlannerError(
            f"data-parallel attention is planned on one server of up to {NODE_GPUS} GPUs without pipeline stages "
            f"(asked: {request.gpu_count} GPUs, PP {pipeline_parallel}); across servers each engine launches "
            "its ranks its own way"
        )
    ranks = ranks_of(request, tensor_parallel, pipeline_parallel)
    if ranks < 2:
        raise PlannerError(
            f"data-parallel attention needs two data-parallel ranks or more: {request.gpu_count} GPU(s) at TP "
            f"{tensor_parallel} make {ranks}; add GPUs, or leave the tensor-parallel size unset (a rank a GPU)"
        )
