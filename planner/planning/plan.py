"""The one calculation: a model, a GPU set-up, precisions and a workload in; a per-GPU memory breakdown and
a capacity out.

Capacity (Memory Planning for LLMs): ``concurrent sequences = (GPU memory - weights - overhead) / (KV per token x tokens
per sequence)``. Everything is per GPU and per pipeline stage; the fullest stage limits (vLLM uses the
minimum block count over ranks). Data-parallel replicas multiply the capacity.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from pydantic import BaseModel

from planner.bounds.walltime import check
from planner.core.kv import kv_bytes_per_token, kv_bytes_per_token_in_layers
from planner.core.kv_formats import kv_format
from planner.core.model import ModelSpec
from planner.core.overhead import LoadContext, StageContext
from planner.core.parallel import check_parallel
from planner.core.params import ParameterBreakdown, layer_breakdowns, parameter_breakdown
from planner.core.precision import weight_format
from planner.core.weights import Spread, model_weights_bytes, stage_weights_bytes_per_gpu, weights_bytes
from planner.deploy.gpu_share import share_warning
from planner.deploy.mixed import stage_memory_bytes
from planner.planning.context import speculative_method, stage_context
from planner.planning.context_extension import yarn_note
from planner.planning.data_parallel import check_ranks, spread_of
from planner.planning.extras import StageExtras, check_deployment, layer_ranges, stage_extras
from planner.planning.request import FitStatus, PlanRequest
from planner.planning.results import CapacityAt, PlanResult, StageMemory
from planner.planning.sequences import SequenceSizes, sequence_sizes

__all__ = [
    "CapacityAt",
    "FitStatus",
    "MemoryFit",
    "PlanBasis",
    "PlanRequest",
    "PlanResult",
    "StageMemory",
    "fit_at",
    "plan",
    "plan_basis",
    "plan_from",
    "with_loaded_weights",
]


class PlanBasis(BaseModel, frozen=True, extra="forbid"):
    """The memory-independent part of a plan: the parallel split, the weights and KV bytes per token on one GPU
    of each pipeline stage, and the bytes one sequence takes there.

    :func:`fit_at` evaluates it at a GPU memory size; :func:`plan` is :func:`plan_basis` then :func:`fit_at` at
    ``request.gpu_memory_bytes``. The advisor calls :func:`fit_at` once per catalog memory size, so both use one
    capacity formula. ``request.gpu_memory_bytes`` is not read here.
    """

    request: PlanRequest
    tensor_parallel: int
    pipeline_parallel: int
    replicas: int  # gpu_count // (tp x pp)
    params: ParameterBreakdown
    stage_ranges: tuple[tuple[int, int], ...]
    weights_bytes: tuple[int, ...]  # per GPU of each stage
    kv_bytes_per_token: tuple[int, ...]  # per GPU of each stage, all its attention layers
    sequences: SequenceSizes  # at request.context_tokens
    extras: tuple[StageExtras, ...] | None = None  # per stage, what request.deployment changes


# Keyed by the (frozen, hashable) spec: the advisor plans the same split on every catalog GPU, so each key recurs
# ~45 times. An entry is an int plus references; with the largest spec (~11 kB, planner.bounds.limits) 256 entries keep
# at most ~3 MB of specs alive.
@lru_cache(maxsize=256)
def _stage_weights_bytes(
    model: ModelSpec,
    precision: str,
    tensor_parallel: int,
    start: int,
    stop: int,
    first: bool,
    last: bool,
    spread: Spread | None = None,
) -> int:
    """Weight bytes on one GPU of the stage holding layers ``[start, stop)``
    (:func:`planner.core.weights.stage_weights_bytes_per_gpu`); a model known by size alone is spread evenly over
    stages and ranks."""
    params = parameter_breakdown(model)
    if not (model.hidden_size and model.vocab_size):
        return math.ceil(weights_bytes(params, precision) * (stop - start) / model.num_hidden_layers / tensor_parallel)
    layers = layer_breakdowns(model)
    return stage_weights_bytes_per_gpu(
        model, layers, params, precision, tensor_parallel, range(start, stop), first, last, spread
    )


def load_context(
    request: PlanRequest, checkpoint_bytes: int, tensor_parallel: int, pipeline_parallel: int, stage: int, layers: range
) -> LoadContext:
    """What the overhead model sizes the loaded weights of one GPU of ``stage`` from (``checkpoint_bytes``: the
    checkpoint's weights there)."""
    spread = spread_of(request, tensor_parallel, pipeline_parallel)
    # model_construct: every field is already validated (as in stage_memory)
    return LoadContext.model_construct(
        model=request.model,
        weights_bytes=checkpoint_bytes,
        weights_format=request.resolved_weights,
        tensor_parallel=tensor_parallel,
        pipeline_parallel=pipeline_parallel,
        stage_index=stage,
        layers=(layers.start, layers.stop),
        platform=request.gpu.platform if request.gpu is not None else None,
        drafter=speculative_method(request),
        expert_gpus=spread.gpus if spread is not None and "experts" in spread.categories else None,
    )


def loaded_weights_bytes(
    request: PlanRequest, checkpoint_bytes: int, tensor_parallel: int, pipeline_parallel: int, stage: int, layers: range
) -> int:
    """The weights one GPU of ``stage`` holds once loaded: the overhead model's answer
    (:meth:`planner.core.overhead.OverheadModelBase.loaded_weights_bytes`: an engine's kernels may pad or repack
    the checkpoint's ``checkpoint_bytes`` on this device), so the plan shows the weights the engine prints."""
    ctx = load_context(request, checkpoint_bytes, tensor_parallel, pipeline_parallel, stage, layers)
    return request.overhead.loaded_weights_bytes(ctx)


def plan_basis(request: PlanRequest, like: PlanBasis | None = None) -> PlanBasis:
    """Everything of a plan that does not depend on the GPU's memory size (raises on an illegal split). ``like``:
    the basis of a request that differs from ``request`` at most in its GPU and memory size (else it is not
    used), taken as it is but for what reads the GPU (:func:`_on_gpu`)."""
    check()
    if like is not None and request.deployment is None and _but_gpu(like.request, request) == request:
        return _on_gpu(like, request)
    model = request.model
    tp, pp = request.resolved_parallelism
    check_deployment(request, tp, pp)
    if request.overhead.splits_layers and tp > 1:
        tp, pp = 1, tp * pp  # llama.cpp splits whole layers over every GPU of a server: a stage each, as it places them
    check_parallel(model, tp, pp, request.gpu_count)
    spread = spread_of(request, tp, pp)
    check_ranks(request, tp, pp, spread)
    weight_format(request.resolved_weights)
    kv_format(request.resolved_kv_dtype)
    params = parameter_breakdown(model)
    layers = layer_breakdowns(model) if model.hidden_size and model.vocab_size else None
    ranges = layer_ranges(request, pp)
    weights = []
    per_token = []
    for index, stage in enumerate(ranges):
        checkpoint = _stage_weights_bytes(
            model, request.resolved_weights, tp, stage.start, stage.stop, index == 0, index == pp - 1, spread
        )
        weights.append(loaded_weights_bytes(request, checkpoint, tp, pp, index, stage))
        per_token.append(kv_bytes_per_token_in_layers(model, request.resolved_kv_dtype, tp, stage))
    extras = stage_extras(request, params, layers, tp, ranges, weights, spread)
    if extras is not None:
        weights = [e.weights_bytes for e in extras]
        kv = request.resolved_kv_dtype
        per_token = [
            kv_bytes_per_token_in_layers(model, kv, tp, range(*e.kv_layers)) + e.draft_kv_bytes_per_token
            for e in extras
        ]
    stage_ranges = tuple((r.start, r.stop) for r in ranges)
    return PlanBasis(
        request=request,
        tensor_parallel=tp,
        pipeline_parallel=pp,
        replicas=request.gpu_count // (tp * pp),
        params=params,
        stage_ranges=stage_ranges,
        weights_bytes=tuple(weights),
        kv_bytes_per_token=tuple(per_token),
        sequences=sequence_sizes(request, tp, stage_ranges, request.context_tokens),
        extras=extras,
    )


def _but_gpu(like: PlanRequest, request: PlanRequest) -> PlanRequest:
    return like.model_copy(update={"gpu": request.gpu, "gpu_memory_bytes": request.gpu_memory_bytes})


def _on_gpu(like: PlanBasis, request: PlanRequest) -> PlanBasis:
    """``like`` for ``request`` (the same but for its GPU and memory size, without deployment options): in
    :func:`plan_basis` only the weights as loaded read the GPU (its platform: the kernels' padding); the split,
    the parameters, the stage ranges, the KV bytes per token and the sequence sizes read the model, the precisions
    and the lengths, which both share."""
    tp, pp = like.tensor_parallel, like.pipeline_parallel
    spread = spread_of(request, tp, pp)
    weights = []
    for index, (start, stop) in enumerate(like.stage_ranges):
        checkpoint = _stage_weights_bytes(
            request.model, request.resolved_weights, tp, start, stop, index == 0, index == pp - 1, spread
        )
        weights.append(loaded_weights_bytes(request, checkpoint, tp, pp, index, range(start, stop)))
    return with_loaded_weights(like, request, tuple(weights))


def with_loaded_weights(like: PlanBasis, request: PlanRequest, weights_bytes: tuple[int, ...]) -> PlanBasis:
    """``like`` for ``request`` with the weights as loaded on its GPU (what :func:`_on_gpu` computes), for a caller
    that kept them (the advisor: they read no length, :mod:`planner.advisor.reuse`)."""
    return like.model_copy(update={"request": request, "weights_bytes": weights_bytes})


def _pool_bytes(request: PlanRequest, ctx: StageContext, headroom: int, kv_bytes_per_token: int) -> int:
    """The KV pool: the headroom when positive, at most the engine's token cap (:meth:`OverheadModelBase.
    kv_cap_bytes`; the rest of the headroom is then left free)."""
    cap = request.overhead.kv_cap_bytes(ctx, kv_bytes_per_token)
    pool = max(0, headroom)
    return pool if cap is None else min(pool, cap)


def stage_memory(basis: PlanBasis, stage: int, gpu_memory_bytes: int) -> StageMemory:
    """One GPU of ``stage`` with ``gpu_memory_bytes``: the overhead model's working space, and the signed
    headroom ``memory - weights - activations - framework - reserved`` (the KV pool when positive; Memory Planning
    for LLMs)."""
    request = basis.request
    start, stop = basis.stage_ranges[stage]
    weights = basis.weights_bytes[stage]
    gpu_memory_bytes = stage_memory_bytes(request.deployment, stage, gpu_memory_bytes)
    extra = basis.extras[stage] if basis.extras is not None else None
    lora, draft, other = (extra.lora_bytes, extra.draft_bytes, extra.other_bytes) if extra else (0, 0, 0)
    ctx = stage_context(
        request,
        gpu_memory_bytes=gpu_memory_bytes,
        split=(basis.tensor_parallel, basis.pipeline_parallel),
        stage_index=stage,
        layers=(start, stop),
        weights_bytes=weights,
        held_bytes=(lora + draft, other),
        max_model_len=request.max_model_len or request.context_tokens,
    )
    overhead = request.overhead.per_gpu(ctx)
    # Memory other processes hold comes out of a reserve the engine leaves unused (vLLM's 1 - util) first.
    spare = min(other, overhead.reserved_bytes) if request.overhead.others_in_reserve() else 0
    reserved = overhead.reserved_bytes - spare
    headroom = gpu_memory_bytes - weights - overhead.activation_bytes - overhead.framework_bytes - reserved
    headroom -= lora + draft + other
    return StageMemory(
        stage=stage,
        layers=(start, stop),
        gpu_memory_bytes=gpu_memory_bytes,
        weights_bytes=weights,
        activation_bytes=overhead.activation_bytes,
        framework_bytes=overhead.framework_bytes,
        reserved_bytes=reserved,
        kv_cache_bytes=_pool_bytes(request, ctx, headroom, basis.kv_bytes_per_token[stage]),
        headroom_bytes=headroom,
        kv_bytes_per_token=basis.kv_bytes_per_token[stage],
        lora_bytes=lora,
        draft_bytes=draft,
        other_bytes=other,
    )


def capacity_of(stages: Sequence[StageMemory], sizes: SequenceSizes, replicas: int) -> CapacityAt:
    """Sequences of ``sizes.context_tokens`` the limiting stage holds, times the replicas (Memory Planning for LLMs:
    ``KV pool / KV bytes per sequence``; paged, with the shared prefix stored once, and contiguous)."""
    exact = paged = prefix = math.inf
    contiguous = None
    for stage, per_seq in zip(stages, sizes.per_stage, strict=True):
        pool = stage.kv_cache_bytes if stage.headroom_bytes > 0 else 0
        if per_seq.exact == 0:  # a stage without any cache (all layers linear and none here): unlimited
            continue
        exact = min(exact, pool / per_seq.exact)
        paged = min(paged, pool / per_seq.paged)
        own = per_seq.paged - per_seq.shared_prefix
        prefix = min(prefix, max(0.0, (pool - per_seq.shared_prefix) / own) if own > 0 else math.inf)
        held = pool // per_seq.reserved
        contiguous = held if contiguous is None else min(contiguous, held)
    if math.isinf(exact):
        exact = paged = prefix = 0.0
    return CapacityAt(
        context_tokens=sizes.context_tokens,
        kv_bytes_per_sequence=sizes.whole_model_bytes,
        replicas=replicas,
        sequences=exact * replicas,
        sequences_paged=paged * replicas,
        sequences_contiguous=(contiguous or 0) * replicas,
        sequences_with_shared_prefix=prefix * replicas,
    )


class MemoryFit(NamedTuple):
    """A :class:`PlanBasis` at one GPU memory size: memory per stage, capacity and whether it fits."""

    stages: tuple[StageMemory, ...]
    limiting: StageMemory  # the stage with the fewest tokens of room
    capacity: CapacityAt
    fit_status: FitStatus
    kv_budget_tokens_per_replica: int
    gpu_blocks: int  # per replica, on the limiting GPU
    replicas: int


def stages_at(basis: PlanBasis, gpu_memory_bytes: int) -> tuple[StageMemory, ...]:
    """Every stage of ``basis`` on GPUs of ``gpu_memory_bytes`` (:func:`stage_memory`)."""
    return tuple(stage_memory(basis, i, gpu_memory_bytes) for i in range(len(basis.stage_ranges)))


def _limiting(stages: tuple[StageMemory, ...]) -> StageMemory:
    """The stage with the fewest tokens of room (vLLM takes the minimum block count over ranks)."""
    if len(stages) == 1:
        return stages[0]
    return min(stages, key=lambda s: (s.headroom_bytes / s.kv_bytes_per_token) if s.kv_bytes_per_token else math.inf)


def fit_of(basis: PlanBasis, stages: tuple[StageMemory, ...], replicas: int | None = None) -> MemoryFit:
    """Capacity and fit of ``basis`` given its ``stages`` (from :func:`stages_at`), with ``replicas``
    (default: the request's).

    Weights and overhead leave no room: ``weights-do-not-fit``; room for less than one sequence in a replica
    (replicas never share a sequence): ``no-room-for-one-sequence``; else ``fits``.
    """
    replicas = basis.replicas if replicas is None else replicas
    limiting = _limiting(stages)
    capacity = capacity_of(stages, basis.sequences, replicas)
    per_token_gpu = limiting.kv_bytes_per_token
    pool = max(0, limiting.headroom_bytes)
    block_bytes = per_token_gpu * basis.request.block_size
    if limiting.headroom_bytes <= 0:
        status: FitStatus = "weights-do-not-fit"
    elif capacity.sequences < capacity.replicas:  # less than one exact sequence per replica
        status = "no-room-for-one-sequence"
    else:
        status = "fits"
    return MemoryFit(
        stages=stages,
        limiting=limiting,
        capacity=capacity,
        fit_status=status,
        kv_budget_tokens_per_replica=pool // per_token_gpu if per_token_gpu else 0,
        gpu_blocks=pool // block_bytes if block_bytes else 0,
        replicas=replicas,
    )


def fit_at(basis: PlanBasis, gpu_memory_bytes: int, replicas: int | None = None) -> MemoryFit:
    """Evaluate ``basis`` on GPUs of ``gpu_memory_bytes``: :func:`stages_at` then :func:`fit_of`."""
    return fit_of(basis, stages_at(basis, gpu_memory_bytes), replicas)


def plan(request: PlanRequest) -> PlanResult:
    """Plan ``request``: memory per GPU, whether it fits, and how many sequences it serves at once."""
    basis = plan_basis(request)
    return plan_from(basis, stages_at(basis, request.gpu_memory_bytes))


def plan_from(basis: PlanBasis, stages: tuple[StageMemory, ...]) -> PlanResult:
    """The plan of ``basis.request`` from its basis and its stages at ``request.gpu_memory_bytes``
    (:func:`stages_at`): what :func:`plan` returns, for a caller that already has them (the advisor). It reads the
    request's model, precisions, GPU count, lengths and block size, and neither its GPU (but for a unified-memory
    machine's share given above what the OS keeps: a warning), its memory size nor the basis's weights (the stages
    hold what those give): the basis of the same request on another GPU gives the same plan (the advisor plans from
    its GPU-less basis)."""
    request = basis.request
    fit = fit_of(basis, stages)
    model = request.model
    warnings: list[str] = []
    if model.context_limit < request.context_tokens:
        warnings.append(
            f"context of {request.context_tokens:,} tokens exceeds the model's maximum of {model.context_limit:,}"
            + (" with YaRN" if model.yarn_on else "")
        )
    warnings += [note] if (note := yarn_note(model)) else []  # a documented YaRN switched on: the card's caveat
    share = request.deployment.unified_share if request.deployment else None
    too_much = share_warning(request.gpu, share) if request.gpu is not None else None
    warnings += [too_much] if too_much else []
    return PlanResult(
        model_id=model.id,
        weights=request.resolved_weights,
        kv_dtype=request.resolved_kv_dtype,
        gpu_count=request.gpu_count,
        tensor_parallel=basis.tensor_parallel,
        pipeline_parallel=basis.pipeline_parallel,
        replicas=basis.replicas,
        context_tokens=request.context_tokens,
        max_model_len=request.max_model_len or request.context_tokens,
        block_size=request.block_size,
        fits=fit.fit_status == "fits",
        fit_status=fit.fit_status,
        parameters_total=basis.params.total,
        parameters_active=basis.params.active,
        parameters_served=basis.params.served,
        weights_bytes_total=model_weights_bytes(model, request.resolved_weights),
        per_gpu=fit.limiting,
        stages=fit.stages,
        kv_bytes_per_token=kv_bytes_per_token(model, request.resolved_kv_dtype),
        kv_budget_tokens=fit.kv_budget_tokens_per_replica * basis.replicas,
        kv_budget_tokens_per_replica=fit.kv_budget_tokens_per_replica,
        gpu_blocks=fit.gpu_blocks,
        capacity=fit.capacity,
        max_concurrency=fit.capacity.sequences_paged,
        warnings=tuple(warnings),
        deployment_stages=basis.extras,
    )
