"""What vLLM prints at start-up for a plan, the largest ``--max-model-len`` it accepts, and its command line.

Block accounting: :mod:`planner.engines.vllm.blocks`. V1 lines follow ``vllm/v1/core/kv_cache_utils.py``
(``_report_kv_cache_config``, ``check_enough_kv_cache_memory``); V0 lines ``vllm/worker/worker.py``.
"""

from __future__ import annotations

import math

from pydantic import BaseModel

from planner.engines.checkpoints import GGUF, weight_loading, with_note
from planner.engines.common import EngineReport, engine_total_bytes, gib_text, loader_extra_bytes
from planner.engines.vllm.blocks import (
    StageOverrides,
    VllmStage,
    estimate_max_len,
    needed_bytes,
    pages_per_request,
    vllm_stage,
)
from planner.engines.vllm.profile import VllmProfile
from planner.plan import PlanRequest, PlanResult


class _Capacity(BaseModel, frozen=True, extra="forbid"):
    """Tokens, concurrency and the start-up check, as the engine computes them from the block count."""

    blocks: int
    groups: int
    tokens: int
    concurrency: float
    min_available: int
    fits_len: bool
    estimated: int | None
    batched: int


def _capacity(request: PlanRequest, result: PlanResult, profile: VllmProfile, stages: list[VllmStage]) -> _Capacity:
    first = stages[0]
    blocks = min(s.blocks for s in stages)
    max_len = result.max_model_len
    gpu_name = request.gpu.name if request.gpu is not None else None
    batched, _ = profile.batch(engine_total_bytes(request), gpu_name, max_len)
    groups, block = len(first.groups), first.block_size
    min_available = min(s.available for s in stages)
    if not profile.is_v1:
        tokens = blocks * block
        fits_len = tokens >= max_len and min_available > 0
        return _Capacity(
            blocks=blocks,
            groups=1,
            tokens=tokens,
            concurrency=tokens / max_len,
            min_available=min_available,
            fits_len=fits_len,
            estimated=None if fits_len else tokens,
            batched=batched,
        )
    if profile.hybrid_kv_manager:
        tokens = blocks // groups * block
        per_request = sum(pages_per_request(k, max_len, block, batched) for k in first.groups)
        concurrency = blocks / per_request if per_request else 0.0
    else:
        tokens = blocks * block
        concurrency = tokens / max_len
    fits_len = min_available > 0 and all(needed_bytes(s, max_len, batched) <= s.available for s in stages)
    return _Capacity(
        blocks=blocks,
        groups=groups,
        tokens=tokens,
        concurrency=concurrency,
        min_available=min_available,
        fits_len=fits_len,
        estimated=None if fits_len else estimate_max_len(stages, max_len, batched),
        batched=batched,
    )


def _v1_lines(stages: list[VllmStage], cap: _Capacity, max_len: int) -> list[str]:
    lines = [f"Available KV cache memory: {gib_text(stages[0].available)} GiB"]
    if cap.min_available > 0:
        lines.append(f"GPU KV cache size: {cap.tokens:,} tokens")
        lines.append(f"Maximum concurrency for {max_len:,} tokens per request: {cap.concurrency:.2f}x")
    if not cap.fits_len and cap.min_available > 0:
        needed = max(needed_bytes(s, max_len, cap.batched) for s in stages)
        lines.append(
            f"ValueError: To serve at least one request with the models's max seq len ({max_len}), "
            f"({gib_text(needed)} GiB KV cache is needed, which is larger than the available KV cache memory "
            f"({gib_text(cap.min_available)} GiB). Based on the available memory, the estimated maximum model "
            f"length is {cap.estimated}."
        )
    elif cap.min_available <= 0:
        lines.append("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`.")
    return lines


def _v0_lines(first: VllmStage, cap: _Capacity, max_len: int, total: int, util: float) -> list[str]:
    peak_torch = first.weights + first.activation
    lines = [
        f"Memory profiling results: total_gpu_memory={gib_text(total)}GiB peak_torch_memory={gib_text(peak_torch)}GiB "
        f"non_torch_memory={gib_text(first.non_torch)}GiB kv_cache_size={gib_text(first.available)}GiB "
        f"gpu_memory_utilization={util:.2f}",
        f"# GPU blocks: {cap.blocks}",
        f"Maximum concurrency for {max_len} tokens per request: {cap.concurrency:.2f}x",
    ]
    if not cap.fits_len:
        lines.append(
            f"ValueError: The model's max seq len ({max_len}) is larger than the maximum number of tokens that "
            f"can be stored in KV cache ({cap.tokens})."
        )
    return lines


def _notes(request: PlanRequest, result: PlanResult, profile: VllmProfile, first: VllmStage) -> list[str]:
    notes = []
    if loader_extra_bytes(request, result.tensor_parallel, range(*result.stages[0].layers)):
        notes.append("MXFP4 experts padded by the Marlin loader (weights as loaded exceed the checkpoint).")
    if not profile.cudagraph_in_budget and not profile.enforce_eager and profile.is_v1:
        notes.append(
            f"CUDA graphs (~{gib_text(first.cuda_graph)} GiB) are captured after KV sizing and use the "
            f"(1 - gpu_memory_utilization) headroom in v{profile.engine_version}."
        )
    return notes


def vllm_report(
    request: PlanRequest, result: PlanResult, profile: VllmProfile, overrides: StageOverrides | None = None
) -> EngineReport:
    """What vLLM prints: available KV memory per rank, KV cache tokens, maximum concurrency, and the start-up
    check's error when one request of ``max_model_len`` does not fit (``overrides``: figures from a log)."""
    total = engine_total_bytes(request)
    util_total = overrides.util_total if overrides is not None else None
    stages = [vllm_stage(request, result, profile, i, total, overrides) for i in range(len(result.stages))]
    first, max_len = stages[0], result.max_model_len
    cap = _capacity(request, result, profile, stages)
    if profile.is_v1:
        lines = _v1_lines(stages, cap, max_len)
    else:
        lines = _v0_lines(first, cap, max_len, total, profile.gpu_memory_utilization)
    return EngineReport(
        engine="vllm",
        engine_version=profile.engine_version,
        total_memory_bytes=util_total or total,
        budget_bytes=math.floor(profile.gpu_memory_utilization * (util_total or total)),
        weights_bytes=first.weights,
        activation_bytes=first.activation,
        non_torch_bytes=first.non_torch,
        cuda_graph_bytes=first.cuda_graph,
        available_kv_cache_bytes_per_gpu=first.available,
        min_available_kv_cache_bytes=cap.min_available,
        block_size=first.block_size,
        gpu_blocks=cap.blocks,
        kv_cache_groups=cap.groups,
        kv_cache_tokens=cap.tokens,
        max_model_len=max_len,
        max_concurrency=cap.concurrency,
        fits_max_model_len=cap.fits_len,
        estimated_max_model_len=cap.estimated,
        fits=cap.fits_len and cap.min_available > 0,
        lines=tuple(lines),
        notes=tuple(_notes(request, result, profile, first)),
    )


def vllm_max_model_len(request: PlanRequest, result: PlanResult, profile: VllmProfile) -> int:
    """The largest ``--max-model-len`` the set-up accepts (``estimate_max_model_len``), capped at the model's
    ``max_position_embeddings``; 0 when no KV memory is left."""
    limit = request.model.max_position_embeddings
    total = engine_total_bytes(request)
    stages = [vllm_stage(request, result, profile, i, total) for i in range(len(result.stages))]
    if min(s.available for s in stages) <= 0:
        return 0
    batched, _ = profile.batch(total, request.gpu.name if request.gpu else None, result.max_model_len)
    if not profile.is_v1:
        return min(limit, min(s.blocks for s in stages) * stages[0].block_size)
    return estimate_max_len(stages, limit, batched)


VLLM_KV_FLAGS = {
    "fp8": " --kv-cache-dtype fp8",
    "fp8_e4m3": " --kv-cache-dtype fp8_e4m3",
    "fp8_e5m2": " --kv-cache-dtype fp8_e5m2",
}


def vllm_launch_command(request: PlanRequest, result: PlanResult, profile: VllmProfile) -> str:
    """``vllm serve`` with the plan's weights (:mod:`planner.engines.checkpoints`), parallelism, memory fraction,
    context, batch and KV dtype."""
    tp, pp, dp = result.tensor_parallel, result.pipeline_parallel, result.replicas
    _, seqs = profile.batch(
        engine_total_bytes(request), request.gpu.name if request.gpu else None, result.max_model_len
    )
    loading = weight_loading("vllm", request.model, result.weights)
    command = f"vllm serve {loading.model_argument}{loading.flags} --tensor-parallel-size {tp}"
    if result.weights in GGUF:  # vLLM's GGUF loader takes the tokenizer from the original repository
        command += f" --tokenizer {request.model.id}"
    if pp > 1:
        command += f" --pipeline-parallel-size {pp}"
    if dp > 1:
        command += f" --data-parallel-size {dp}"
    command += (
        f" --gpu-memory-utilization {profile.gpu_memory_utilization:g} --max-model-len {result.max_model_len}"
        f" --max-num-seqs {seqs}{VLLM_KV_FLAGS.get(result.kv_dtype, '')}"
    )
    if profile.max_num_batched_tokens:
        command += f" --max-num-batched-tokens {profile.max_num_batched_tokens}"
    return with_note(command, loading)
