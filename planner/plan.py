"""The one calculation: a model, a GPU set-up, precisions and a workload in; a per-GPU memory breakdown and
a capacity out.

Capacity (seed 001): ``concurrent sequences = (GPU memory - weights - overhead) / (KV per token x tokens
per sequence)``. Everything is per GPU and per pipeline stage; the fullest stage limits (vLLM uses the
minimum block count over ranks). Data-parallel replicas multiply the capacity.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

from planner.engines.base import Estimate, OverheadModel, StageContext
from planner.errors import PlannerError
from planner.gpu import GpuSpec
from planner.kv import kinds_in, kv_bytes_per_sequence, kv_bytes_per_token, kv_bytes_per_token_per_layer
from planner.model import LayerKind, ModelSpec
from planner.parallel import check_parallel, default_parallelism, stage_layer_ranges
from planner.params import ParameterBreakdown, layer_breakdowns, parameter_breakdown
from planner.precision import KvDtype, WeightPrecision, kv_format, weight_format
from planner.weights import stage_weights_bytes_per_gpu, weights_bytes

PositiveInt = Annotated[int, Field(gt=0)]
FitStatus = Literal["fits", "weights-do-not-fit", "no-room-for-one-sequence"]


def serving_weights(model: ModelSpec) -> str:
    """The weight precision a model is served in by default: its checkpoint's, except that FP32 checkpoints
    (Gemma 2) are served in 16 bits, as vLLM ``--dtype auto`` casts float32 configs down (``_get_and_verify_dtype``)."""
    return "bf16" if model.native_dtype == "fp32" else model.native_dtype


def serving_kv_dtype(model: ModelSpec) -> str:
    """The KV-cache dtype by default: the activation dtype, FP16 for FP16 checkpoints, BF16 otherwise."""
    return "fp16" if model.native_dtype == "fp16" else "bf16"


class PlanRequest(BaseModel, frozen=True, extra="forbid"):
    """Everything a plan depends on."""

    model: ModelSpec
    gpu_memory_bytes: PositiveInt
    gpu: GpuSpec | None = None  # for labels; the memory used is gpu_memory_bytes
    gpu_count: PositiveInt = 1
    tensor_parallel: PositiveInt | None = None  # None: the largest legal TP for gpu_count
    pipeline_parallel: PositiveInt = 1
    weights: WeightPrecision | None = None  # None: the model's native precision
    kv_dtype: KvDtype | None = None  # None: the model's activation dtype (bf16, or fp16/fp32 natives)
    context_tokens: PositiveInt = 4096
    max_model_len: PositiveInt | None = None  # what a contiguous engine reserves; default context_tokens
    shared_prefix_tokens: Annotated[int, Field(ge=0)] = 0
    block_size: PositiveInt = 16
    overhead: OverheadModel = Estimate()

    @model_validator(mode="after")
    def _check(self) -> PlanRequest:
        if self.shared_prefix_tokens > self.context_tokens:
            raise ValueError("shared_prefix_tokens cannot exceed context_tokens")
        return self

    @property
    def resolved_weights(self) -> str:
        """The weight precision: as asked, else :func:`serving_weights`."""
        return self.weights or serving_weights(self.model)

    @property
    def resolved_kv_dtype(self) -> str:
        """The KV-cache dtype: as asked, else :func:`serving_kv_dtype`."""
        return self.kv_dtype or serving_kv_dtype(self.model)

    @property
    def resolved_parallelism(self) -> tuple[int, int]:
        if self.tensor_parallel is None:
            if self.pipeline_parallel == 1:
                return default_parallelism(self.model, self.gpu_count)
            return max(1, self.gpu_count // self.pipeline_parallel), self.pipeline_parallel
        return self.tensor_parallel, self.pipeline_parallel


class StageMemory(BaseModel, frozen=True, extra="forbid"):
    """One GPU of one pipeline stage, in bytes. ``headroom_bytes`` is signed: the KV pool when positive,
    the shortfall when negative."""

    stage: int
    layers: tuple[int, int]  # first and last+1 decoder layer
    gpu_memory_bytes: int
    weights_bytes: int
    activation_bytes: int
    overhead_bytes: int
    reserved_bytes: int
    kv_cache_bytes: int
    headroom_bytes: int
    kv_bytes_per_token: int  # this GPU's share of one token, all its attention layers

    @property
    def free_bytes(self) -> int:
        """Memory left after everything, the KV pool included (0 when the pool takes the rest)."""
        return max(0, self.gpu_memory_bytes - self.used_bytes)

    @property
    def used_bytes(self) -> int:
        return (
            self.weights_bytes + self.activation_bytes + self.overhead_bytes + self.reserved_bytes + self.kv_cache_bytes
        )


class CapacityAt(BaseModel, frozen=True, extra="forbid"):
    """How many sequences of ``context_tokens`` the deployment holds at once."""

    context_tokens: int
    kv_bytes_per_sequence: int  # one sequence, whole model (window caps and fixed states included)
    sequences: float  # exact token accounting (the seeds' formula)
    sequences_paged: float  # blocks of block_size tokens, rounded up per sequence (vLLM, SGLang, TRT-LLM)
    sequences_contiguous: int  # each sequence reserves max_model_len up front (naive allocation)
    sequences_with_shared_prefix: float  # paged, the shared prefix's full blocks stored once per replica


class PlanResult(BaseModel, frozen=True, extra="forbid"):
    """A plan: ``fits`` and the signed headroom are data, never exceptions."""

    model_id: str
    weights: str
    kv_dtype: str
    gpu_count: int
    tensor_parallel: int
    pipeline_parallel: int
    replicas: int
    context_tokens: int
    max_model_len: int
    block_size: int
    fits: bool
    fit_status: FitStatus
    parameters_total: int
    parameters_active: int
    parameters_served: int
    weights_bytes_total: int  # one copy of the served model
    per_gpu: StageMemory  # the limiting GPU
    stages: tuple[StageMemory, ...]
    kv_bytes_per_token: int  # whole model, all GPUs of a replica, ignoring window caps
    kv_budget_tokens: int  # whole deployment: tokens the KV pools hold (0 when it does not fit)
    kv_budget_tokens_per_replica: int
    gpu_blocks: int  # per replica: blocks of block_size tokens on the limiting GPU
    capacity: CapacityAt
    max_concurrency: float  # paged sequences of context_tokens, whole deployment
    warnings: tuple[str, ...] = ()

    @property
    def headroom_bytes(self) -> int:
        return self.per_gpu.headroom_bytes


class _Prepared(BaseModel, frozen=True, extra="forbid"):
    """The context-independent part of a plan, computed once and reused along a curve."""

    request: PlanRequest
    tensor_parallel: int
    pipeline_parallel: int
    replicas: int
    params: ParameterBreakdown
    stage_ranges: tuple[tuple[int, int], ...]
    stages: tuple[StageMemory, ...]


def _prepare(request: PlanRequest) -> _Prepared:
    model = request.model
    tp, pp = request.resolved_parallelism
    check_parallel(model, tp, pp, request.gpu_count)
    weight_format(request.resolved_weights)
    kv_format(request.resolved_kv_dtype)
    params = parameter_breakdown(model)
    layers = layer_breakdowns(model) if model.hidden_size and model.vocab_size else None
    ranges = stage_layer_ranges(model.num_hidden_layers, pp)
    per_layer_kv = kv_bytes_per_token_per_layer(model, request.resolved_kv_dtype, tp)
    stages = []
    for index, stage in enumerate(ranges):
        first, last = index == 0, index == pp - 1
        if layers is None:  # known by size alone: spread evenly over stages and ranks
            weights = math.ceil(
                weights_bytes(params, request.resolved_weights) * len(stage) / model.num_hidden_layers / tp
            )
        else:
            weights = stage_weights_bytes_per_gpu(
                model, layers, params, request.resolved_weights, tp, stage, first, last
            )
        overhead = request.overhead.per_gpu(
            StageContext(
                model=model,
                gpu_memory_bytes=request.gpu_memory_bytes,
                tensor_parallel=tp,
                pipeline_parallel=pp,
                is_last_stage=last,
                weights_bytes=weights,
                max_model_len=request.max_model_len or request.context_tokens,
                stage_index=index,
                layers=(stage.start, stage.stop),
                weights_format=request.resolved_weights,
                gpu_name=request.gpu.name if request.gpu is not None else None,
            )
        )
        headroom = (
            request.gpu_memory_bytes
            - weights
            - overhead.activation_bytes
            - overhead.framework_bytes
            - overhead.reserved_bytes
        )
        attention_layers = sum(
            n for kind, n in kinds_in(model, stage.start, stage.stop) if kind is not LayerKind.LINEAR
        )
        stages.append(
            StageMemory(
                stage=index,
                layers=(stage.start, stage.stop),
                gpu_memory_bytes=request.gpu_memory_bytes,
                weights_bytes=weights,
                activation_bytes=overhead.activation_bytes,
                overhead_bytes=overhead.framework_bytes,
                reserved_bytes=overhead.reserved_bytes,
                kv_cache_bytes=max(0, headroom),
                headroom_bytes=headroom,
                kv_bytes_per_token=per_layer_kv * attention_layers,
            )
        )
    return _Prepared(
        request=request,
        tensor_parallel=tp,
        pipeline_parallel=pp,
        replicas=request.gpu_count // (tp * pp),
        params=params,
        stage_ranges=tuple((r.start, r.stop) for r in ranges),
        stages=tuple(stages),
    )


def _sequence_bytes(prep: _Prepared, stage: int, tokens: int) -> int:
    """Bytes one sequence of ``tokens`` takes on one GPU of ``stage`` (fixed linear states split over TP)."""
    request = prep.request
    start, stop = prep.stage_ranges[stage]
    return kv_bytes_per_sequence(
        request.model, request.resolved_kv_dtype, tokens, prep.tensor_parallel, range(start, stop)
    )


def _capacity(prep: _Prepared, context_tokens: int) -> CapacityAt:
    """Sequences of ``context_tokens`` the limiting stage holds, times the replicas."""
    request = prep.request
    block = request.block_size
    max_len = max(request.max_model_len or context_tokens, context_tokens)
    paged_tokens = math.ceil(context_tokens / block) * block
    prefix_shared = (request.shared_prefix_tokens // block) * block
    exact = paged = prefix = math.inf
    contiguous = None
    for stage in prep.stages:
        pool = stage.kv_cache_bytes if stage.headroom_bytes > 0 else 0
        per_seq = _sequence_bytes(prep, stage.stage, context_tokens)
        if per_seq == 0:  # a stage without any cache (all layers linear and none here): unlimited
            continue
        exact = min(exact, pool / per_seq)
        per_seq_paged = _sequence_bytes(prep, stage.stage, paged_tokens)
        paged = min(paged, pool / per_seq_paged)
        shared_bytes = _sequence_bytes(prep, stage.stage, prefix_shared)
        own = per_seq_paged - shared_bytes
        prefix = min(prefix, max(0.0, (pool - shared_bytes) / own) if own > 0 else math.inf)
        reserve = _sequence_bytes(prep, stage.stage, max_len)
        held = pool // reserve
        contiguous = held if contiguous is None else min(contiguous, held)
    if math.isinf(exact):
        exact = paged = prefix = 0.0
    return CapacityAt(
        context_tokens=context_tokens,
        kv_bytes_per_sequence=kv_bytes_per_sequence(request.model, request.resolved_kv_dtype, context_tokens),
        sequences=exact * prep.replicas,
        sequences_paged=paged * prep.replicas,
        sequences_contiguous=(contiguous or 0) * prep.replicas,
        sequences_with_shared_prefix=prefix * prep.replicas,
    )


def plan(request: PlanRequest) -> PlanResult:
    """Plan ``request``: memory per GPU, whether it fits, and how many sequences it serves at once."""
    prep = _prepare(request)
    model = request.model
    limiting = min(
        prep.stages, key=lambda s: (s.headroom_bytes / s.kv_bytes_per_token) if s.kv_bytes_per_token else math.inf
    )
    capacity = _capacity(prep, request.context_tokens)
    kv_dtype = request.resolved_kv_dtype
    per_token_gpu = limiting.kv_bytes_per_token
    pool = max(0, limiting.headroom_bytes)
    tokens_per_replica = pool // per_token_gpu if per_token_gpu else 0
    block_bytes = per_token_gpu * request.block_size
    blocks = pool // block_bytes if block_bytes else 0
    warnings: list[str] = []
    if limiting.headroom_bytes <= 0:
        status: FitStatus = "weights-do-not-fit"
    elif capacity.sequences < 1:
        status = "no-room-for-one-sequence"
    else:
        status = "fits"
    if model.max_position_embeddings < request.context_tokens:
        warnings.append(
            f"context of {request.context_tokens:,} tokens exceeds the model's maximum of "
            f"{model.max_position_embeddings:,}"
        )
    return PlanResult(
        model_id=model.id,
        weights=request.resolved_weights,
        kv_dtype=kv_dtype,
        gpu_count=request.gpu_count,
        tensor_parallel=prep.tensor_parallel,
        pipeline_parallel=prep.pipeline_parallel,
        replicas=prep.replicas,
        context_tokens=request.context_tokens,
        max_model_len=request.max_model_len or request.context_tokens,
        block_size=request.block_size,
        fits=status == "fits",
        fit_status=status,
        parameters_total=prep.params.total,
        parameters_active=prep.params.active,
        parameters_served=prep.params.served,
        weights_bytes_total=weights_bytes(prep.params, request.resolved_weights),
        per_gpu=limiting,
        stages=prep.stages,
        kv_bytes_per_token=kv_bytes_per_token(model, kv_dtype),
        kv_budget_tokens=tokens_per_replica * prep.replicas,
        kv_budget_tokens_per_replica=tokens_per_replica,
        gpu_blocks=blocks,
        capacity=capacity,
        max_concurrency=capacity.sequences_paged,
        warnings=tuple(warnings),
    )


def concurrency_curve(request: PlanRequest, contexts: list[int]) -> list[CapacityAt]:
    """Capacity at each context length in ``contexts`` (the caller chooses the x-axis).

    The fixed costs are computed once; each point only sizes one sequence.
    """
    if any(c <= 0 for c in contexts):
        raise PlannerError("contexts: every context length must be a positive number of tokens")
    prep = _prepare(request)
    return [_capacity(prep, c) for c in contexts]


def reservation_waste(used_tokens: int, reserved_tokens: int, block_size: int = 16) -> tuple[float, float]:
    """(contiguous, paged) fraction of reserved KV memory that holds no token.

    Contiguous: a sequence reserves ``reserved_tokens`` up front and fills ``used_tokens`` (seed 000: "max
    context 4,096 but the average reply is 300 tokens: you've reserved ten-plus times what you use"). Paged:
    only the last block is partly empty (Kwon et al. 2023, PagedAttention).
    """
    if used_tokens <= 0 or reserved_tokens < used_tokens:
        raise PlannerError("used_tokens must be positive and at most reserved_tokens")
    contiguous = 1 - used_tokens / reserved_tokens
    paged = 1 - used_tokens / (math.ceil(used_tokens / block_size) * block_size)
    return contiguous, paged
