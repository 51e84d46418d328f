"""The throwaway KV cache vLLM allocates to measure its CUDA graphs, and the start-up it stops.

Before it sizes the KV cache, vLLM's worker estimates what capturing the CUDA graphs will take
(``Worker.determine_available_memory``: ``profile_cudagraph_memory()`` whenever graphs will be captured, whether or
not the estimate is then subtracted; 0.19.1 ``v1/worker/gpu_worker.py:378-381``, 0.24.0 :446-453, 0.28.0
:527-532). To capture them it first allocates a minimal KV cache (``_init_minimal_kv_cache_for_profiling``) of
``num_gpu_blocks_override`` blocks, with the weights resident, and frees it after the capture:

- up to 0.25.1, one block per token of the largest capture size, ``max_cudagraph_capture_size``
  (0.19.1 ``v1/worker/gpu_model_runner.py:5805``, 0.24.0 :6323, 0.25.1 :6374);
- from 0.26.0, one block per sequence, ``min(max_num_seqs, max_cudagraph_capture_size)`` (vllm PR #48483, merged
  2026-07-13: "the dummy KV cache allocated 1 block *per-token*. However, we only ever need one block
  *per-sequence*"; 0.26.0 :6449-6451, 0.28.0 :6643-6645); Model Runner V2's estimate, from 0.29.0, allocates the
  same (``cudagraph_utils.profile_cudagraph_memory``; the V2 runner's estimate is a stub before, rule
  ``v2_cudagraph_estimate``);
- on ROCm only from 0.26.0 (``current_platform.is_cuda_alike()``, 0.26.0 ``gpu_worker.py:502``; 0.24.0 :449 and
  0.25.1 :479 ask ``is_cuda()``);
- not with ``--enforce-eager`` (no graphs) nor with ``--kv-cache-memory-bytes``, which skips the profiling.

A block is small for an attention model (16 tokens), but a hybrid's (attention + Mamba / Gated DeltaNet) holds a
whole state page in every layer: vLLM raises the attention block to the Mamba page size ("Setting attention block
size to 2096 tokens to ensure that attention page size is >= mamba page size"), so 256 blocks of Qwen3.8-27B are
784 MiB per layer tensor and 12 GiB in all. On a 32 GB card that is a CUDA out-of-memory error at start-up, before
any KV cache is sized, whatever ``gpu_memory_utilization`` says (public logs: vLLM 0.28.0 on an RTX 5090, "OOMs at
_init_minimal_kv_cache_for_profiling (Tried to allocate 784.00 MiB … 30.22 GiB is allocated by PyTorch against
18.48 GiB of weights)", cured by ``--max-num-seqs 4``; vLLM 0.19.2 under WSL, "Overriding num_gpu_blocks=0 with
num_gpu_blocks_override=512" then ``torch.AcceleratorError: CUDA error: out of memory`` in the same function).

Free memory there is the device total less what the worker found in use and its CUDA context
(:func:`planner.engines.vllm.failures.free_at_start`), the weights and the profile run's non-torch memory as vLLM
prints it: not the compile amount the graphics dies' budgets hold (``VllmConstants.graphics_extra``, fitted on
budgets, not an allocation vLLM names). The profile run's activations are freed by then, and the caching
allocator hands their cached blocks back before it reports an out-of-memory error.
"""

from __future__ import annotations

from planner.core.gpu import GpuSpec
from planner.engines.vllm.blocks import VllmStage
from planner.engines.vllm.graphs import GraphSet
from planner.engines.vllm.versions import VllmRules


def profiling_blocks(rules: VllmRules, max_num_seqs: int, graphs: GraphSet) -> int:
    """Blocks of the minimal KV cache the graph profiling allocates (0: no graphs, no profiling).

    >>> from planner.engines.vllm.versions import vllm_rules
    >>> graphs = GraphSet(sizes=(1, 2, 4, 512), full=4, piecewise=4, mode="FULL_AND_PIECEWISE")
    >>> profiling_blocks(vllm_rules("0.25.1"), 256, graphs), profiling_blocks(vllm_rules("0.26.0"), 256, graphs)
    (512, 256)
    """
    if not graphs.sizes:
        return 0
    largest = graphs.sizes[-1]
    return min(max_num_seqs, largest) if rules.profiling_kv_blocks == "per-sequence" else largest


def profiles_graphs(rules: VllmRules, v2: bool, gpu: GpuSpec | None) -> bool:
    """Whether this release's worker runs the graph profiling on ``gpu`` (module docstring; ``None``: an unnamed
    CUDA device), the model starting on Model Runner V2 or not (``v2``: ``VllmProfile.runs_v2``)."""
    if gpu is not None and gpu.vendor != "NVIDIA" and not rules.graph_profile_rocm:
        return False
    if v2:
        return rules.v2_cudagraph_estimate
    return rules.cudagraph_estimate_printed


def tensor_bytes(stage: VllmStage, blocks: int) -> int:
    """One layer tensor of a KV cache of ``blocks`` blocks on this rank (what one allocation asks for)."""
    return blocks * stage.page_bytes


def cache_bytes(stage: VllmStage, blocks: int) -> int:
    """The whole KV cache of ``blocks`` blocks on this rank: a tensor per layer of a group, and a draft model's."""
    return blocks * stage.block_bytes
