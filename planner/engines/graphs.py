"""Where an engine replays its forward passes from CUDA graphs, per engine and release (read from the engines'
sources), and what a pass run outside them (eagerly) measured in public: the facts
:mod:`planner.advisor.eager_steps` prices a burst's eager steps with.

SGLang replays a graph only for a decode batch (``ForwardMode.is_cuda_graph``: DECODE, TARGET_VERIFY, IDLE; sglang
0.4.3.post2 ``srt/model_executor/forward_batch_info.py:99-104``) of at most ``cuda_graph_max_bs`` requests
(``srt/model_executor/cuda_graph_runner.py:259-274``, ``can_run``; ``srt/model_executor/model_runner.py:785-791``);
a prefill (extend) batch, and a decode batch larger than that, runs eagerly (``model_runner.py:793-796``).
"""

from __future__ import annotations

from typing import NamedTuple


class GraphLimit(NamedTuple):
    """An engine's default largest decode batch replayed from a graph: ``large`` on a GPU of ``small_gpu_mb`` MiB
    or more; below it ``small_wide`` at ``wide_tp`` GPUs and more, else ``small``."""

    small_gpu_mb: int
    large: int
    small_wide: int
    wide_tp: int
    small: int


GRAPH_LIMITS: dict[tuple[str, str], GraphLimit] = {
    # sglang 0.4.3.post2 srt/server_args.py:215-223 (gpu_mem: nvidia-smi's memory.total, MiB, utils.py:893). The
    # releases between are not read.
    ("sglang", "0.4.3"): GraphLimit(small_gpu_mb=25_000, large=160, small_wide=80, wide_tp=4, small=8),
}

# DeepSeek-V3 (FP8) over 8 x H200 under SGLang v0.4.3.post2, TP 8: DataCrunch's bench_one_batch at batch 1, 256
# prompt and 32 output tokens (datacrunch-research/blogs@58dc410c deepseek/sglang_optimizations/optimizations_part2.md,
# 'Kernel Execution Optimizations'; read 2026-12-07): 7.322 s in all with --disable-cuda-graph, 1.256 s with CUDA
# graphs; the prefill (never graphed) 0.21180 and 0.25809 s. bench_one_batch runs output_len - 1 decode steps after
# the prefill: 31 steps of 229.4 ms eager against 32.2 ms replayed, the same batch and work.
DEEPSEEK_V3_H200X8_SGLANG_043_S = (7.322 - 0.21180) / 31 - (1.256 - 0.25809) / 31

# (engine, release, model, GPU, GPUs of the replica) -> seconds an eager forward pass adds to the replayed one. It is
# the host's time to launch the pass's kernels, which depends on the model's layers and kernels and on the release:
# no rule from one set-up to another was found, so a set-up not measured is not priced.
EAGER_FORWARD_S: dict[tuple[str, str, str, str, int], float] = {
    ("sglang", "0.4.3", "deepseek-ai/DeepSeek-V3", "h200-sxm-141gb", 8): DEEPSEEK_V3_H200X8_SGLANG_043_S,
}


def graph_max_batch(engine: str, release: str | None, gpu_memory_mb: int, tp: int) -> int | None:
    """``engine``'s default largest decode batch replayed from a CUDA graph at ``release`` on a GPU of
    ``gpu_memory_mb`` MiB at ``tp`` GPUs (:data:`GRAPH_LIMITS`, with its sources); ``None`` for a release not read."""
    limit = GRAPH_LIMITS.get((engine, release or ""))
    if limit is None:
        return None
    if gpu_memory_mb >= limit.small_gpu_mb:
        return limit.large
    return limit.small_wide if tp >= limit.wide_tp else limit.small


def eager_forward_seconds(engine: str, release: str | None, model_id: str, gpu_id: str, gpus: int) -> float | None:
    """What an eager forward pass adds to a replayed one for the set-up (:data:`EAGER_FORWARD_S`, with its source);
    ``None`` where it is not measured."""
    return EAGER_FORWARD_S.get((engine, release or "", model_id, gpu_id, gpus))
