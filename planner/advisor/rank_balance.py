"""What a TensorRT-LLM attention-DP step waits for: the busiest rank's prompts.

Under TensorRT-LLM's attention data parallelism each rank attends its own requests, and every MoE layer gathers all
ranks' tokens (:mod:`planner.advisor.collectives`), so an iteration lasts as long as its busiest rank: "the
execution time for the Attention module in any given iteration is bounded by the rank with the highest workload"
(NVIDIA/TensorRT-LLM ``docs/source/blogs/tech_blog/blog10_ADP_Balance_Strategy.md``, "Mathematical Modeling",
search-index file id 2776403035). Without the ADP balance strategy (``AttentionDpConfig.enable_balance``, default
``False`` in ``tensorrt_llm/llmapi/llm_args.py``, search-index file id 1090804222; the v1.0 perf overview's MoE
options set no ``attention_dp_config``) new requests go to the ranks round-robin as they arrive, and when fewer
prompts arrive than there are ranks "contexts are processed sequentially across ranks": one rank prefills while
the others decode and wait (the blog's "Baseline Behavior", per-iteration time ``time(ctx)``).

A serving run admits ``n = B / output`` prompts per decode step in steady state (``B`` sequences in flight, each
leaving after ``output`` tokens). Spread round-robin over ``R`` ranks the busiest holds ``ceil(n / R)`` of them, so
a step's prompts take ``ceil(n / R)`` prompts' time on one rank, ``ceil(n / R) / n`` of it per prompt
(:func:`busiest_rank_share`); below one prompt a step, each prompt holds its step alone (``n`` taken as 1). With
many prompts a step this tends to the even ``1 / R``. Only the layers each rank runs by itself wait so (attention
and the dense layers at the rank's own tensor parallelism); the routed experts meet in the gathered MoE and are
priced there (:mod:`planner.advisor.gemm_tables`). Nothing here is fitted; the steady-state count is the mean
(a step's arrivals vary, which only adds to the busiest rank).
"""

from __future__ import annotations

import math

from planner.advisor.throughput import Setup


def busiest_rank_share(prompts_per_step: float, ranks: int) -> float:
    """The share of one rank's prompt time a prompt costs the step: ``ceil(n / R) / max(n, 1)`` (module docstring).

    >>> busiest_rank_share(0.2, 8), busiest_rank_share(4.0, 8), busiest_rank_share(16.0, 8)
    (1.0, 0.25, 0.125)
    """
    return math.ceil(prompts_per_step / ranks) / max(prompts_per_step, 1.0)


def rank_wait_seconds(setup: Setup, own_seconds: float, prompts_per_step: float) -> float:
    """The time a TensorRT-LLM attention-DP step waits on its busiest rank's prompts, per prompt, beyond the even
    share the serving cycle already charges (``own / G``): ``own / attention_tp x`` :func:`busiest_rank_share`
    ``- own / G``, where ``own`` is the prompt's layers but the routed experts on one GPU holding the whole model.
    0 without attention data parallelism over several ranks, or for another engine (vLLM's and SGLang's
    data-parallel ranks are not priced so here).

    >>> from model_catalog import get_gpu
    >>> h200 = Setup(get_gpu("h200-sxm-141gb"), "fused", "fp8", 8, "tensor", False, attention_dp=True)
    >>> round(rank_wait_seconds(h200, 0.08, 0.5), 3), round(rank_wait_seconds(h200, 0.08, 16.0), 3)
    (0.07, 0.0)
    """
    if not ranks_wait(setup):
        return 0.0
    ranks = setup.gpus // setup.attention_tp
    share = busiest_rank_share(prompts_per_step, ranks)
    return own_seconds / setup.attention_tp * share - own_seconds / setup.gpus


def ranks_wait(setup: Setup) -> bool:
    """Whether a step of ``setup`` waits on its busiest rank's prompts: TensorRT-LLM's attention data parallelism
    over several ranks (:func:`rank_wait_seconds`)."""
    return setup.family == "fused" and setup.attention_dp and setup.gpus > setup.attention_tp
