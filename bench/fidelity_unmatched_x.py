"""The twenty-fourth blind set's misses (tests/fidelity/cases/vllm-blind-2026-12w.json, found 2026-12-07), with the
term read from the source's own figures against the planner's and what would settle it: merged into
:data:`bench.fidelity_unmatched.UNMATCHED`. One set-up: nvidia/Qwen3.6-35B-A3B-NVFP4 with MTP 3 on a DGX Spark under
vLLM 0.26.0, whose log prints a negative CUDA-graph estimate (vllm issue #44740)."""

from __future__ import annotations

# The engine's own negative CUDA-graph estimate, which it subtracts from the KV budget (vllm issue #44740)
NEGATIVE_GRAPH_ESTIMATE = (
    "KV -22.83 GiB, tokens -24.3 %: the boot prints 'Estimated CUDA graph memory: -20.50 GiB total' and vLLM "
    "subtracts that estimate from the KV budget (0.26.0 v1/worker/gpu_worker.py:518-523, applied when "
    "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS is on, and :541-545), so a negative estimate adds 20.50 GiB to the "
    "pool; the planner estimates +0.15 GiB (five "
    "piecewise and three full graphs up to 32; the log captured seven piecewise ones, FlashInfer forcing PIECEWISE "
    "under spec-decode) and the capture itself took 0.73 GiB. With the engine's -20.50 in place of the planner's "
    "+0.15 the plan is 88.42 GiB against the printed 90.6 (-2.18), outside the unified-memory band the planner "
    "names (12 of 14 public DGX Spark start-ups within 1.4 GiB of its 6.41 GiB read-ahead share here). "
    "The negative estimate is an engine defect "
    "(issue #44740, open: 'severe KV cache over-allocation and OOM'); no rule of the source's gives its size, so it "
    "is not planned; the comment's own 'Actual usage' split would place the -2.18"
)

TWENTY_FOURTH: dict[str, str] = {
    "vllm-0.26-gb10-qwen36-35b-a3b-nvfp4-mtp3-bf16kv-262k-util080-negative-graph-estimate-44740": (
        NEGATIVE_GRAPH_ESTIMATE
    ),
}
