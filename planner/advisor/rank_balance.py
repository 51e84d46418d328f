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

Each rank also holds and reads whole the layers it runs by itself (:func:`replicated_dense_seconds`): attention at
TP 1 (``Attention.__init__``: ``tp_size = 1`` when ``mapping.enable_attention_dp``,
``tensorrt_llm/_torch/modules/attention.py``, search-index file id 55090639134), Llama 4's dense MLPs and shared
experts (``overridden_tp_size=1 if self.enable_attention_dp``, ``tensorrt_llm/_torch/models/modeling_llama.py``
``Llama4DecoderLayer.__init__`` / ``Llama4MoE.__init__``, file id 3642749976) and the LM head ("Attention DP doesn't
work with embedding parallelization", ``tensorrt_llm/_torch/modules/embedding.py``, file id 55163191102;
``enable_lm_head_tp_in_adp`` off by default); only the routed experts are split (expert parallel).
"""

from __future__ import annotations

import math

from planner.advisor.throughput import Load, Setup


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


def replicated_dense_seconds(setup: Setup, load: Load, bandwidth: float) -> float:
    """What one GPU of a TensorRT-LLM attention-DP step reads beyond the ``1 / G`` of the non-expert weights the
    tensor-parallel step charges it (module docstring): ``dense x (1 / attention_tp - 1 / G) / bandwidth``, ``dense``
    the weights every step reads whole (:attr:`Load.dense_bytes`: attention, dense MLPs and shared experts, LM head,
    norms), ``bandwidth`` the engine's effective bytes a second. 0 without attention data parallelism over several
    ranks, for another engine, or without a bandwidth.

    >>> from model_catalog import get_gpu
    >>> h200 = Setup(get_gpu("h200-sxm-141gb"), "fused", "fp8", 8, "tensor", False, attention_dp=True)
    >>> load = Load(1, 8e9, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, layers=1, allreduces=0, moe_layers=0)
    >>> round(replicated_dense_seconds(h200, load, 4.0e12) * 1e3, 3)
    1.75
    """
    if not ranks_wait(setup) or bandwidth <= 0:
        return 0.0
    return load.dense_bytes * (1 / setup.attention_tp - 1 / setup.gpus) / bandwidth
