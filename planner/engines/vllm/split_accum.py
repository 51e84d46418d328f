"""FlashAttention 3's split-KV accumulators in the FULL CUDA graphs' pool (Hopper).

vLLM runs FlashAttention 3 on compute capability 9.x (0.27.1 ``v1/attention/backends/fa_utils.py:163-165``; FA4 on
10.x, FA2 elsewhere, :166-171). With FULL CUDA graphs its metadata builder fixes the number of KV splits at
``flash_attn_max_num_splits_for_cuda_graph`` (32, 0.27.1 ``config/attention.py:46``) for every batch up to the
largest capture size, "so that large enough intermediate buffers are pre-allocated during capture" (0.27.1
``v1/attention/backends/flash_attn.py:390`` ``aot_schedule`` = FA3, :411-431, :500-510; 0.22.0 :372-374, :430-440),
and those buffers are "of size [num_splits, num_heads, num_tokens, head_size]" (:503-506), float32, beside the
log-sum-exp accumulator ``[num_splits, num_heads, num_tokens]``. Allocated inside a graph capture they sit in the
graphs' pool, once (each layer's call frees them for the next), at the largest FULL graph's token count.

The public 0.19 H100 capture lines ("Graph capturing finished ... took X GiB") hold it: what they print beyond
the per-graph term grows with the rank's query heads x head size (0.23-0.36 GiB at 1,024, mostly 0.35-0.55 at
4,096 (0.28-0.75 in all), 0.87 at Llama-3.3-70B's 8,192 on one H100: +0.08-0.10 GiB per 1,024 where this term
gives +0.06 at 512 tokens), while the capture lines of other cards print 0.1-0.3 GiB beyond it (docs/fidelity.md,
'The CUDA-graph capture on Hopper').
Not on MLA models (their own attention backends) nor where vLLM forces another backend: FlashInfer where it serves
the KV cache (:meth:`planner.engines.platform.VllmPlatform.attention_backend`), Triton attention for Gemma 4's
two head sizes ("Gemma4 model has heterogeneous head dimensions ... Forcing TRITON_ATTN backend").
"""

from __future__ import annotations

from planner.core.model import ModelSpec
from planner.engines.platform import VllmPlatform
from planner.engines.vllm.graphs import GraphSet

FA3_SPLITS = 32  # flash_attn_max_num_splits_for_cuda_graph (0.27.1 config/attention.py:46)
FP32 = 4


def fa3_graph_backend(model: ModelSpec, platform: VllmPlatform, kv_dtype: str) -> bool:
    """Whether a rank runs FlashAttention 3 with a fixed split count in its FULL graphs (module docstring)."""
    if platform.capability is None or platform.capability[0] != 9:
        return False
    if model.mla is not None or platform.attention_backend(kv_dtype.startswith("fp8")) != "flash_attn":
        return False
    return model.global_head_dim is None or model.global_head_dim == model.resolved_head_dim


def split_accum_bytes(model: ModelSpec, tp: int, platform: VllmPlatform, graphs: GraphSet, kv_dtype: str) -> int:
    """FA3's output and log-sum-exp accumulators at the largest FULL graph, float32: ``32 x heads per rank x tokens
    x (head size + 1) x 4`` bytes on a rank of ``tp`` (module docstring); 0 without FULL graphs or FlashAttention 3."""
    if not graphs.full_largest or not fa3_graph_backend(model, platform, kv_dtype):
        return 0
    heads = max(1, (model.num_attention_heads or 0) // tp)
    return FA3_SPLITS * heads * graphs.full_largest * (model.resolved_head_dim + 1) * FP32
