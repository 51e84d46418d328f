"""Where an engine replays its forward passes from CUDA graphs, per engine and release (read from the engines'
sources), and what a pass run outside them (eagerly) measured in public: the facts
:mod:`planner.advisor.eager_steps` prices a burst's eager steps with.

SGLang replays a graph only for a decode batch (``ForwardMode.is_cuda_graph``: DECODE, TARGET_VERIFY, IDLE; sglang
0.4.3.post2 ``srt/model_executor/forward_batch_info.py:99-104``) of at most ``cuda_graph_max_bs`` requests
(``srt/model_executor/cuda_graph_runner.py:259-274``, ``can_run``; ``srt/model_executor/model_runner.py:785-791``);
a prefill (extend) batch, and a decode batch larger than that, runs eagerly (``model_runner.py:793-796``).
sglang 0.5.6 keeps the rule (``forward_batch_info.py:150-155``, ``cuda_graph_runner.py:359-380``,
``model_runner.py:2673-2680``).
"""

from __future__ import annotations

from typing import NamedTuple


class GraphTier(NamedTuple):
    """A release's default largest decode batch replayed from a graph on a GPU under ``below_mb`` MiB (``None``: any
    larger GPU): ``narrow`` under ``wide_tp`` GPUs, ``wide`` at ``wide_tp`` and more."""

    below_mb: int | None
    narrow: int
    wide: int


WIDE_TP = 4  # both releases read widen the limit at TP 4 and up

GRAPH_LIMITS: dict[tuple[str, str], tuple[GraphTier, ...]] = {
    # sglang 0.4.3.post2 srt/server_args.py:215-223 (gpu_mem: nvidia-smi's memory.total, MiB, utils.py:893): 160 at
    # 25,000 MiB and more; below it 80 at TP 4 and up, else 8.
    ("sglang", "0.4.3"): (GraphTier(25_000, 8, 80), GraphTier(None, 160, 160)),
    # sglang 0.5.6 srt/server_args.py:725-800 (_handle_gpu_memory_settings; gpu_mem: nvidia-smi's memory.total, MiB,
    # utils/common.py:1610-1628, 1729-1731): 8 under 20 GiB (:726-732), 24 / 80 under 35 (:743-755), 32 / 160 under
    # 60 (:756-765), 256 / 512 under 90 and under 160 (:776-795), 512 above (:796-802). The NPU tiers are not CUDA's.
    ("sglang", "0.5.6"): (
        GraphTier(20 * 1024, 8, 8),
        GraphTier(35 * 1024, 24, 80),
        GraphTier(60 * 1024, 32, 160),
        GraphTier(160 * 1024, 256, 512),
        GraphTier(None, 512, 512),
    ),
}

# DeepSeek-V3 (FP8) over 8 x H200 under SGLang v0.4.3.post2, TP 8: DataCrunch's bench_one_batch at batch 1, 256
# prompt and 32 output tokens (datacrunch-research/blogs@58dc410c deepseek/sglang_optimizations/optimizations_part2.md,
# 'Kernel Execution Optimizations'; read 2026-12-07): 7.322 s in all with --disable-cuda-graph, 1.256 s with CUDA
# graphs; the prefill (never graphed) 0.21180 and 0.25809 s. bench_one_batch runs output_len - 1 decode steps after
# the prefill: 31 steps of 229.4 ms eager against 32.2 ms replayed, the same batch and work.
DEEPSEEK_V3_H200X8_SGLANG_043_S = (7.322 - 0.21180) / 31 - (1.256 - 0.25809) / 31

# Qwen3-Next-80B-A3B (BF16) over 8 x B200 under SGLang 0.5.6, TP 8: the sgl-cookbook's one-user runs of the same
# server command, release, GPUs and harness (sgl-project/sgl-cookbook@7b5bd9c05e3d docs/autoregressive/Qwen/
# Qwen3-Next.md and docs/autoregressive/OpenAI/GPT-OSS.md, 5.1.1: sglang.bench_serving, 100 ShareGPT prompts,
# --max-concurrency 1; read 2026-12-08). A first token there is the server's per-request work (HTTP, tokenization,
# scheduling, the streamed token) plus one prefill pass, which SGLang never replays from a graph (ForwardMode.EXTEND
# is not is_cuda_graph, 0.5.6 srt/model_executor/forward_batch_info.py:150-155; piecewise graphs off by default,
# server_args.py:508). Qwen3-Next's mean first token 127.88 ms (338 prompt tokens a request), gpt-oss-120b's 33.71 ms
# (332): the hybrid's prefill pass takes 94.17 ms more. gpt-oss's whole first token is taken as per-request work and
# a prefill the speed model already prices (its 100-user burst on the same page is within 14 % with no eager time),
# so this is the least the hybrid's pass adds; the modelled prompt times differ by under 1 ms. The same release runs
# Qwen3-Next without the overlap scheduler while the radix cache is on (server_args.py:1237-1243), its host work
# serial with the GPU's: inside this figure, not priced apart.
QWEN3_NEXT_B200X8_SGLANG_056_S = 0.12788 - 0.03371

# (engine, release, model, GPU, GPUs of the replica) -> seconds an eager forward pass adds to the replayed one. It is
# the host's time to launch the pass's kernels, which depends on the model's layers and kernels and on the release:
# no rule from one set-up to another was found, so a set-up not measured is not priced.
EAGER_FORWARD_S: dict[tuple[str, str, str, str, int], float] = {
    ("sglang", "0.4.3", "deepseek-ai/DeepSeek-V3", "h200-sxm-141gb", 8): DEEPSEEK_V3_H200X8_SGLANG_043_S,
    ("sglang", "0.5.6", "Qwen/Qwen3-Next-80B-A3B-Instruct", "b200-sxm", 8): QWEN3_NEXT_B200X8_SGLANG_056_S,
}


def graph_max_batch(engine: str, release: str | None, gpu_memory_mb: int, tp: int) -> int | None:
    """``engine``'s default largest decode batch replayed from a CUDA graph at ``release`` on a GPU of
    ``gpu_memory_mb`` MiB at ``tp`` GPUs: the first of the release's tiers the GPU is under (:data:`GRAPH_LIMITS`,
    with its sources); ``None`` for a release not read."""
    tiers = GRAPH_LIMITS.get((engine, release or ""))
    if tiers is None:
        return None
    tier = next(t for t in tiers if t.below_mb is None or gpu_memory_mb < t.below_mb)
    return tier.wide if tp >= WIDE_TP else tier.narrow


def eager_forward_seconds(engine: str, release: str | None, model_id: str, gpu_id: str, gpus: int) -> float | None:
    """What an eager forward pass adds to a replayed one for the set-up (:data:`EAGER_FORWARD_S`, with its source);
    ``None`` where it is not measured."""
    return EAGER_FORWARD_S.get((engine, release or "", model_id, gpu_id, gpus))
