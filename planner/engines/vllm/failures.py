"""Why vLLM does not start, checked in the order the engine meets them, each with the engine's own message.

- ``max-model-len``: ``ModelConfig`` refuses a ``max_model_len`` above the model's ``max_position_embeddings``
  unless ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1`` (``vllm/config/model.py``; the 0.19 phi-2 log);
- ``tp-indivisible``: ``VocabParallelEmbedding`` pads the vocabulary to a multiple of 64 and divides it by the
  TP size (``vllm/model_executor/layers/vocab_parallel_embedding.py``; "151936 is not divisible by 5"); the
  head rules are the planner's own (:func:`planner.core.parallel.parallel_problem`, a :class:`PlannerError`);
- ``free-memory``: the GPU has less free memory after NCCL init than ``util x total`` (``gpu_worker.init_device``,
  rule ``startup_free_memory_check``), e.g. another process holds some;
- ``weights-oom``: the weights do not fit what is free; on a unified-memory device (GB10) "free" is the host's
  ``MemAvailable`` (``MemorySnapshot.measure``, 0.20.0 ``utils/mem_utils.py:109-116``): total less what the OS and
  other programs hold (``VllmProfile.unified_memory_host_bytes``);
- ``out-of-memory``: a fixed ``--kv-cache-memory-bytes`` larger than what the weights and non-torch memory leave free
  (:func:`planner.engines.vllm.start_memory.fixed_kv_failure`);
- ``others-oom``: on 0.6.5-0.7.x, other processes holding more than the ``1 - util`` reserve
  (:func:`planner.engines.vllm.start_memory.baseline_kv_failure`);
- ``no-kv-memory`` / ``kv-cache-too-small``: nothing left for the KV cache, or not one request of
  ``max_model_len`` (``check_enough_kv_cache_memory``, with the estimated maximum length);
- ``mamba-align-step``: in Mamba cache mode 'align' a hybrid's attention block larger than ``max_num_batched_tokens``
  (0.22-0.26, :mod:`planner.engines.vllm.align_step`);
- ``mamba-blocks``: a hybrid model captured with FULL CUDA graphs refuses when ``max_num_seqs`` exceeds the pool's
  blocks (rule ``mamba_block_refusal``, from 0.20.0: "max_num_seqs (1024) exceeds available Mamba cache blocks
  (969)", vllm issue #49064);
- ``graph-capture-oom``: after KV allocation ``compile_or_warm_up_model`` captures the CUDA graphs in the ``1 - util``
  headroom (0.27.1 ``v1/worker/gpu_worker.py:717``); it fails when what the pool leaves is less than the capture
  ("torch.AcceleratorError: CUDA error: out of memory", the twenty-first blind set's warm RTX 4090 LoRA restart);
- ``sampler-oom``: after KV allocation and CUDA-graph capture, ``compile_or_warm_up_model`` runs the sampler on
  ``min(max_num_seqs, max_num_batched_tokens)`` dummy requests in what is left of the ``1 - util`` headroom;
  it fails when that is less than the sampler's profiled peak. Below :attr:`VllmConstants.sampler_risk_ratio`
  times that peak the report warns: the 0.19 gpt-oss-20b runs at util 0.95 ran out of memory there with more
  free memory than the peak (the caching allocator's fragmentation, which no configuration shows; the TP 4 run
  with the same headroom started).
"""

from __future__ import annotations

import math

from planner.bounds.memo import BoundedMemo
from planner.core.model import ModelSpec
from planner.core.units import MiB
from planner.deploy.sysmem import spills_to_system_memory
from planner.engines.base import engine_total_bytes, gib_text, stage_total_bytes
from planner.engines.platform import vllm_platform
from planner.engines.vllm.align_step import align_step_failure
from planner.engines.vllm.blocks import VllmStage, has_linear_layers, needed_bytes
from planner.engines.vllm.defaults import given_step_item
from planner.engines.vllm.held import init_baseline_bytes
from planner.engines.vllm.in_flight import in_flight_tokens
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.profiling_kv import cache_bytes, profiles_graphs, profiling_blocks, tensor_bytes
from planner.engines.vllm.rope import derived_max_model_len
from planner.engines.vllm.stage import StartChecks, gpu_fields, held_by_others, others_counted
from planner.engines.vllm.start_memory import (
    Failure,
    baseline_kv_failure,
    fixed_kv_failure,
    free_at_start,
    memory_failure,
)
from planner.engines.vllm.warmup import warmup_bytes
from planner.planning.context import result_context, speculative_method
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult

VOCAB_PADDING = 64  # vocab_parallel_embedding.py DEFAULT_VOCAB_PADDING_SIZE


def _config_failure(request: PlanRequest, result: PlanResult, profile: VllmProfile) -> Failure | None:
    model, max_len, tp = request.model, result.max_model_len, result.tensor_parallel
    derived = derived_max_model_len(model)
    if max_len > derived and not profile.allow_long_max_model_len:
        return "max-model-len", (
            f"Value error, User-specified max_model_len ({max_len}) is greater than the derived max_model_len "
            f"(max_position_embeddings={derived}). To allow overriding this maximum, set the "
            "env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1."
        )
    padded = math.ceil((model.vocab_size or 0) / VOCAB_PADDING) * VOCAB_PADDING
    if padded and padded % tp:
        return "tp-indivisible", f"AssertionError: {padded} is not divisible by {tp}"
    return _item_failure(request, profile)


def _item_failure(request: PlanRequest, profile: VllmProfile) -> Failure | None:
    """A multimodal prefix-LM model's largest item over the ``--max-num-batched-tokens`` given: vLLM disables
    chunked multimodal input for it and refuses (0.34.0 ``v1/core/encoder_cache_manager.py:358-367``), where the
    server takes multimodal input (:func:`planner.engines.vllm.defaults.given_step_item`); a defaulted step is raised
    to the item instead (:func:`planner.engines.vllm.defaults.prefix_item_floor`)."""
    given = profile.max_num_batched_tokens
    item = given_step_item(profile.batch_flags, request.model, profile.loads_encoder(request.model))
    if given is None or item <= given:
        return None
    return "mm-item-batch", (
        f"ValueError: Chunked MM input disabled but max_tokens_per_mm_item ({item}) is larger than "
        f"max_num_batched_tokens ({given}). Please increase max_num_batched_tokens."
    )


def max_num_seqs_of(request: PlanRequest, profile: VllmProfile) -> int:
    """The sequences vLLM runs at once with this request: ``--max-num-seqs``, or its default by GPU and usage
    context."""
    return profile.batch(engine_total_bytes(request), request.gpu.name if request.gpu else None, None, request.model)[1]


def _profiling_kv_failure(
    request: PlanRequest, result: PlanResult, profile: VllmProfile, stages: list[VllmStage]
) -> Failure | None:
    """The graph profiling's minimal KV cache beyond what the weights and non-torch memory leave free on a rank
    (:mod:`planner.engines.vllm.profiling_kv`): a CUDA out-of-memory error before the KV cache is sized."""
    if profile.kv_cache_memory_bytes is not None or profile.enforce_eager or stages[0].capacity is not None:
        return None  # the extensible KV cache measures the graphs after warm-up, without a profiling KV cache
    if not profiles_graphs(
        profile.rules,
        profile.runs_v2(request.model, request.resolved_weights, speculative_method(request)),
        request.gpu,
    ):
        return None
    _, free = free_at_start(request, result, profile)
    seqs = max_num_seqs_of(request, profile)
    compile_bytes = profile.graphics_compile_bytes(result.tensor_parallel, vllm_platform(request.gpu))
    for stage in stages:
        blocks = profiling_blocks(profile.rules, seqs, stage.graphs)
        left = free - stage.weights - (stage.non_torch - compile_bytes)
        if blocks and cache_bytes(stage, blocks) > left:
            return "graph-profile-oom", (
                f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {tensor_bytes(stage, blocks) / MiB:.2f}"
                f" MiB in _init_minimal_kv_cache_for_profiling: the KV cache vLLM measures its CUDA graphs with "
                f"holds {blocks} blocks, {gib_text(cache_bytes(stage, blocks))} GiB per GPU, where "
                f"{gib_text(max(0, left))} GiB is free after the weights and non-torch memory. Lower max_num_seqs "
                "or --max-cudagraph-capture-size, or use --enforce-eager."
            )
    return None


# The sampler's headroom of one V1 rank planned again at another context (the advisor's slider): one per vLLM
# assessment, ~400 per ranking of one model over the catalog; an entry is a few ints and tuples (0.54 kB measured
# with tracemalloc: 376 entries of a 70B ranking, 0.2 MB): 4,096 keep ~2.2 MB at most.
SAMPLER_ENTRIES = 4096
_SAMPLERS: BoundedMemo[tuple[object, ...], tuple[ModelSpec, tuple[int, int]]] = BoundedMemo(SAMPLER_ENTRIES)


def clear_samplers() -> None:
    """Forget the headrooms kept by :func:`sampler_headroom`."""
    _SAMPLERS.clear()


def sampler_headroom(
    request: PlanRequest, result: PlanResult, profile: VllmProfile, last: VllmStage
) -> tuple[int, int]:
    """(free memory when the post-capture sampler warm-up starts, the sampler's profiled peak) on the last
    stage's rank. Under a V1 :class:`VllmProfile` itself it reads the length only through the profile's batch
    (:func:`planner.engines.vllm.stage.vllm_stage`'s argument): kept across calls, keyed by everything
    :func:`_sampler_headroom` reads (:func:`_sampler_key`; bounded: :data:`SAMPLER_ENTRIES`, least recently used
    out)."""
    if type(profile) is not VllmProfile or not profile.is_v1:
        return _sampler_headroom(request, result, profile, last)
    key = _sampler_key(request, result, profile, last)
    try:
        kept = _SAMPLERS.get(key)
    except TypeError:  # a profile a calibration fit builds holds its trial constants in a dict: computed afresh
        return _sampler_headroom(request, result, profile, last)
    if kept is not None and kept[0] is request.model:
        return kept[1]
    return _SAMPLERS.put(key, (request.model, _sampler_headroom(request, result, profile, last)))[1]


def _sampler_key(request: PlanRequest, result: PlanResult, profile: VllmProfile, last: VllmStage) -> tuple[object, ...]:
    """What :func:`_sampler_headroom` reads: the profile, the model (by identity: the memo's entry holds it, so its
    id is not reused while the entry lives), the request's GPU, weights and deployment, the split, the last stage's
    layers, weights and other processes' memory, its rank's total, the rank's vLLM figures, and the length where the
    batch reads it (:meth:`VllmProfile.batch_length`)."""
    stage = result.stages[-1]
    return (
        profile,
        profile.batch_length(result.max_model_len),
        id(request.model),
        *gpu_fields(request.gpu),
        request.resolved_weights,
        request.deployment,
        result.tensor_parallel,
        result.pipeline_parallel,
        len(result.stages),
        stage.layers,
        stage.weights_bytes,
        stage.other_bytes,
        stage_total_bytes(request, result, len(result.stages) - 1),
        last.blocks,
        last.page_bytes,
        last.group_size,
        last.draft_page_bytes,
        last.weights,
        last.non_torch,
        last.graphs,
    )


def _sampler_headroom(
    request: PlanRequest, result: PlanResult, profile: VllmProfile, last: VllmStage
) -> tuple[int, int]:
    index = len(result.stages) - 1
    total = stage_total_bytes(request, result, index)
    ctx = result_context(request, result, index, total)
    tokens, seqs = profile.batch(total, ctx.gpu_name, result.max_model_len, request.model)
    terms = profile.terms(request.model, ctx, tokens, seqs)
    world = result.tensor_parallel * result.pipeline_parallel
    graphs = capture_bytes(request, result, profile, last)
    kv = cache_bytes(last, last.blocks)
    # what others hold, less what the release's non-torch figure (in last.non_torch) already counts of it
    others = held_by_others(result, profile, index) - others_counted(result, profile, index)
    used = (
        init_baseline_bytes(profile.fitted, world)
        + others
        + last.weights
        + kv
        + last.non_torch
        + graphs
        + (0 if profile.consumed_workspace(ctx) else terms.moe_workspace)  # else in last.non_torch
    )
    warm = warmup_bytes(request, profile, last, (tokens, seqs), graphs)
    return total - used, max(terms.sampler, terms.rejection, warm)


def capture_bytes(request: PlanRequest, result: PlanResult, profile: VllmProfile, last: VllmStage) -> int:
    """The CUDA graphs the last stage's rank captures after its KV pool: with the estimate in the budget the capture
    takes what was set aside for it."""
    layers = result.stages[-1].layers
    if profile.graphs_in_budget(request.model, request.resolved_weights, speculative_method(request)):
        return profile.cudagraph_estimate_bytes(layers[1] - layers[0], last.graphs)
    return profile.rank_capture_bytes(
        layers[1] - layers[0],
        last.graphs,
        request.model,
        result.tensor_parallel,
        vllm_platform(request.gpu),
        request.resolved_kv_dtype,
    )


def mamba_refusal(request: PlanRequest, profile: VllmProfile, stages: list[VllmStage]) -> Failure | None:
    """``max_num_seqs`` above the pool's blocks for a hybrid model with FULL CUDA graphs (module docstring); with
    the extensible KV cache the check runs at capture, against the blocks of the capacity (0.34.0
    ``config/compilation.py:1659-1680`` reads ``kv_cache_config.num_blocks``, the profile run's)."""
    blocks = min(_capture_blocks(s) for s in stages)
    if not (profile.rules.mamba_block_refusal and stages[0].graphs.full > 0):
        return None
    if not has_linear_layers(stages[0]):  # hybrid: read last
        return None
    seqs = max_num_seqs_of(request, profile)
    if seqs <= blocks:
        return None
    return "mamba-blocks", (
        f"ValueError: max_num_seqs ({seqs}) exceeds available Mamba cache blocks ({blocks}). Each decode sequence "
        "requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs to at "
        f"most {blocks} or increase gpu_memory_utilization."
    )


def extensible_hint(profile: VllmProfile, request: PlanRequest) -> str:
    """What 0.34's refusals say with the extensible KV cache, sized after warm-up (``v1/core/kv_cache_planning.py``
    ``_more_kv_cache_memory_hint``, :64-97)."""
    util = profile.utilization_for(request.gpu)
    used_by = "the model, its activations, CUDA graphs and warmup"
    graphs = " CUDA graphs take less with fewer or smaller capture sizes in the compilation config."
    if util < 1.0:
        return (
            f"The KV cache gets what is left after {used_by} within `gpu_memory_utilization`={util:g}; increase it "
            f"(with the extensible KV cache it defaults to 1.0) or decrease `max_model_len` or `max_num_seqs`.{graphs}"
        )
    return (
        f"The extensible KV cache already takes all device memory left after {used_by}; decrease `max_model_len` or "
        f"`max_num_seqs`, or the model needs a device with more memory.{graphs}"
    )


def _capture_blocks(stage: VllmStage) -> int:
    """The pool's blocks when the CUDA graphs are captured: the capacity's under the extensible KV cache."""
    if stage.capacity is None or not stage.block_bytes:  # no pages: no blocks beyond the pool's (_pool_blocks)
        return stage.blocks
    return max(0, stage.capacity) // stage.block_bytes


def vllm_failure(
    request: PlanRequest,
    result: PlanResult,
    profile: VllmProfile,
    stages: list[VllmStage],
    min_available: int,
    fits_len: bool,
    estimated: int | None,
    checks: StartChecks | None = None,
) -> Failure | None:
    """The first reason vLLM does not start with this set-up, or ``None`` when it starts. ``checks``: the outcomes
    of the checks that read no length, kept with a one-stage plan's kept stage
    (:func:`planner.engines.vllm.stage.vllm_stage_kept`: its key holds all they read), made here when first asked."""
    failure = _config_failure(request, result, profile) or _before_kv(request, result, profile, stages, checks)
    if failure is not None:
        return failure
    max_len = result.max_model_len
    if min_available <= 0:
        hint = extensible_hint(profile, request) if stages[0].capacity is not None else None
        return "no-kv-memory", (
            "ValueError: No available memory for the cache blocks. "
            + (hint or "Try increasing `gpu_memory_utilization` when initializing the engine.")
        )
    if not fits_len:
        if not profile.is_v1:
            tokens = min(s.blocks for s in stages) * stages[0].block_size
            return "kv-cache-too-small", (
                f"ValueError: The model's max seq len ({max_len}) is larger than the maximum number of tokens that "
                f"can be stored in KV cache ({tokens})."
            )
        reserved = in_flight_tokens(request, result, profile)[1]
        needed = max(needed_bytes(s, max_len, reserved) for s in stages)
        return "kv-cache-too-small", (
            f"ValueError: To serve at least one request with the models's max seq len ({max_len}), "
            f"({gib_text(needed)} GiB KV cache is needed, which is larger than the available KV cache memory "
            f"({gib_text(min_available)} GiB). Based on the available memory, the estimated maximum model "
            f"length is {estimated}."
            + (f" {extensible_hint(profile, request)}" if stages[0].capacity is not None else "")
        )
    if checks is None:
        return _after_kv(request, result, profile, stages)
    if checks.after_kv is StartChecks.UNSET:
        checks.after_kv = _after_kv(request, result, profile, stages)
    found: Failure | None = checks.after_kv
    return found


def _before_kv(
    request: PlanRequest, result: PlanResult, profile: VllmProfile, stages: list[VllmStage], checks: StartChecks | None
) -> Failure | None:
    """The checks before the KV sizing that read no length: the weights against free memory, a fixed KV cache."""
    if checks is not None and checks.before_kv is not StartChecks.UNSET:
        kept: Failure | None = checks.before_kv
        return kept
    failure = (
        memory_failure(request, result, profile, stages[0], stages[-1])
        or fixed_kv_failure(request, result, profile, stages[0])
        or baseline_kv_failure(request, result, profile, stages[0])
        or _profiling_kv_failure(request, result, profile, stages)
    )
    if checks is not None:
        checks.before_kv = failure
    return failure


def _after_kv(
    request: PlanRequest, result: PlanResult, profile: VllmProfile, stages: list[VllmStage]
) -> Failure | None:
    """The checks after the KV cache's: the attention block against the step in Mamba mode 'align'
    (``validate_block_size``, before the warm-up), the Mamba blocks, the sampler's warm-up."""
    refusal = align_step_failure(request, result, profile, stages) or mamba_refusal(request, profile, stages)
    if refusal is not None:
        return refusal
    if profile.is_v1 and not profile.enforce_eager and stages[-1].capacity is None:  # extensible: warmed before
        return _headroom_failure(request, result, profile, stages[-1])
    return None


def _headroom_failure(
    request: PlanRequest, result: PlanResult, profile: VllmProfile, last: VllmStage
) -> Failure | None:
    """What runs out of the ``1 - util`` headroom after the KV pool first, in ``compile_or_warm_up_model``'s order
    (0.27.1 ``v1/worker/gpu_worker.py``): the CUDA-graph capture (:717 ``capture_model``, V1
    ``gpu_model_runner.py:6814``, V2 ``gpu/model_runner.py:754``) when what the pool leaves is less than the capture
    (the free memory after it below zero), else the sampler warm-up after it (:795 V2's ``warmup_kernels``, :816 V1's
    ``_dummy_sampler_run``) when what the capture leaves is less than the sampler's peak."""
    free, need = sampler_headroom(request, result, profile, last)
    if free >= need or spills(request, result):
        return None
    if free < 0:
        graphs = capture_bytes(request, result, profile, last)
        return "graph-capture-oom", (
            "torch.AcceleratorError: CUDA error: out of memory (in capture_model): the CUDA graphs take "
            f"{gib_text(graphs)} GiB per GPU where {gib_text(max(0, free + graphs))} GiB is free after the KV cache. "
            "Lower gpu_memory_utilization or max_num_seqs, or use --enforce-eager."
        )
    gpu_name = request.gpu.name if request.gpu else None
    tokens, seqs = profile.batch(engine_total_bytes(request), gpu_name, result.max_model_len, request.model)
    return "sampler-oom", (
        f"RuntimeError: CUDA out of memory occurred when warming up sampler with {min(seqs, tokens)} dummy requests. "
        "Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine."
    )


def spills(request: PlanRequest, result: PlanResult) -> bool:
    """Whether what the capture and the warm-up need beyond the card runs from system memory instead of failing
    (:func:`planner.deploy.sysmem.spills_to_system_memory`: one GPU under Windows)."""
    host = request.deployment.host if request.deployment is not None else "linux"
    return spills_to_system_memory(host, result.tensor_parallel * result.pipeline_parallel)
