"""Data-parallel ranks that share a mixture-of-experts model's experts: which weights an engine splits over all of
them (:func:`spread_of`), and the combinations with data-parallel attention no engine runs as planned
(:func:`check_ranks`)."""

from __future__ import annotations

from planner.bounds.errors import PlannerError
from planner.core.model import ModelSpec
from planner.core.overhead import OverheadModelBase
from planner.core.parallel import NODE_GPUS
from planner.core.weights import Spread
from planner.planning.request import PlanRequest


def ranks_of(request: PlanRequest, tensor_parallel: int, pipeline_parallel: int) -> int:
    """The data-parallel replicas (ranks) of ``request``'s split: those it plans one of (``replica_of``), else its
    GPUs over ``tp x pp``."""
    return request.replica_of or request.gpu_count // (tensor_parallel * pipeline_parallel)


def experts_shared(
    overhead: OverheadModelBase, model: ModelSpec, gpus_per_replica: int, replicas: int, apart: bool = False
) -> bool:
    """Whether ``replicas`` data-parallel replicas of ``gpus_per_replica`` GPUs each are ranks of one server that
    split the model's experts over them all, as the engine splits them (:meth:`planner.core.overhead.
    OverheadModelBase.spread_over_replicas`); not with one replica, whole copies, beyond one server's
    :data:`NODE_GPUS`, or with the GPUs ``apart`` (:func:`ranks_apart`: machines of one GPU each, or MIG slices).
    Replicas on several servers, machines or slices are planned as servers of their own, each a whole copy: ranks
    sharing the experts across them would exchange every MoE layer's tokens over the network (or between slices,
    which no peer-to-peer path joins) and take each engine's multi-node launch, neither planned here. The one test
    the plan, its words, the advisor's groups and hosts, and the launch commands read."""
    total = gpus_per_replica * replicas
    return replicas > 1 and total <= NODE_GPUS and not apart and bool(overhead.spread_over_replicas(model))


def ranks_apart(request: PlanRequest) -> bool:
    """Whether the request's GPUs cannot join one server's ranks: each is a machine of its own (a Mac, DGX Spark,
    Strix Halo: :attr:`planner.core.gpu.GpuSpec.one_per_machine`), or a MIG slice (a CUDA process enumerates one,
    and no peer-to-peer path joins them: :func:`planner.planning.extras.check_deployment`)."""
    machines = request.gpu is not None and request.gpu.one_per_machine
    return machines or bool(request.deployment is not None and request.deployment.mig_profile)


def spread_of(request: PlanRequest, tensor_parallel: int, pipeline_parallel: int) -> Spread | None:
    """The weights split over every data-parallel rank of a stage (:func:`experts_shared`); ``None`` otherwise."""
    replicas = ranks_of(request, tensor_parallel, pipeline_parallel)
    overhead, model = request.overhead, request.model
    if not experts_shared(overhead, model, tensor_parallel * pipeline_parallel, replicas, ranks_apart(request)):
        return None
    return Spread(tensor_parallel * replicas, overhead.spread_over_replicas(model))


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
    if ranks_apart(request) and request.gpu_count > 1:
        mig = request.deployment is not None and request.deployment.mig_profile
        what = "MIG slices, which no peer-to-peer path joins," if mig else "machines of one GPU each, over the network,"
        raise PlannerError(
            f"data-parallel attention is planned on one server: ranks on {request.gpu_count} {what} would exchange "
            "every MoE layer's tokens; plan one GPU, or leave the setting off and plan --tp 1 (each then holds a "
            "whole copy)"
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
