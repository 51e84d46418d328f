"""One rank of one pipeline stage as vLLM sizes it: weights as loaded, the profile's terms, the CUDA-graph
estimate, the KV budget, and the blocks of its pages (:mod:`planner.engines.vllm.blocks`,
:mod:`planner.engines.vllm.mamba`).

- Weights: the plan's stage weights, already as vLLM loads them (:meth:`VllmProfile.loaded_weights_bytes`: the
  kernels' padding, the RoPE cache, the vision tower as vLLM holds it), LoRA slots and the drafter ("Model loading
  took" counts them).
- Budget: ``util x total - weights - activation peak - non-torch - CUDA-graph estimate`` (the estimate from the
  releases that subtract it), or ``--kv-cache-memory-bytes``.
- Pages: layers keyed by spec; an MTP or EAGLE drafter's attention layers have the target's spec and join the
  full-attention layers before grouping (the GB10 log's "Add 3 padding layers" for 16 + 1 full and 48 linear
  layers); a separate draft model keeps its own pages per block.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, NamedTuple

from planner.bounds.memo import Scope, ScopedMemo
from planner.core.blocks import LayerKind
from planner.core.gpu import GpuSpec
from planner.core.kv import kv_bytes_per_token_per_layer
from planner.core.model import ModelSpec
from planner.engines.platform import vllm_platform
from planner.engines.vllm.blocks import (
    LayerKey,
    StageOverrides,
    VllmStage,
    groups_of,
    layer_key,
    spec_counts,
    unified_blocks,
)
from planner.engines.vllm.extensible import Measured, available_bytes, blocks_within
from planner.engines.vllm.graphs import GraphSet
from planner.engines.vllm.held import held_at_start
from planner.engines.vllm.mamba import (
    MambaMode,
    chunk_tokens,
    hybrid_block_size,
    mamba_mode,
    state_page_bytes,
    state_pages_per_request,
)
from planner.engines.vllm.profile import VllmProfile
from planner.planning.context import result_context, spec_tokens, speculative_method
from planner.planning.extras import stage_drafter
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult

SHARED_SPEC_DRAFTERS = ("mtp", "eagle", "eagle3")  # drafter layers of the target's attention shape


def stage_graphs(request: PlanRequest, profile: VllmProfile, total: int) -> GraphSet:
    """The CUDA graphs each rank captures for this request (:mod:`planner.engines.vllm.graphs`), as the plan's
    overhead sizes them (:meth:`VllmProfile.default_graphs`)."""
    gpu = request.gpu
    name, device = (gpu.name, gpu.platform) if gpu is not None else (None, None)
    sinks = request.model.attention_sinks
    lora = request.deployment is not None and request.deployment.lora is not None
    cases = profile.lora_cases(lora, request.model, request.resolved_weights, speculative_method(request))
    return profile.default_graphs(total, name, device, request.resolved_kv_dtype, spec_tokens(request), sinks, cases)


def _graph_term(request: PlanRequest, result: PlanResult, profile: VllmProfile, graphs: GraphSet, layers: int) -> int:
    """The graph memory a rank's budget holds: the estimate, or with the extensible KV cache the capture itself,
    measured before the pool is committed (FlashAttention 3's split accumulators included,
    :mod:`planner.engines.vllm.split_accum`)."""
    platform = vllm_platform(request.gpu)
    if not (profile.extensible(platform.runtime) and not profile.enforce_eager):
        return profile.cudagraph_estimate_bytes(layers, graphs)
    return profile.rank_capture_bytes(
        layers, graphs, request.model, result.tensor_parallel, platform, request.resolved_kv_dtype
    )


def loaded_weights(result: PlanResult, stage_index: int) -> int:
    """The weights one rank of the stage holds after loading: the plan's (as loaded), LoRA slots and the drafter."""
    stage = result.stages[stage_index]
    return stage.weights_bytes + stage.lora_bytes + stage.draft_bytes


class Layout(NamedTuple):
    """A stage's layer keys, their spec counts (:attr:`VllmStage.spec_counts`) and vLLM's groups of them
    (:func:`groups_of`)."""

    keys: tuple[LayerKey, ...]
    counts: tuple[tuple[LayerKey, int], ...]
    group_size: int
    groups: tuple[LayerKey, ...]


def _layout(request: PlanRequest, profile: VllmProfile, layers: range, draft_layers: int) -> Layout:
    return _layer_layout(request.model, profile.hybrid_kv_manager, layers.start, layers.stop, draft_layers)


# Pure in the (frozen, hashable) spec and a few ints, none a length: every plan of a split asks the same stage, and
# counting its keys (one per layer) at each stage cost more than the look-up by these few values.
@lru_cache(maxsize=256)
def _layer_layout(model: ModelSpec, hybrid: bool, start: int, stop: int, draft_layers: int) -> Layout:
    kinds = model.kv_kinds  # shared-KV layers (Gemma 3n/4) and feed-forward blocks (Nemotron-H) hold no pages
    found = [layer_key(model, kinds[i], hybrid) for i in range(start, stop) if kinds[i] is not LayerKind.NONE]
    keys: tuple[LayerKey, ...] = (*found, *([("full", 0)] * draft_layers))
    return Layout(keys, spec_counts(keys), *groups_of(keys))


def _non_torch(request: PlanRequest, result: PlanResult, profile: VllmProfile, weights: int) -> int:
    platform = vllm_platform(request.gpu)
    return profile.non_torch_bytes(result.tensor_parallel, result.pipeline_parallel, platform, weights)


def held_by_others(result: PlanResult, profile: VllmProfile, stage_index: int) -> int:
    """What other processes (or engines) hold on stage ``stage_index``'s device when the worker starts: the profile's
    ``gpu_memory_in_use_bytes`` and the deployment's (:attr:`planner.planning.results.StageMemory.other_bytes`)."""
    return profile.gpu_memory_in_use_bytes + result.stages[stage_index].other_bytes


def others_counted(result: PlanResult, profile: VllmProfile, stage_index: int) -> int:
    """What other processes hold on the device, in the non-torch figure of a release that takes the whole device's
    use as its own (rule ``non_torch_device_wide``: vLLM 0.6.4, and V1's worker from 0.8.0 to 0.9.0); nothing
    where the worker's start is the baseline (0.6.5-0.7.x, 0.9.1 on)."""
    return held_by_others(result, profile, stage_index) if profile.rules.non_torch_device_wide else 0


class StartChecks:
    """The start-up checks of a one-stage plan that read no length (:mod:`planner.engines.vllm.failures`: those
    before the KV sizing, and those after the length's check), kept with its stage by :func:`vllm_stage_kept`: each
    made when first asked (``UNSET`` until then). With a first stage's, at any stage count, the KV cache a cold first
    boot gives up (:func:`planner.engines.vllm.report.kept_first_boot`: it reads the first stage's context at the
    stage's device total, which the stage's key holds)."""

    UNSET: Any = object()
    __slots__ = ("after_kv", "before_kv", "first_boot")

    def __init__(self) -> None:
        self.before_kv: Any = StartChecks.UNSET
        self.after_kv: Any = StartChecks.UNSET
        self.first_boot: Any = StartChecks.UNSET


# The stages of one model planned again at another context (the advisor's context slider): ~600 per ranking of one
# model over the catalog, up to ~1,500; an entry is one VllmStage (~1 kB) and its start-up checks (two failures, a
# few hundred bytes): 8,192 entries keep ~10 MB at most, over every scope (a lever's profile is a scope of a few
# entries, which a bound on scopes had let push out the default's: planner.bounds.memo.ScopedMemo).
LENGTH_FREE_SCOPES = 64
LENGTH_FREE_ENTRIES = 8192
StageKey = tuple[object, ...]
Kept = tuple[VllmStage, StartChecks]
_SCOPES: ScopedMemo[tuple[VllmProfile, ModelSpec], StageKey, Kept] = ScopedMemo(LENGTH_FREE_SCOPES, LENGTH_FREE_ENTRIES)
# The last (profile, model, scope) asked for, as one tuple read and replaced whole (the dashboard ranks in several
# threads): it holds the profile and model, so identity is equality.
_LAST: list[tuple[VllmProfile, ModelSpec, Scope[StageKey, Kept]] | None] = [None]


def clear_length_free() -> None:
    """Forget the stages kept by :func:`vllm_stage`."""
    _SCOPES.clear()
    _LAST[0] = None


def gpu_fields(gpu: GpuSpec | None) -> tuple[str | None, ...]:
    """What a plan reads of a GPU: its name and the fields of its platform (:attr:`GpuSpec.platform`)."""
    if gpu is None:
        return (None,)
    return (gpu.id, gpu.name, gpu.vendor, gpu.architecture, gpu.form_factor)


def _scope(profile: VllmProfile, model: ModelSpec) -> Scope[StageKey, Kept]:
    """The kept stages of ``model`` under ``profile`` (the last one asked for without hashing either again)."""
    last = _LAST[0]
    if last is not None and last[0] is profile and last[1] is model:
        return last[2]
    memo = _SCOPES.scope((profile, model))
    _LAST[0] = (profile, model, memo)
    return memo


def _length_free_key(
    request: PlanRequest, result: PlanResult, stage_index: int, total: int, overrides: StageOverrides | None
) -> StageKey:
    """Everything :func:`_vllm_stage` reads but the profile and model (the scope: :func:`_scope`) and
    ``max_model_len``. The length reaches it twice: as the :class:`StageContext`'s ``max_model_len``, which
    :meth:`VllmProfile.activation_bytes` reads only through :meth:`VllmProfile.batch`, and that only where
    :meth:`VllmProfile.batch_length` says (V0; V1 releases whose defaulted tokens are capped at ``max_num_seqs x
    max_model_len`` below the default), which :func:`vllm_stage_kept` adds to the key; and as the state pages of a
    hybrid model's running request (:func:`state_pages_per_request`), computed again on every call. The request is
    read through its GPU (name and platform: :func:`gpu_fields`), KV dtype, weights, block size and deployment; the
    result through its split, its stage count and the stage's layers, weights (with LoRA slots and the drafter) and
    other processes' memory (which the start-up checks read: :class:`StartChecks`)."""
    stage = result.stages[stage_index]
    return (
        *gpu_fields(request.gpu),
        request.resolved_kv_dtype,
        request.resolved_weights,
        request.block_size,
        request.deployment,
        result.tensor_parallel,
        result.pipeline_parallel,
        len(result.stages),
        stage_index,
        stage.layers,
        stage.weights_bytes,
        stage.lora_bytes,
        stage.draft_bytes,
        stage.other_bytes,
        total,
        overrides,
    )


def _blocks(
    request: PlanRequest, tp: int, spec_tokens: int, per_token_layer: int, layout: Layout, mode: MambaMode
) -> tuple[int, int, tuple[tuple[str, int], ...]]:
    """(block size, page bytes, the blocks vLLM raised): a hybrid attention + Mamba stage's attention block holds
    one state page, in mode ``all`` in whole Mamba chunks (:func:`planner.engines.vllm.mamba.hybrid_block_size`);
    otherwise every layer takes the largest page, the others a larger block
    (:func:`planner.engines.vllm.blocks.unified_blocks`)."""
    model, block = request.model, request.block_size
    if any(key[0] == "mamba" for key, _ in layout.counts):
        chunk = chunk_tokens(model) if mode == "all" else 0
        block = hybrid_block_size(block, state_page_bytes(model, tp, spec_tokens), per_token_layer, chunk)
        return block, block * per_token_layer, ()
    page, kind_blocks = unified_blocks(block, _per_token_by_kind(model, request.resolved_kv_dtype, tp, layout))
    return block, page, kind_blocks


def _pool_blocks(available: int, page: int, group_size: int, draft_page: int, extensible: bool) -> int:
    """The blocks the pool holds: ``available // bytes per block``, or for the extensible KV cache the most whose
    segments (one per layer slot of a group, and the drafter's) fit in 2 MiB granules
    (:func:`planner.engines.vllm.extensible.blocks_within`)."""
    if not page:
        return 0
    if extensible:
        return blocks_within(available, (page,) * group_size + ((draft_page,) if draft_page else ()))
    return max(0, available) // (page * group_size + draft_page)


SPEC_KINDS = {"full": LayerKind.FULL, "sliding": LayerKind.SLIDING, "chunked": LayerKind.CHUNKED}


def _per_token_by_kind(model: ModelSpec, kv_dtype: str, tp: int, layout: Layout) -> dict[str, int]:
    """Bytes per token of one layer of each attention spec type the stage holds (Gemma 4's full layers cache
    ``global_head_dim``, its sliding ones ``head_dim``); only full attention when it holds none."""
    kinds = {key[0] for key, _ in layout.counts if key[0] in SPEC_KINDS} or {"full"}
    return {kind: kv_bytes_per_token_per_layer(model, kv_dtype, tp, SPEC_KINDS[kind]) for kind in sorted(kinds)}


def vllm_stage(
    request: PlanRequest,
    result: PlanResult,
    profile: VllmProfile,
    stage_index: int,
    total: int,
    overrides: StageOverrides | None = None,
) -> VllmStage:
    """Available KV memory, page size, groups and blocks of one rank of pipeline stage ``stage_index``. Under a V1
    :class:`VllmProfile` itself (a subclass may read more) what reads no length is kept across calls (bounded:
    :data:`LENGTH_FREE_ENTRIES` over every scope, least recently used out; :func:`_length_free_key`)."""
    return vllm_stage_kept(request, result, profile, stage_index, total, overrides)[0]


def vllm_stage_kept(
    request: PlanRequest,
    result: PlanResult,
    profile: VllmProfile,
    stage_index: int,
    total: int,
    overrides: StageOverrides | None = None,
) -> tuple[VllmStage, StartChecks | None]:
    """:func:`vllm_stage`, and the start-up checks kept with it when it is kept (``None``: it is not)."""
    if type(profile) is not VllmProfile or not profile.is_v1:
        return _vllm_stage(request, result, profile, stage_index, total, overrides), None
    try:
        memo = _scope(profile, request.model)
    except TypeError:  # a profile a calibration fit builds holds its trial constants in a dict: planned afresh
        return _vllm_stage(request, result, profile, stage_index, total, overrides), None
    key = (
        *_length_free_key(request, result, stage_index, total, overrides),
        profile.batch_length(result.max_model_len),
    )
    found = memo.get(key)
    if found is None:
        return memo.put(key, (_vllm_stage(request, result, profile, stage_index, total, overrides), StartChecks()))
    kept, checks = found
    mode = mamba_mode(profile.rules, request.model, profile.enable_prefix_caching)
    pages = state_pages_per_request(mode, kept.spec_tokens, result.max_model_len, kept.block_size)
    return (kept if pages == kept.mamba_pages else kept.model_copy(update={"mamba_pages": pages})), checks


class Sized(NamedTuple):
    """What one rank holds beside the KV cache (bytes) and the device total its fraction applies to."""

    weights: int
    activation: int
    non_torch: int
    graph: int  # the CUDA-graph estimate, or with the extensible KV cache the graphs captured
    device_total: int


def _kv_budget(
    request: PlanRequest, result: PlanResult, profile: VllmProfile, stage_index: int, s: Sized
) -> tuple[int, int | None]:
    """(the bytes the KV cache may take on one rank, the extensible cache's capacity or ``None``):
    ``--kv-cache-memory-bytes``; the extensible KV cache (0.34), the pool from what is free after warm-up and capture
    (:mod:`planner.engines.vllm.extensible`) and the profile run's capacity printed; else ``util x total`` less the
    rest, the graph estimate from the releases that subtract it."""
    platform = vllm_platform(request.gpu)
    util = profile.utilization_on(platform.runtime)
    if profile.kv_cache_memory_bytes is not None:
        return profile.kv_cache_memory_bytes, None
    if profile.extensible(platform.runtime):
        capacity = math.ceil(util * s.device_total) - s.weights - s.activation - s.non_torch
        in_use = held_by_others(result, profile, stage_index)
        world = result.tensor_parallel * result.pipeline_parallel
        held = held_at_start(profile.fitted, world, platform.integrated, in_use, profile.unified_memory_host_bytes)
        used = s.weights + s.non_torch + (0 if profile.enforce_eager else s.graph)
        measured = Measured(s.device_total, s.device_total - held, used, s.activation)
        return available_bytes(measured, util, platform.runtime), capacity
    in_budget_graph = (
        s.graph if profile.graphs_in_budget(request.model, request.resolved_weights, speculative_method(request)) else 0
    )
    budget = math.floor(util * s.device_total)
    return budget - s.weights - s.activation - s.non_torch - in_budget_graph, None


def _vllm_stage(
    request: PlanRequest,
    result: PlanResult,
    profile: VllmProfile,
    stage_index: int,
    total: int,
    overrides: StageOverrides | None = None,
) -> VllmStage:
    o = overrides or StageOverrides()
    model, tp = request.model, result.tensor_parallel
    layers = range(*result.stages[stage_index].layers)
    ctx = result_context(request, result, stage_index, total)
    weights = loaded_weights(result, stage_index)
    activation = profile.activation_bytes(ctx) if o.activation is None else o.activation
    state = profile.persistent_bytes(ctx)
    non_torch = _non_torch(request, result, profile, weights) + state if o.non_torch is None else o.non_torch
    non_torch += others_counted(result, profile, stage_index)
    graphs = stage_graphs(request, profile, total)
    graph = _graph_term(request, result, profile, graphs, len(layers)) if o.cuda_graph is None else o.cuda_graph
    sized = Sized(weights, activation, non_torch, graph, o.util_total or total)
    available, capacity = _kv_budget(request, result, profile, stage_index, sized)
    k = spec_tokens(request)
    proposer = stage_drafter(request, tp, stage_index == len(result.stages) - 1)
    per_token_layer = kv_bytes_per_token_per_layer(model, request.resolved_kv_dtype, tp)
    shared = speculative_method(request) in SHARED_SPEC_DRAFTERS
    draft_layers = proposer.kv_bytes_per_token // per_token_layer if shared and per_token_layer else 0
    layout = _layout(request, profile, layers, draft_layers)
    keys = layout.keys
    mode = mamba_mode(profile.rules, model, profile.enable_prefix_caching)
    block, page, kind_blocks = _blocks(request, tp, k, per_token_layer, layout, mode)
    group_size, groups = layout.group_size, layout.groups
    draft_page = 0 if shared else block * proposer.kv_bytes_per_token
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
        blocks=_pool_blocks(available, page, group_size, draft_page, capacity is not None),
        capacity=capacity,
        kind_blocks=kind_blocks,
        draft_page_bytes=draft_page,
        lookahead_tokens=0 if shared else proposer.lookahead_tokens,
        mamba_pages=state_pages_per_request(mode, k, result.max_model_len, block),
        spec_tokens=k,
        graphs=graphs,
        kv_check=profile.rules.kv_check,
    ).keeping_counts(layout.counts)
