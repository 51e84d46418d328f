"""vLLM's KV-cache block accounting on one rank (``vllm/v1/core/kv_cache_utils.py``,
``vllm/v1/kv_cache_interface.py``).

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

from pydantic import BaseModel

from planner.bounds.walltime import check
from planner.core.blocks import LayerKind
from planner.core.kv import kv_bytes_per_token_per_layer, linear_state_bytes_per_layer
from planner.core.model import ModelSpec
from planner.core.overhead import StageContext
from planner.engines.base import loader_extra_bytes, round_up
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.rope import rope_cache_bytes
from planner.engines.vllm.towers import replicated_tower_extra_bytes
from planner.planning.extras import stage_drafter
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult

LayerKey = tuple[str, int]  # (spec type, window) of one layer as vLLM groups it


def layer_key(model: ModelSpec, kind: LayerKind, hybrid: bool) -> LayerKey:
    """(spec type, window) of one layer as vLLM groups it."""
    if kind is LayerKind.LINEAR:
        return ("mamba", 0)
    if kind is LayerKind.SLIDING and hybrid:
        return ("sliding", model.sliding_window or 0)
    if kind is LayerKind.CHUNKED and hybrid:
        return ("chunked", model.attention_chunk_size or 0)
    return ("full", 0)


def pages_per_request(key: LayerKey, max_model_len: int, block: int, batched_tokens: int) -> int:
    """Pages one request of ``max_model_len`` needs in one layer of this spec (``max_memory_usage_bytes``)."""
    kind, window = key
    if kind == "mamba":
        return 1
    if kind == "sliding":
        return math.ceil(min(window - 1 + batched_tokens, max_model_len) / block) + 1
    if kind == "chunked":
        return math.ceil(min(window + batched_tokens, max_model_len) / block)
    return math.ceil(max_model_len / block)


class VllmStage(BaseModel, frozen=True, extra="forbid"):
    """One rank of one pipeline stage as vLLM sizes it."""

    available: int
    weights: int
    activation: int
    non_torch: int
    cuda_graph: int
    page_bytes: int
    block_size: int
    group_size: int
    groups: tuple[LayerKey, ...]  # the spec of each group
    layer_keys: tuple[LayerKey, ...]  # the spec of each layer of the stage
    blocks: int
    draft_page_bytes: int = 0  # a speculative proposer's layers per block (their pages join the pool)
    lookahead_tokens: int = 0  # slots reserved per request for speculative tokens


class StageOverrides(BaseModel, frozen=True, extra="forbid"):
    """Figures measured from a log that replace the estimates (``None``: estimate)."""

    activation: int | None = None
    non_torch: int | None = None
    weights: int | None = None
    cuda_graph: int | None = None
    util_total: int | None = None  # the device total the log printed


def _groups(keys: tuple[LayerKey, ...]) -> tuple[int, tuple[LayerKey, ...]]:
    """(group size, the spec of each group): vLLM's ``_get_kv_cache_groups_uniform_page_size``."""
    counts = Counter(keys)
    if len(counts) <= 1:
        return max(1, len(keys)), tuple(counts) or (("full", 0),)
    low, high = min(counts.values()), max(counts.values())
    group_size = high if high < 1.5 * low else low
    return group_size, tuple(key for key, n in counts.items() for _ in range(math.ceil(n / group_size)))


def _block_size(request: PlanRequest, keys: tuple[LayerKey, ...], per_token_layer: int, tp: int) -> int:
    """16 tokens, or for attention + state-space hybrids the block whose page holds one state."""
    block = request.block_size
    if any(k[0] == "mamba" for k in keys):
        state = linear_state_bytes_per_layer(request.model) // tp
        block = max(block, round_up(math.ceil(state / per_token_layer), 16))
    return block


def stage_context(request: PlanRequest, result: PlanResult, stage_index: int, total: int) -> StageContext:
    """The overhead context of one rank of pipeline stage ``stage_index`` (what :meth:`VllmProfile.terms` sees)."""
    stage = result.stages[stage_index]
    return StageContext(
        model=request.model,
        gpu_memory_bytes=total,
        tensor_parallel=result.tensor_parallel,
        pipeline_parallel=result.pipeline_parallel,
        is_last_stage=stage_index == len(result.stages) - 1,
        weights_bytes=stage.weights_bytes,
        max_model_len=result.max_model_len,
        stage_index=stage_index,
        layers=stage.layers,
        weights_format=request.resolved_weights,
        gpu_name=request.gpu.name if request.gpu is not None else None,
    )


def vllm_stage(
    request: PlanRequest,
    result: PlanResult,
    profile: VllmProfile,
    stage_index: int,
    total: int,
    overrides: StageOverrides | None = None,
) -> VllmStage:
    """Available KV memory, page size, groups and blocks of one rank of pipeline stage ``stage_index``."""
    o = overrides or StageOverrides()
    model = request.model
    stage = result.stages[stage_index]
    tp = result.tensor_parallel
    layers = range(*stage.layers)
    ctx = stage_context(request, result, stage_index, total)
    if o.weights is None:  # as loaded: the checkpoint, the loader's padding, the RoPE cos/sin cache and the
        # vision tower vLLM keeps whole where the plan split it (Mistral-format Pixtral)
        rope = rope_cache_bytes(model, 4 if request.resolved_weights == "fp32" else 2, layers)
        tower = replicated_tower_extra_bytes(model, request.resolved_weights, tp, stage_index == 0)
        weights = stage.weights_bytes + loader_extra_bytes(request, tp, layers) + rope + tower
    else:
        weights = o.weights
    weights += stage.lora_bytes + stage.draft_bytes  # loaded with the model: "Model loading took" counts them
    activation = profile.activation_bytes(ctx) if o.activation is None else o.activation
    non_torch = profile.non_torch_bytes(tp, result.pipeline_parallel) if o.non_torch is None else o.non_torch
    graph = profile.cudagraph_estimate_bytes(len(layers)) if o.cuda_graph is None else o.cuda_graph
    in_budget_graph = graph if profile.cudagraph_in_budget else 0
    if profile.kv_cache_memory_bytes is not None:
        available = profile.kv_cache_memory_bytes
    else:
        budget = math.floor(profile.utilization * (o.util_total or total))
        available = budget - weights - activation - non_torch - in_budget_graph
    kinds = model.kv_kinds  # shared-KV layers (Gemma 3n/4) and feed-forward blocks (Nemotron-H) hold no pages
    keys = tuple(
        layer_key(model, kinds[i], profile.hybrid_kv_manager) for i in layers if kinds[i] is not LayerKind.NONE
    )
    per_token_layer = kv_bytes_per_token_per_layer(model, request.resolved_kv_dtype, tp)
    block = _block_size(request, keys, per_token_layer, tp)
    page = block * per_token_layer
    group_size, groups = _groups(keys)
    proposer = stage_drafter(request, tp, stage_index == len(result.stages) - 1)
    draft_page = block * proposer.kv_bytes_per_token
    return VllmStage(
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
        blocks=max(0, available) // (page * group_size + draft_page) if page else 0,
        draft_page_bytes=draft_page,
        lookahead_tokens=proposer.lookahead_tokens,
    )


def needed_bytes(stage: VllmStage, max_model_len: int, batched_tokens: int) -> int:
    """KV bytes one request of ``max_model_len`` needs on this rank (``check_enough_kv_cache_memory``), a
    speculative proposer's pages (with its look-ahead slots) included."""
    own = sum(
        pages_per_request(key, max_model_len, stage.block_size, batched_tokens) * stage.page_bytes
        for key in stage.layer_keys
    )
    draft = math.ceil((max_model_len + stage.lookahead_tokens) / stage.block_size) * stage.draft_page_bytes
    return own + draft


def estimate_max_len(stages: list[VllmStage], limit: int, batched_tokens: int) -> int:
    """The largest length whose request fits on every rank (``estimate_max_model_len``: a binary search)."""
    low, high = 0, limit
    while low < high:
        check()
        mid = (low + high + 1) // 2
        if all(needed_bytes(s, mid, batched_tokens) <= s.available for s in stages):
            low = mid
        else:
            high = mid - 1
    return low
