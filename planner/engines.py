"""What a serving engine prints at start-up, predicted from a plan: KV memory, blocks, tokens, concurrency.

:func:`engine_report` follows each engine's own sizing code (rules and source files in
:mod:`planner.engine_profiles`); :func:`launch_commands` writes the matching command lines and
:func:`max_model_len_allowed` the largest context the set-up accepts.

vLLM V1 block accounting (``vllm/v1/core/kv_cache_utils.py``, ``vllm/v1/kv_cache_interface.py``):

- page = ``block_size x kv_heads_per_gpu x (head_dim K + head_dim V) x dtype bytes`` per layer (MLA: one
  latent, not split by TP; KV heads ``max(1, kv // tp)``, replicated when TP exceeds them);
- one KV-cache group when every layer has the same spec, ``num_blocks = available // page // layers``;
- hybrid sliding-window / full models: groups of equal size (the smaller type's count, or the larger one
  when the counts are within 1.5x), padding layers fill the last group; ``num_blocks = available // page //
  group_size``; the printed token count is ``num_blocks // groups x block_size``;
- max concurrency = ``num_blocks / pages one request of max_model_len needs`` (a sliding-window group needs
  ``cdiv(min(window - 1 + max_num_batched_tokens, max_model_len), block) + 1`` pages);
- all ranks use the smallest block count (pipeline stages differ); rank 0 prints its available memory.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Literal

from pydantic import BaseModel

from planner.engine_profiles import (
    Calibrated,
    LlamacppProfile,
    SglangProfile,
    TrtllmProfile,
    VllmProfile,
    llamacpp_kv_bytes,
    vllm_cudagraph_bytes,
)
from planner.kv import kv_bytes_per_token_per_layer, linear_state_bytes_per_layer
from planner.model import LayerKind, ModelSpec
from planner.plan import PlanRequest, PlanResult
from planner.precision import weight_format
from planner.units import GiB, MiB

EngineName = Literal["vllm", "sglang", "trtllm", "llamacpp"]
ENGINE_NAMES: tuple[EngineName, ...] = ("vllm", "sglang", "trtllm", "llamacpp")


class EngineReport(BaseModel, frozen=True, extra="forbid"):
    """What the engine prints (per GPU, bytes), and whether it starts."""

    engine: EngineName
    engine_version: str
    total_memory_bytes: int  # the device total as the engine sees it
    budget_bytes: int  # util x total (vLLM), mem_fraction_static x total (SGLang), free memory (TRT-LLM)
    weights_bytes: int  # as loaded on the printing rank (padding included)
    activation_bytes: int
    non_torch_bytes: int
    cuda_graph_bytes: int  # subtracted from the budget (vLLM >= 0.21) or only estimated
    available_kv_cache_bytes_per_gpu: int  # as printed by rank 0 (may be negative: the engine fails)
    min_available_kv_cache_bytes: int  # the tightest rank
    block_size: int
    gpu_blocks: int
    kv_cache_groups: int
    kv_cache_tokens: int  # the engine's printed token capacity
    max_model_len: int
    max_concurrency: float  # as printed, at max_model_len
    fits_max_model_len: bool
    estimated_max_model_len: int | None  # when one request of max_model_len does not fit
    fits: bool  # the engine starts and serves one request of max_model_len
    lines: tuple[str, ...]
    notes: tuple[str, ...] = ()


# -- helpers ----------------------------------------------------------------------------------------------


def engine_total_bytes(request: PlanRequest) -> int:
    """The device total the engine prints: ``GpuSpec.engine_visible_bytes`` when known, else the request's."""
    if request.gpu is not None and request.gpu.engine_visible_bytes is not None:
        return request.gpu.engine_visible_bytes
    return request.gpu_memory_bytes


def _round_up(value: int, multiple: int) -> int:
    return math.ceil(value / multiple) * multiple


def loader_extra_bytes(request: PlanRequest, tensor_parallel: int, layers: range) -> int:
    """Bytes an engine's loader adds to the checkpoint's weights on one GPU.

    MXFP4 MoE experts on GPUs before Blackwell run through Marlin, which pads the per-rank intermediate size
    to a multiple of 128 and the hidden size to 256 (vLLM ``Mxfp4MoEMethod.create_weights``,
    ``vllm/model_executor/layers/quantization/mxfp4.py``); Blackwell's FlashInfer path pads both to 256.
    gpt-oss-20b TP2: 1440 -> 1536 and 2880 -> 3072, +0.6 GiB per GPU as the 0.19 log shows (7.01 GiB).
    """
    model = request.model
    moe = model.moe
    if request.resolved_weights != "mxfp4" or moe is None or model.hidden_size is None:
        return 0
    blackwell = request.gpu is not None and (request.gpu.architecture or "").lower().startswith("blackwell")
    inter = moe.moe_intermediate_size // tensor_parallel
    inter_pad = _round_up(inter, 256 if blackwell else 128)
    hidden = model.hidden_size
    hidden_pad = _round_up(hidden, 256)
    per_expert = 3 * inter * hidden
    per_expert_pad = 3 * inter_pad * hidden_pad
    moe_layers = sum(1 for i in layers if model.is_moe_layer(i))
    bits = weight_format("mxfp4").bits_per_weight
    return math.ceil((per_expert_pad - per_expert) * moe.num_experts * moe_layers * bits / 8)


def _layer_key(model: ModelSpec, kind: LayerKind, hybrid: bool) -> tuple[str, int]:
    """(spec type, window) of one layer as vLLM groups it."""
    if kind is LayerKind.LINEAR:
        return ("mamba", 0)
    if kind is LayerKind.SLIDING and hybrid:
        return ("sliding", model.sliding_window or 0)
    if kind is LayerKind.CHUNKED and hybrid:
        return ("chunked", model.attention_chunk_size or 0)
    return ("full", 0)


def _pages_per_request(key: tuple[str, int], max_model_len: int, block: int, batched_tokens: int) -> int:
    """Pages one request of ``max_model_len`` needs in one layer of this spec (``max_memory_usage_bytes``)."""
    kind, window = key
    if kind == "mamba":
        return 1
    if kind == "sliding":
        return math.ceil(min(window - 1 + batched_tokens, max_model_len) / block) + 1
    if kind == "chunked":
        return math.ceil(min(window + batched_tokens, max_model_len) / block)
    return math.ceil(max_model_len / block)


class _VllmStage(BaseModel, frozen=True, extra="forbid"):
    available: int
    weights: int
    activation: int
    non_torch: int
    cuda_graph: int
    page_bytes: int
    block_size: int
    group_size: int
    groups: tuple[tuple[str, int], ...]  # the spec of each group
    layer_keys: tuple[tuple[str, int], ...]  # the spec of each layer of the stage
    blocks: int


def _vllm_stage(
    request: PlanRequest,
    result: PlanResult,
    profile: VllmProfile,
    stage_index: int,
    total: int,
    activation_override: int | None = None,
    non_torch_override: int | None = None,
    weights_override: int | None = None,
    graph_override: int | None = None,
    util_total: int | None = None,
) -> _VllmStage:
    model = request.model
    stage = result.stages[stage_index]
    tp = result.tensor_parallel
    layers = range(*stage.layers)
    last = stage_index == len(result.stages) - 1
    gpu_name = request.gpu.name if request.gpu is not None else None
    weights = stage.weights_bytes + loader_extra_bytes(request, tp, layers)
    if weights_override is not None:
        weights = weights_override
    activation = profile.activation_bytes(model, total, tp, last, gpu_name, result.max_model_len)
    if activation_override is not None:
        activation = activation_override
    non_torch = profile.non_torch_bytes(tp) if non_torch_override is None else non_torch_override
    graph = vllm_cudagraph_bytes(model, len(layers)) if graph_override is None else graph_override
    in_budget_graph = graph if profile.cudagraph_in_budget else 0
    if profile.kv_cache_memory_bytes is not None:
        available = profile.kv_cache_memory_bytes
    else:
        budget = math.floor(profile.gpu_memory_utilization * (util_total or total))
        available = budget - weights - activation - non_torch - in_budget_graph
    hybrid = profile.hybrid_kv_manager
    keys = tuple(_layer_key(model, model.layers[i], hybrid) for i in layers)
    per_token_layer = kv_bytes_per_token_per_layer(model, request.resolved_kv_dtype, tp)
    block = request.block_size
    if any(k[0] == "mamba" for k in keys):
        # Hybrid attention + state-space models: the attention block grows until its page holds a state.
        state = linear_state_bytes_per_layer(model) // tp
        block = max(block, _round_up(math.ceil(state / per_token_layer), 16))
    page = block * per_token_layer
    counts = Counter(keys)
    if len(counts) <= 1:
        group_size = max(1, len(keys))
        groups = tuple(counts) or (("full", 0),)
    else:
        low, high = min(counts.values()), max(counts.values())
        group_size = high if high < 1.5 * low else low
        groups = tuple(key for key, n in counts.items() for _ in range(math.ceil(n / group_size)))
    blocks = max(0, available) // page // group_size if page else 0
    return _VllmStage(
        available=available,
        weights=weights,
        activation=activation,
        non_torch=non_torch,
        cuda_graph=graph,
        page_bytes=page,
        block_size=block,
        group_size=group_size,
        groups=groups,
        layer_keys=keys,
        blocks=blocks,
    )


def _vllm_needed_bytes(stage: _VllmStage, max_model_len: int, batched_tokens: int) -> int:
    """KV bytes one request of ``max_model_len`` needs on this rank (``check_enough_kv_cache_memory``)."""
    return sum(
        _pages_per_request(key, max_model_len, stage.block_size, batched_tokens) * stage.page_bytes
        for key in stage.layer_keys
    )


def _estimate_max_len(stages: list[_VllmStage], limit: int, batched_tokens: int) -> int:
    """The largest length whose request fits on every rank (``estimate_max_model_len``: a binary search)."""
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        if all(_vllm_needed_bytes(s, mid, batched_tokens) <= s.available for s in stages):
            low = mid
        else:
            high = mid - 1
    return low


def _gib(n: float) -> str:
    return f"{n / GiB:.2f}"


# -- vLLM -------------------------------------------------------------------------------------------------


def _vllm_report(
    request: PlanRequest, result: PlanResult, profile: VllmProfile, calibration: Calibrated | None
) -> EngineReport:
    total = engine_total_bytes(request)
    util_total = None
    overrides: dict[str, int | None] = {}
    if calibration is not None:
        util_total = calibration.total_memory_bytes
        overrides = {
            "activation_override": calibration.activation_bytes,
            "non_torch_override": calibration.non_torch_bytes,
            "weights_override": calibration.weights_bytes if result.pipeline_parallel == 1 else None,
            "graph_override": calibration.cuda_graph_bytes,
        }
    stages = [
        _vllm_stage(request, result, profile, i, total, util_total=util_total, **overrides)
        for i in range(len(result.stages))
    ]
    first = stages[0]
    blocks = min(s.blocks for s in stages)
    max_len = result.max_model_len
    gpu_name = request.gpu.name if request.gpu is not None else None
    batched, _ = profile.batch(total, gpu_name, max_len)
    groups = len(first.groups)
    block = first.block_size
    notes: list[str] = []
    if profile.is_v1:
        if profile.hybrid_kv_manager:
            tokens = blocks // groups * block
            per_request = sum(_pages_per_request(k, max_len, block, batched) for k in first.groups)
            concurrency = blocks / per_request if per_request else 0.0
        else:
            tokens = blocks * block
            concurrency = tokens / max_len
        min_available = min(s.available for s in stages)
        fits_len = min_available > 0 and all(_vllm_needed_bytes(s, max_len, batched) <= s.available for s in stages)
        estimated = None if fits_len else _estimate_max_len(stages, max_len, batched)
    else:
        attention_layers = sum(1 for k in first.layer_keys if k[0] != "mamba")
        tokens = blocks * block
        concurrency = tokens / max_len
        min_available = min(s.available for s in stages)
        fits_len = tokens >= max_len and min_available > 0
        estimated = None if fits_len else tokens
        groups = 1
        del attention_layers
    lines: list[str] = []
    budget = math.floor(profile.gpu_memory_utilization * (util_total or total))
    if profile.is_v1:
        lines.append(f"Available KV cache memory: {_gib(first.available)} GiB")
        if min_available > 0:
            lines.append(f"GPU KV cache size: {tokens:,} tokens")
            lines.append(f"Maximum concurrency for {max_len:,} tokens per request: {concurrency:.2f}x")
        if not fits_len and min_available > 0:
            needed = max(_vllm_needed_bytes(s, max_len, batched) for s in stages)
            lines.append(
                f"ValueError: To serve at least one request with the models's max seq len ({max_len}), "
                f"({_gib(needed)} GiB KV cache is needed, which is larger than the available KV cache memory "
                f"({_gib(min_available)} GiB). Based on the available memory, the estimated maximum model length "
                f"is {estimated}."
            )
        elif min_available <= 0:
            lines.append(
                "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`."
            )
    else:
        peak_torch = first.weights + first.activation
        lines.append(
            f"Memory profiling results: total_gpu_memory={_gib(total)}GiB peak_torch_memory={_gib(peak_torch)}GiB "
            f"non_torch_memory={_gib(first.non_torch)}GiB kv_cache_size={_gib(first.available)}GiB "
            f"gpu_memory_utilization={profile.gpu_memory_utilization:.2f}"
        )
        lines.append(f"# GPU blocks: {blocks}")
        lines.append(f"Maximum concurrency for {max_len} tokens per request: {concurrency:.2f}x")
        if not fits_len:
            lines.append(
                f"ValueError: The model's max seq len ({max_len}) is larger than the maximum number of tokens that "
                f"can be stored in KV cache ({tokens})."
            )
    if loader_extra_bytes(request, result.tensor_parallel, range(*result.stages[0].layers)):
        notes.append("MXFP4 experts padded by the Marlin loader (weights as loaded exceed the checkpoint).")
    if not profile.cudagraph_in_budget and not profile.enforce_eager and profile.is_v1:
        notes.append(
            f"CUDA graphs (~{_gib(first.cuda_graph)} GiB) are captured after KV sizing and use the "
            f"(1 - gpu_memory_utilization) headroom in v{profile.engine_version}."
        )
    return EngineReport(
        engine="vllm",
        engine_version=profile.engine_version,
        total_memory_bytes=util_total or total,
        budget_bytes=budget,
        weights_bytes=first.weights,
        activation_bytes=first.activation,
        non_torch_bytes=first.non_torch,
        cuda_graph_bytes=first.cuda_graph,
        available_kv_cache_bytes_per_gpu=first.available,
        min_available_kv_cache_bytes=min_available,
        block_size=block,
        gpu_blocks=blocks,
        kv_cache_groups=groups,
        kv_cache_tokens=tokens,
        max_model_len=max_len,
        max_concurrency=concurrency,
        fits_max_model_len=fits_len,
        estimated_max_model_len=estimated,
        fits=fits_len and min_available > 0,
        lines=tuple(lines),
        notes=tuple(notes),
    )


# -- SGLang -----------------------------------------------------------------------------------------------


def _sglang_report(request: PlanRequest, result: PlanResult, profile: SglangProfile) -> EngineReport:
    model = request.model
    total = engine_total_bytes(request)
    tp, pp = result.tensor_parallel, result.pipeline_parallel
    fraction = profile.fraction(total, tp, pp)
    overhead = profile.load_overhead_bytes(tp)
    per_layer = kv_bytes_per_token_per_layer(model, request.resolved_kv_dtype, tp)
    tokens_min: int | None = None
    rest_first = 0
    weights_first = 0
    for index, stage in enumerate(result.stages):
        layers = range(*stage.layers)
        weights = stage.weights_bytes + loader_extra_bytes(request, tp, layers)
        available = total - weights - overhead  # free memory after loading (get_available_gpu_memory)
        rest = available - (total - math.floor(fraction * total))
        cell = per_layer * sum(1 for i in layers if model.layers[i] is not LayerKind.LINEAR)
        tokens = max(0, rest) // cell if cell else 0
        if index == 0:
            rest_first, weights_first = rest, weights
        tokens_min = tokens if tokens_min is None else min(tokens_min, tokens)
    tokens = tokens_min or 0
    if profile.max_total_tokens is not None:
        tokens = min(tokens, profile.max_total_tokens)
    tokens = tokens // profile.page_size * profile.page_size
    max_len = result.max_model_len
    cell_first = per_layer * sum(1 for i in range(*result.stages[0].layers) if model.layers[i] is not LayerKind.LINEAR)
    pool = tokens * cell_first
    running = min(max(int(tokens / max_len * 512), 2048), 4096)
    k_size = pool / 2 if model.mla is None else pool
    lines = [
        f"KV Cache is allocated. #tokens: {tokens}, K size: {_gib(k_size)} GB, V size: {_gib(pool - k_size)} GB"
        if model.mla is None
        else f"KV Cache is allocated. #tokens: {tokens}, KV size: {_gib(pool)} GB",
        f"max_total_num_tokens={tokens}, max_running_requests={running}, context_len={max_len}",
    ]
    if tokens <= 0:
        lines.append("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.")
    notes = [
        f"mem_fraction_static = {fraction:.3f}"
        + (" (SGLang's default heuristic)" if profile.mem_fraction_static is None else "")
    ]
    return EngineReport(
        engine="sglang",
        engine_version=profile.engine_version,
        total_memory_bytes=total,
        budget_bytes=math.floor(fraction * total),
        weights_bytes=weights_first,
        activation_bytes=0,
        non_torch_bytes=overhead,
        cuda_graph_bytes=0,
        available_kv_cache_bytes_per_gpu=pool if tokens > 0 else rest_first,
        min_available_kv_cache_bytes=pool if tokens > 0 else rest_first,
        block_size=profile.page_size,
        gpu_blocks=tokens // profile.page_size,
        kv_cache_groups=1,
        kv_cache_tokens=tokens,
        max_model_len=max_len,
        max_concurrency=tokens / max_len,
        fits_max_model_len=tokens >= max_len,
        estimated_max_model_len=None if tokens >= max_len else tokens,
        fits=tokens >= max_len,
        lines=tuple(lines),
        notes=tuple(notes),
    )


# -- TensorRT-LLM -----------------------------------------------------------------------------------------


def _trtllm_report(request: PlanRequest, result: PlanResult, profile: TrtllmProfile) -> EngineReport:
    from planner.engine_profiles import TRTLLM_CONTEXT_BYTES

    model = request.model
    total = engine_total_bytes(request)
    tp = result.tensor_parallel
    stage = result.stages[0]
    weights = stage.weights_bytes
    workspace = profile.workspace_bytes(model, tp)
    free = total - weights - workspace - TRTLLM_CONTEXT_BYTES
    kv = math.floor(profile.kv_cache_free_gpu_mem_fraction * max(0, free))
    per_token = stage.kv_bytes_per_token
    block_bytes = per_token * profile.tokens_per_block
    blocks = kv // block_bytes if block_bytes else 0
    tokens = blocks * profile.tokens_per_block
    max_len = result.max_model_len
    per_request = math.ceil(max_len / profile.tokens_per_block)
    return EngineReport(
        engine="trtllm",
        engine_version=profile.engine_version,
        total_memory_bytes=total,
        budget_bytes=max(0, free),
        weights_bytes=weights,
        activation_bytes=workspace,
        non_torch_bytes=TRTLLM_CONTEXT_BYTES,
        cuda_graph_bytes=0,
        available_kv_cache_bytes_per_gpu=kv if free > 0 else free,
        min_available_kv_cache_bytes=kv if free > 0 else free,
        block_size=profile.tokens_per_block,
        gpu_blocks=blocks,
        kv_cache_groups=1,
        kv_cache_tokens=tokens,
        max_model_len=max_len,
        max_concurrency=blocks / per_request,
        fits_max_model_len=tokens >= max_len,
        estimated_max_model_len=None if tokens >= max_len else tokens,
        fits=tokens >= max_len,
        lines=(
            f"[TensorRT-LLM][INFO] Using {tokens} tokens in paged KV cache.",
            f"[TensorRT-LLM][INFO] [MemUsageChange] Allocated {_gib(kv)} GiB for max tokens in paged KV cache "
            f"({tokens}).",
        ),
        notes=("Indicative: the activation workspace depends on how the engine was built (max_num_tokens).",),
    )


# -- llama.cpp --------------------------------------------------------------------------------------------

LLAMACPP_CACHE_NAMES = {
    "bf16": "f16",
    "fp16": "f16",
    "fp32": "f16",
    "int8": "q8_0",
    "fp8": "q8_0",
    "fp8_e4m3": "q8_0",
    "fp8_e5m2": "q8_0",
    "int4": "q4_0",
}


def _llamacpp_report(request: PlanRequest, result: PlanResult, profile: LlamacppProfile) -> EngineReport:
    from planner.engine_profiles import LLAMACPP_CONTEXT_BYTES

    model = request.model
    total = engine_total_bytes(request)
    n_ctx = profile.n_ctx or result.max_model_len
    gpu_layers = profile.gpu_layers(model)
    kv = llamacpp_kv_bytes(
        model, n_ctx, profile.cache_type_k, profile.cache_type_v, gpu_layers, profile.n_parallel, profile.n_ubatch
    )
    kv_all = llamacpp_kv_bytes(
        model, n_ctx, profile.cache_type_k, profile.cache_type_v, None, profile.n_parallel, profile.n_ubatch
    )
    weights_total = result.weights_bytes_total
    weights = (
        weights_total
        if gpu_layers >= model.num_hidden_layers
        else math.ceil(weights_total * gpu_layers / model.num_hidden_layers)
    )
    compute = profile.compute_buffer_bytes(model, n_ctx)
    used = weights + kv + compute + LLAMACPP_CONTEXT_BYTES
    fits = used <= total
    k_share = kv / 2 if model.mla is None else kv
    lines = [
        f"llm_load_tensors: offloaded {gpu_layers}/{model.num_hidden_layers} layers to GPU",
        f"llm_load_tensors:      CUDA0 buffer size = {weights / MiB:.2f} MiB",
        f"llama_new_context_with_model: n_ctx      = {math.ceil(n_ctx / 256) * 256}",
        f"llama_kv_cache_init:      CUDA0 KV buffer size = {kv / MiB:.2f} MiB",
        f"llama_new_context_with_model: KV self size  = {kv / MiB:.2f} MiB, K ({profile.cache_type_k}): "
        f"{k_share / MiB:.2f} MiB, V ({profile.cache_type_v}): {(kv - k_share) / MiB:.2f} MiB",
        f"llama_new_context_with_model:      CUDA0 compute buffer size = {compute / MiB:.2f} MiB",
    ]
    notes = []
    if gpu_layers < model.num_hidden_layers:
        notes.append(
            f"{model.num_hidden_layers - gpu_layers} layers stay in system RAM with their KV cache "
            f"({(weights_total - weights) / GiB:.2f} GiB weights, {(kv_all - kv) / GiB:.2f} GiB KV)."
        )
    if not fits:
        notes.append(f"needs {used / GiB:.2f} GiB on the GPU, {total / GiB:.2f} GiB available: cudaMalloc fails")
    per_slot = n_ctx // profile.n_parallel
    return EngineReport(
        engine="llamacpp",
        engine_version=profile.engine_version,
        total_memory_bytes=total,
        budget_bytes=total,
        weights_bytes=weights,
        activation_bytes=compute,
        non_torch_bytes=LLAMACPP_CONTEXT_BYTES,
        cuda_graph_bytes=0,
        available_kv_cache_bytes_per_gpu=kv,
        min_available_kv_cache_bytes=kv,
        block_size=1,
        gpu_blocks=0,
        kv_cache_groups=1,
        kv_cache_tokens=math.ceil(n_ctx / 256) * 256,
        max_model_len=per_slot,
        max_concurrency=float(profile.n_parallel),
        fits_max_model_len=fits,
        estimated_max_model_len=None,
        fits=fits,
        lines=tuple(lines),
        notes=tuple(notes),
    )


# -- public API -------------------------------------------------------------------------------------------


def profile_of(request: PlanRequest) -> VllmProfile | SglangProfile | TrtllmProfile | LlamacppProfile | Calibrated:
    """The request's engine profile; a non-engine overhead model is read as vLLM's default profile."""
    overhead = request.overhead
    if isinstance(overhead, VllmProfile | SglangProfile | TrtllmProfile | LlamacppProfile | Calibrated):
        return overhead
    util = getattr(overhead, "gpu_memory_utilization", 0.9)
    return VllmProfile(gpu_memory_utilization=util)


def engine_report(request: PlanRequest, result: PlanResult) -> EngineReport:
    """What the request's engine prints at start-up (vLLM V1 for a non-engine overhead model)."""
    profile = profile_of(request)
    if isinstance(profile, SglangProfile):
        return _sglang_report(request, result, profile)
    if isinstance(profile, TrtllmProfile):
        return _trtllm_report(request, result, profile)
    if isinstance(profile, LlamacppProfile):
        return _llamacpp_report(request, result, profile)
    if isinstance(profile, Calibrated):
        return _vllm_report(request, result, profile.base_profile(), profile)
    return _vllm_report(request, result, profile, None)


def max_model_len_allowed(request: PlanRequest, result: PlanResult | None = None) -> int:
    """The largest ``--max-model-len`` (SGLang ``--context-length``, llama.cpp ``-c`` per slot) the set-up
    accepts, capped at the model's ``max_position_embeddings``; 0 when nothing fits."""
    from planner.plan import plan

    result = result or plan(request)
    limit = request.model.max_position_embeddings
    profile = profile_of(request)
    if isinstance(profile, LlamacppProfile):
        low, high = 0, limit
        while low < high:
            mid = (low + high + 1) // 2
            trial = profile.model_copy(update={"n_ctx": mid * profile.n_parallel})
            if _llamacpp_report(request, result, trial).fits:
                low = mid
            else:
                high = mid - 1
        return low
    if isinstance(profile, SglangProfile | TrtllmProfile):
        return min(limit, engine_report(request, result).kv_cache_tokens)
    vllm = profile.base_profile() if isinstance(profile, Calibrated) else profile
    total = engine_total_bytes(request)
    stages = [_vllm_stage(request, result, vllm, i, total) for i in range(len(result.stages))]
    if min(s.available for s in stages) <= 0:
        return 0
    batched, _ = vllm.batch(total, request.gpu.name if request.gpu else None, result.max_model_len)
    if not vllm.is_v1:
        return min(limit, min(s.blocks for s in stages) * stages[0].block_size)
    return _estimate_max_len(stages, limit, batched)


def _kv_flag(kv_dtype: str, engine: str) -> str:
    if engine == "vllm":
        return {
            "fp8": " --kv-cache-dtype fp8",
            "fp8_e4m3": " --kv-cache-dtype fp8_e4m3",
            "fp8_e5m2": " --kv-cache-dtype fp8_e5m2",
        }.get(kv_dtype, "")
    if engine == "sglang":
        return {
            "fp8": " --kv-cache-dtype fp8_e4m3",
            "fp8_e4m3": " --kv-cache-dtype fp8_e4m3",
            "fp8_e5m2": " --kv-cache-dtype fp8_e5m2",
        }.get(kv_dtype, "")
    if engine == "trtllm":
        return ""
    cache = LLAMACPP_CACHE_NAMES.get(kv_dtype, "f16")
    return "" if cache == "f16" else f" --cache-type-k {cache} --cache-type-v {cache}"


def launch_commands(request: PlanRequest, result: PlanResult) -> dict[str, str]:
    """Ready-to-paste start commands for each engine, with the plan's parallelism, memory fraction, context
    and KV dtype (the fraction is each engine's own setting: vLLM's utilization, SGLang's static fraction,
    TensorRT-LLM's share of free memory)."""
    model_id = request.model.id
    tp, pp, dp = result.tensor_parallel, result.pipeline_parallel, result.replicas
    max_len = result.max_model_len
    kv = result.kv_dtype
    profile = profile_of(request)
    total = engine_total_bytes(request)
    vllm = (
        profile
        if isinstance(profile, VllmProfile)
        else (profile.base_profile() if isinstance(profile, Calibrated) else VllmProfile())
    )
    _, seqs = vllm.batch(total, request.gpu.name if request.gpu else None, max_len)
    vllm_cmd = f"vllm serve {model_id} --tensor-parallel-size {tp}"
    if pp > 1:
        vllm_cmd += f" --pipeline-parallel-size {pp}"
    if dp > 1:
        vllm_cmd += f" --data-parallel-size {dp}"
    vllm_cmd += (
        f" --gpu-memory-utilization {vllm.gpu_memory_utilization:g} --max-model-len {max_len}"
        f" --max-num-seqs {seqs}{_kv_flag(kv, 'vllm')}"
    )
    if vllm.max_num_batched_tokens:
        vllm_cmd += f" --max-num-batched-tokens {vllm.max_num_batched_tokens}"
    sg = profile if isinstance(profile, SglangProfile) else SglangProfile()
    fraction = sg.fraction(total, tp, pp)
    sg_cmd = f"python -m sglang.launch_server --model-path {model_id} --tp {tp}"
    if pp > 1:
        sg_cmd += f" --pp-size {pp}"
    if dp > 1:
        sg_cmd += f" --dp {dp}"
    sg_cmd += f" --mem-fraction-static {fraction:g} --context-length {max_len}{_kv_flag(kv, 'sglang')}"
    trt = profile if isinstance(profile, TrtllmProfile) else TrtllmProfile()
    trt_cmd = (
        f"trtllm-serve {model_id} --tp_size {tp} --pp_size {pp} --max_seq_len {max_len}"
        f" --max_batch_size {trt.max_batch_size} --max_num_tokens {trt.max_num_tokens}"
        f" --kv_cache_free_gpu_memory_fraction {trt.kv_cache_free_gpu_mem_fraction:g}"
    )
    lc = profile if isinstance(profile, LlamacppProfile) else LlamacppProfile()
    ngl = 99 if lc.n_gpu_layers is None else lc.n_gpu_layers
    gguf = model_id.split("/")[-1] + f"-{result.weights.upper()}.gguf"
    lc_cmd = (
        f"llama-server -m {gguf} -c {max_len * lc.n_parallel} -np {lc.n_parallel} -ngl {ngl}"
        f"{' -fa on' if lc.flash_attn else ''}{_kv_flag(kv, 'llamacpp')}"
    )
    if tp > 1 or pp > 1:
        lc_cmd += f" --split-mode layer --tensor-split {','.join(['1'] * (tp * pp))}"
    return {"vllm": vllm_cmd, "sglang": sg_cmd, "trtllm": trt_cmd, "llamacpp": lc_cmd}
