"""A TensorRT-LLM step on a Grace host: the host's time can outlast the GPU's.

TensorRT-LLM's fixed and per-sequence step time (``trt_step_s``, ``trt_seq_s``: scheduling, sampling, request updates,
run by the PyTorch backend's Python and PyTorch on the host) was fitted on rows whose hosts are x86 servers (no package
row runs on a Grace CPU). On a Grace host the same work takes longer: NVIDIA/TransformerEngine#2053 (2025-08-11, "High
CPU overhead on Grace systems") measured PyTorch's CPU time for one ``Linear`` forward (BF16, hidden 2048, 8,192 tokens;
backend torch) at 37.08 us on GB200, 33.17 us on GH200 and 13.48 us on an H100 DGX (Intel Xeon Platinum 8480C):
:data:`GRACE_HOST_FACTOR`, the GB200 figure (GB300 pairs its GPUs with the same Grace CPU). The host's work overlaps the
GPU's: the PyTorch executor's overlap loop launches a step's forward and sampling, then does the previous step's host
work (``_process_previous_batch``: request updates, responses, KV resources) while the GPU runs
(``PyExecutor._executor_loop_overlap``, ``tensorrt_llm/_torch/pyexecutor/py_executor.py``; the loop as NVIDIA documents
it, NVIDIA/TensorRT-LLM@081661b76c54 ``docs/source/features/overlap-scheduler.md:20-29``, on by default ``:37``, and as
release 1.4.0rc4's documentation prints it, the same loop and "Enabled by default" under its "How It Works" and "Usage",
nvidia.github.io/TensorRT-LLM/1.4.0rc4/features/overlap-scheduler.html; no release tag of the source could be read
here: the repository's snapshot exceeds what the tool library brings, and the index holds py_executor.py at untagged
commits only). So a step on a Grace host takes the longer of the step as priced
on an x86 host and the Grace host's time, :data:`GRACE_HOST_FACTOR` times the fitted host time
(:func:`planner.advisor.engine_speed.step`): where the GPU's work is long (a dense 70B model) nothing changes, where a
small MoE model runs thousands of sequences the host sets the pace. GB10 (DGX Spark) is not a Grace host: its CPU is
MediaTek's Arm cores. Not fitted: nothing in it comes from a benchmark row.
"""

from __future__ import annotations

from planner.advisor.throughput import Setup

X86_LINEAR_CPU_US = 13.48  # TransformerEngine#2053: H100 DGX (Xeon Platinum 8480C), torch Linear forward, CPU time
GRACE_LINEAR_CPU_US = 37.08  # the same on GB200
GRACE_HOST_FACTOR = GRACE_LINEAR_CPU_US / X86_LINEAR_CPU_US


def host_time_factor(setup: Setup) -> float:
    """What a TensorRT-LLM step's fitted host time is multiplied by on ``setup``'s host: :data:`GRACE_HOST_FACTOR`
    on a Grace host (TransformerEngine#2053's 37.08 / 13.48 us), else 1 (x86, as fitted, which leaves the step as
    priced). Other engines: 1 (their per-sequence times are fitted apart and no change here touches them)."""
    if setup.family == "fused" and setup.gpu.platform.grace_host:  # the catalog entry's form factor names Grace
        return GRACE_HOST_FACTOR
    return 1.0
