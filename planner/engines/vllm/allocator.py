"""What PyTorch's caching allocator counts for the weights beyond their bytes: the unsplit end of each segment.

"Model loading took X GiB" is ``torch.cuda.memory_allocated`` after loading less before (0.26.0
``utils/mem_utils.py:86-102`` with ``platforms/cuda.py:351-356``: ``empty_cache``, ``reset_peak_memory_stats``,
``max_memory_allocated``), and the allocator counts a block's whole size, not the bytes asked for. PyTorch's
``c10/cuda/CUDACachingAllocator.cpp`` (search-index file id 3232397; HIP builds hipify the same file) rounds every
request up to 512 bytes (``kMinBlockSize``); a request of 10 MiB or more (``kMinLargeAlloc``) with no cached block
gets a fresh segment rounded up to 2 MiB (``get_allocation_size``: ``kRoundLarge``), and the block is split, its
tail returned to the cache and no longer counted, only when the tail exceeds 1 MiB (``should_split``:
``remaining > kSmallSize`` outside the small pool and expandable segments). A weight of ``s`` bytes whose 2 MiB
round-up leaves ``r <= 1 MiB`` therefore counts ``s + r``. vLLM leaves ``expandable_segments`` off unless the user
sets it (0.26.0 ``config/vllm.py:901-933``), and the model's parameters are its first large allocations, so each
one takes such a segment; a kernel that repacks a weight after loading (Marlin) allocates the same size again and
best-fit reuses the block the previous layer freed, with the same tail.

Which tensors: one per fused projection, as vLLM builds them (``QKVParallelLinear`` q, k and v in one weight,
``MergedColumnParallelLinear`` gate and up, the Gated DeltaNet's ``in_proj_qkvz``, the Mamba-2 ``in_proj``, a MoE
layer's ``w13`` and ``w2`` over all of a rank's experts), the vocabulary-parallel embedding and lm_head (the vocabulary
padded to 64, ``vocab_parallel_embedding.py`` ``pad_vocab_size``), each rank's shard, in its storage width (16 bits,
8 for FP8 / INT8, 4 packed for the 4-bit formats). Qwen3-14B in FP8 at TP 1: qkv 7,168 x 5,120 B = 17.5 x 2 MiB,
o_proj 12.5, down_proj 42.5 x 2 MiB leave 1 MiB each, gate_up 85 x 2 MiB none: 40 x 3 MiB = 0.117 GiB, where the
GB10 log prints 0.12 GiB over the checkpoint's bytes. A BF16 model whose widths are multiples of 512 leaves none.

Not counted: tensors under 10 MiB (the 20 MiB segments that requests of 1-10 MiB share leave a tail only at the
end of each), the scales beside a quantized weight, MLA's projections, a vision tower's, Gemma 4's per-layer
embeddings, GGUF files (scope ``all``) and MXFP4 experts (their kernels pad and re-allocate them, :mod:`planner.
engines.loading`); a temporary freed during loading that a later weight reuses (the RoPE cache's fp32 copy) can
shift one tail.
"""

from __future__ import annotations

import math
from fractions import Fraction

from planner.core.blocks import ATTENTION_KINDS, GatedDeltaNetSpec, LayerKind, Mamba2Spec
from planner.core.model import ModelSpec
from planner.core.overhead import LoadContext
from planner.core.precision import weight_format
from planner.core.weights import category_bits

MIN_BLOCK = 512  # kMinBlockSize
SMALL_SIZE = 1 << 20  # kSmallSize: a larger tail is split off
MIN_LARGE_ALLOC = 10 << 20  # kMinLargeAlloc: from here a request gets its own segment
ROUND_LARGE = 2 << 20  # kRoundLarge
VOCAB_PADDING = 64  # DEFAULT_VOCAB_PADDING_SIZE


def counted_bytes(nbytes: int) -> int:
    """Bytes ``torch.cuda.memory_allocated`` counts for one fresh allocation of ``nbytes`` (module docstring).

    >>> counted_bytes(7168 * 5120), counted_bytes(5120 * 5120 * 2), counted_bytes(4096 * 3)
    (37748736, 52428800, 12288)
    """
    size = max(MIN_BLOCK, math.ceil(nbytes / MIN_BLOCK) * MIN_BLOCK)
    if size < MIN_LARGE_ALLOC:
        return size
    segment = math.ceil(size / ROUND_LARGE) * ROUND_LARGE
    return segment if segment - size <= SMALL_SIZE else size


def storage_bits(bits: Fraction) -> int:
    """Bits one weight takes in its tensor, scales aside: 32, 16, 8, or 4 (packed)."""
    return next((width for width in (32, 16, 8) if bits >= width), 4)


def _mixer_shapes(model: ModelSpec, kind: LayerKind, tp: int) -> list[tuple[int, int]]:
    """(rows, columns) of a decoder layer's mixer weights on one rank: attention's fused qkv and o_proj
    (``max(1, kv // tp)`` KV heads a rank when TP exceeds them), the Gated DeltaNet's ``in_proj_qkvz`` and
    ``out_proj``, Mamba-2's ``in_proj`` and ``out_proj``; none for MLA."""
    h = model.hidden_size or 0
    spec = model.linear_attention
    if kind in ATTENTION_KINDS:
        if model.mla is not None or model.num_attention_heads is None:
            return []
        kv, head_dim = model.kv_geometry(kind)
        kv_rank = max(1, kv // tp) if tp >= kv else kv // tp
        q = model.num_attention_heads * head_dim * (2 if model.attention_output_gate else 1)
        return [(q // tp + 2 * kv_rank * head_dim, h), (h, model.num_attention_heads * head_dim // tp)]
    if isinstance(spec, GatedDeltaNetSpec):
        key_dim = spec.linear_num_key_heads * spec.linear_key_head_dim
        value_dim = spec.linear_num_value_heads * spec.linear_value_head_dim
        return [((2 * key_dim + 2 * value_dim) // tp, h), (h, value_dim // tp)]
    if isinstance(spec, Mamba2Spec) and kind is not LayerKind.NONE:
        d_inner = spec.mamba_n_heads * spec.mamba_d_head
        in_out = 2 * d_inner + 2 * spec.mamba_n_groups * spec.mamba_d_state + spec.mamba_n_heads
        return [(in_out // tp, h), (h, d_inner // tp)]
    return []


def _mlp_shapes(model: ModelSpec, width: int, split: int) -> list[tuple[int, int]]:
    """(rows, columns) of a dense MLP of ``width`` split over ``split`` ranks: gate_up (or up) and down."""
    h = model.hidden_size or 0
    return [((2 if model.mlp_gated else 1) * width // split, h), (h, width // split)]


def layer_tensor_bytes(ctx: LoadContext, index: int) -> list[int]:
    """Bytes of each large weight tensor decoder layer ``index`` holds on one rank (module docstring)."""
    model, tp = ctx.model, ctx.tensor_parallel
    fmt = weight_format(ctx.weights_format)
    bits = category_bits(fmt, model.moe is not None)
    kind = model.layers[index]
    sized = [(rows * cols, bits["attention"]) for rows, cols in _mixer_shapes(model, kind, tp)]
    dense_bits = bits["dense_mlp"]
    if fmt.tail_layers and fmt.tail_bits is not None and index >= model.num_hidden_layers - fmt.tail_layers:
        dense_bits = Fraction(fmt.tail_bits)
    moe = model.moe
    if model.has_ffn(index) and moe is not None and model.is_moe_layer(index):
        if ctx.weights_format != "mxfp4":  # padded and re-allocated by the MoE kernels
            gpus = ctx.expert_gpus or tp
            for rows, cols in _mlp_shapes(model, moe.moe_intermediate_size, 1):
                sized.append((moe.num_experts * rows * cols // gpus, bits["experts"]))
        if moe.shared_width:
            sized += [(r * c, dense_bits) for r, c in _mlp_shapes(model, moe.shared_width, tp)]
        if moe.parallel_dense_mlp and model.intermediate_size:
            sized += [(r * c, dense_bits) for r, c in _mlp_shapes(model, model.intermediate_size, tp)]
    elif model.has_ffn(index) and model.intermediate_size:
        width = model.intermediate_size
        if model.double_wide_mlp_on_shared_kv and model.is_kv_shared_layer(index):
            width *= 2
        sized += [(r * c, dense_bits) for r, c in _mlp_shapes(model, width, tp)]
    return [elements * storage_bits(b) // 8 for elements, b in sized]


def vocab_tensor_bytes(ctx: LoadContext) -> list[int]:
    """Bytes of the embedding (first stage) and lm_head (last stage, when not tied) on one rank."""
    model = ctx.model
    if model.vocab_size is None or model.hidden_size is None:
        return []
    bits = category_bits(weight_format(ctx.weights_format), model.moe is not None)
    rows = math.ceil(model.vocab_size / VOCAB_PADDING) * VOCAB_PADDING // ctx.tensor_parallel
    found = []
    if ctx.is_first_stage:
        found.append(rows * model.hidden_size * storage_bits(bits["embedding"]) // 8)
    if ctx.is_last_stage and not model.tie_word_embeddings:
        found.append(rows * model.hidden_size * storage_bits(bits["lm_head"]) // 8)
    return found


def allocator_tail_bytes(ctx: LoadContext) -> int:
    """Bytes the caching allocator counts beyond the large weight tensors of one GPU (module docstring): 0 for a
    GGUF file, a model known by its size alone, or a device outside CUDA and ROCm."""
    model = ctx.model
    if weight_format(ctx.weights_format).scope == "all" or model.hidden_size is None:
        return 0
    if ctx.platform is not None and ctx.platform.runtime == "other":
        return 0
    tensors = vocab_tensor_bytes(ctx)
    for index in range(*ctx.layers):
        tensors += layer_tensor_bytes(ctx, index)
    return sum(counted_bytes(t) - t for t in tensors)
