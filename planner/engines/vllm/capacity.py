"""What vLLM computes from its block count (tokens, concurrency, whether the longest request fits) and the lines
it prints for them: V1 ``vllm/v1/core/kv_cache_utils.py`` (``_report_kv_cache_config``,
``check_enough_kv_cache_memory``), V0 ``vllm/worker/worker.py``. Each pipeline stage's worker prints its own
"Available KV cache memory"; the engine takes the fewest blocks of them.
"""

from __future__ import annotations

from typing import NamedTuple

from planner.engines.base import gib_text
from planner.engines.vllm.blocks import VllmStage, block_of, estimate_max_len, needed_bytes, pages_per_request
from planner.engines.vllm.in_flight import in_flight_tokens
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult


class Capacity(NamedTuple):
    """Tokens, concurrency and the start-up check, as the engine computes them from the block count (a step of
    :func:`planner.engines.vllm.report.vllm_report`, whose :class:`EngineReport` validates what it takes of it)."""

    blocks: int
    groups: int
    tokens: int
    concurrency: float
    min_available: int
    fits_len: bool
    estimated: int | None
    batched: int  # max_num_batched_tokens
    reserved: int  # what a windowed layer holds beyond its window (planner.engines.vllm.in_flight)


def capacity(request: PlanRequest, result: PlanResult, profile: VllmProfile, stages: list[VllmStage]) -> Capacity:
    first = stages[0]
    blocks = min(s.blocks for s in stages)
    max_len = result.max_model_len
    batched, reserved = in_flight_tokens(request, result, profile)
    groups, block = len(first.groups), first.block_size
    min_available = min(s.available for s in stages)
    if not profile.is_v1:
        tokens = blocks * block
        fits_len = tokens >= max_len and min_available > 0
        return Capacity(
            blocks=blocks,
            groups=1,
            tokens=tokens,
            concurrency=tokens / max_len,
            min_available=min_available,
            fits_len=fits_len,
            estimated=None if fits_len else tokens,
            batched=batched,
            reserved=reserved,
        )
    if profile.hybrid_kv_manager:
        pages = (pages_per_request(k, max_len, block_of(first, k), reserved, first.mamba_pages) for k in first.groups)
        per_request = sum(pages)
        concurrency = blocks / per_request if per_request else 0.0
        by_concurrency = profile.rules.printed_tokens == "concurrency"
        tokens = int(concurrency * max_len) if by_concurrency else blocks // groups * block
    else:
        tokens = blocks * block
        concurrency = tokens / max_len
    fits_len = min_available > 0 and all(needed_bytes(s, max_len, reserved) <= s.available for s in stages)
    return Capacity(
        blocks=blocks,
        groups=groups,
        tokens=tokens,
        concurrency=concurrency,
        min_available=min_available,
        fits_len=fits_len,
        estimated=None if fits_len else estimate_max_len(stages, max_len, reserved),
        batched=batched,
        reserved=reserved,
    )


def _worker(stages: list[VllmStage], rank: int) -> str:
    """The prefix of a pipeline stage's worker lines: each prints its own "Available KV cache memory"
    (``v1/executor/multiproc_executor.py`` names it ``Worker_PP{rank}``).

    >>> _worker([VllmStage.model_construct()] * 2, 1)
    '(Worker_PP1) '
    """
    return f"(Worker_PP{rank}) " if len(stages) > 1 else ""


def v1_lines(stages: list[VllmStage], cap: Capacity, max_len: int, fixed_free: int | None = None) -> list[str]:
    """The V1 engine's lines; ``fixed_free``: the free memory at start when ``--kv-cache-memory-bytes`` fixes the cache,
    which skips the profiling and its "Available KV cache memory" line for its own (0.19.0-0.31.0
    ``vllm/v1/worker/gpu_worker.py`` ``determine_available_memory``)."""
    first = stages[0]
    lines = [
        f"{_worker(stages, i)}Available KV cache memory: {gib_text(s.available)} GiB" for i, s in enumerate(stages)
    ]
    if first.capacity is not None:  # extensible (0.34): the capacity, then the pool measured after warm-up
        lines = [
            f"Available KV cache memory: {gib_text(max(0, first.capacity))} GiB",
            f"Memory after warmup: {gib_text(first.activation)} GiB kept for transient activations; {cap.blocks} KV "
            f"cache blocks ({gib_text(cap.blocks * first.block_bytes)} GiB) fit.",
        ]
    if fixed_free is not None:
        lines = [
            f"Initial free memory {gib_text(fixed_free)} GiB, reserved {gib_text(stages[0].available)} GiB memory "
            "for KV Cache as specified by kv_cache_memory_bytes config and skipped memory profiling."
        ]
    if cap.min_available > 0:
        lines.append(f"GPU KV cache size: {cap.tokens:,} tokens")
        lines.append(f"Maximum concurrency for {max_len:,} tokens per request: {cap.concurrency:.2f}x")
    return lines


def v0_lines(first: VllmStage, cap: Capacity, max_len: int, total: int, util: float) -> list[str]:
    peak_torch = first.weights + first.activation
    lines = [
        f"Memory profiling results: total_gpu_memory={gib_text(total)}GiB peak_torch_memory={gib_text(peak_torch)}GiB "
        f"non_torch_memory={gib_text(first.non_torch)}GiB kv_cache_size={gib_text(first.available)}GiB "
        f"gpu_memory_utilization={util:.2f}",
        f"# GPU blocks: {cap.blocks}",
        f"Maximum concurrency for {max_len} tokens per request: {cap.concurrency:.2f}x",
    ]
    return lines
