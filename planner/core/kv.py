"""KV cache size: per token, per layer, per sequence, per GPU.

The founding texts' formula (The Memory Math of Serving a Model; Memory Planning for LLMs):
``KV bytes per token = 2 x layers x kv_heads x head_dim x bytes``.
Architecture changes it:
- GQA/MQA: ``kv_heads`` is ``num_key_value_heads``, not the query heads.
- MLA (DeepSeek-V2/V3): one latent of ``kv_lora_rank + qk_rope_head_dim`` values per layer, no separate
  V, and not split by tensor parallelism (vLLM ``MLAAttentionSpec``; SGLang ``get_cell_size_per_token``).
- Sliding-window / chunked layers hold at most ``window`` tokens per sequence, where the engine caps them
  (:func:`every_token_cached`: an engine that keeps every token of every layer, TensorRT-LLM by default).
- Linear-attention / state-space layers hold a fixed state per sequence, whatever the context.
- Per-layer geometry (Gemma 4): full-attention layers may have their own KV heads and head_dim; shared-KV layers
  (Gemma 3n/4 E-models) and feed-forward-only blocks (Nemotron-H) cache nothing.
- DeepSeek sparse attention (V3.2, GLM-5) adds its indexer's FP8 key cache to every MLA layer, and stores an FP8
  latent as FlashMLA's sparse record (656 bytes for V3.2: FP8 latent, fp32 scales, BF16 RoPE).
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

from planner.bounds.errors import PlannerError
from planner.bounds.limits import MAX_CONTEXT
from planner.bounds.memo import BoundedMemo
from planner.core.blocks import GatedDeltaNetSpec, LayerKind, Mamba2Spec
from planner.core.kv_formats import kv_format
from planner.core.model import ModelSpec


def heads_per_rank(kv_heads: int, tensor_parallel: int) -> int:
    """KV heads one tensor-parallel rank stores of ``kv_heads``: ``max(1, kv_heads // tp)`` (vLLM
    ``ModelConfig.get_num_kv_heads``, SGLang ``get_num_kv_heads``: heads are replicated when TP exceeds them).

    >>> heads_per_rank(8, 4), heads_per_rank(4, 8)
    (2, 1)
    """
    return max(1, kv_heads // tensor_parallel)


def kv_heads_per_gpu(model: ModelSpec, tensor_parallel: int) -> int:
    """KV heads one tensor-parallel rank stores (:func:`heads_per_rank`); MLA's latent counts as one."""
    if model.mla is not None:
        return 1
    return heads_per_rank(model.resolved_kv_heads, tensor_parallel)


def kv_values_per_token_per_layer(model: ModelSpec, tensor_parallel: int = 1, kind: LayerKind = LayerKind.FULL) -> int:
    """Cached values per token in one attention layer of ``kind`` on one GPU: ``2 x kv_heads x head_dim``, or MLA's
    ``kv_lora_rank + qk_rope_head_dim`` (vLLM ``AttentionSpec.real_page_size_bytes`` / ``MLAAttentionSpec``).
    Gemma 4 full-attention layers use ``num_global_key_value_heads`` x ``global_head_dim``; under
    ``attention_k_eq_v`` V comes from the K projection but is normalised apart, so K and V are both cached."""
    if model.mla is not None:
        return model.mla.latent_dim
    kv, head_dim = model.kv_geometry(kind)
    return 2 * max(1, kv // tensor_parallel) * head_dim


def bytes_for_values(values: int, kv_dtype: str) -> int:
    """Bytes to store ``values`` cached values in ``kv_dtype``, scale blocks included (rounded up)."""
    return math.ceil(values * kv_format(kv_dtype).bits_per_value / 8)


def kv_bytes_per_token_per_layer(
    model: ModelSpec, kv_dtype: str, tensor_parallel: int = 1, kind: LayerKind = LayerKind.FULL
) -> int:
    """Bytes one token costs in one attention layer of ``kind`` on one GPU. With DeepSeek sparse attention, the
    indexer's FP8 key cache too (:attr:`planner.core.blocks.IndexerSpec.cache_bytes_per_token`), and an FP8 cache
    is the sparse kernels' own record (:attr:`planner.core.blocks.MLASpec.sparse_fp8_bytes`: 656 bytes, not 576)."""
    if model.indexer is not None and model.mla is not None:  # sparse MLA: its own FP8 record, and the indexer's
        fp8 = kv_format(kv_dtype).bits_per_value == 8 and kv_dtype.startswith("fp8")
        latent = model.mla.sparse_fp8_bytes if fp8 else bytes_for_values(model.mla.latent_dim, kv_dtype)
        return latent + model.indexer.cache_bytes_per_token
    return bytes_for_values(kv_values_per_token_per_layer(model, tensor_parallel, kind), kv_dtype)


def attention_layer_count(model: ModelSpec, kinds: tuple[LayerKind, ...] | None = None) -> int:
    """Softmax-attention layers (full, sliding, chunked), or only those of ``kinds``; shared-KV layers count (they
    attend), although they cache nothing (:func:`kv_bytes_per_token`)."""
    wanted = kinds or (LayerKind.FULL, LayerKind.SLIDING, LayerKind.CHUNKED)
    return sum(1 for kind in model.layers if kind in wanted)


# Bytes per token of a model's stage, asked by every plan (each of the advisor's assessments): kept per model (its
# hash computed once: planner.bounds.hashing), KV dtype, split and layer range. A ranking asks ~30 (dtypes x splits);
# an entry is a 5-tuple and an int (the model itself is held by kinds_in's cache too): 512 keep well under 1 MB
# besides the models.
PER_TOKEN_ENTRIES = 512
_PER_TOKEN: BoundedMemo[tuple[ModelSpec, str, int, int, int], int] = BoundedMemo(PER_TOKEN_ENTRIES)


def kv_bytes_per_token_in_layers(
    model: ModelSpec, kv_dtype: str, tensor_parallel: int = 1, layers: range | None = None
) -> int:
    """Bytes one token costs in the layers of ``layers`` (all by default) that keep a KV cache, on one GPU (kept:
    :data:`PER_TOKEN_ENTRIES`, least recently used out)."""
    span = layers if layers is not None else range(model.num_hidden_layers)
    key = (model, kv_dtype, tensor_parallel, span.start, span.stop)
    kept = _PER_TOKEN.get(key)
    if kept is None:
        kept = _PER_TOKEN.put(key, _per_token_in_layers(model, kv_dtype, tensor_parallel, span))
    return kept


def _per_token_in_layers(model: ModelSpec, kv_dtype: str, tensor_parallel: int, span: range) -> int:
    total = 0
    for kind, count in kinds_in(model, span.start, span.stop):
        if kind in (LayerKind.FULL, LayerKind.SLIDING, LayerKind.CHUNKED):
            total += count * kv_bytes_per_token_per_layer(model, kv_dtype, tensor_parallel, kind)
    return total


def kv_bytes_per_token(model: ModelSpec, kv_dtype: str, tensor_parallel: int = 1) -> int:
    """Bytes one token costs across every attention layer, ignoring window caps (the seeds' per-token figure).

    Llama-2-7B in fp16: 2 x 32 x 32 x 128 x 2 = 524,288 (The Memory Math of Serving a Model); Llama-3-8B: 131,072
    (both founding texts).
    With ``tensor_parallel`` > 1 it is the bytes on one GPU. Shared-KV layers add nothing.

    >>> llama3_8b = ModelSpec(id="llama-3-8b", num_parameters=8 * 10**9, num_hidden_layers=32,
    ...                       num_key_value_heads=8, head_dim=128)
    >>> kv_bytes_per_token(llama3_8b, "bf16"), kv_bytes_per_token(llama3_8b, "fp8")
    (131072, 65536)
    >>> kv_bytes_per_token(llama3_8b, "bf16", tensor_parallel=2)
    65536
    """
    return kv_bytes_per_token_in_layers(model, kv_dtype, tensor_parallel)


def linear_state_bytes_per_layer(model: ModelSpec, state_bits: int = 16) -> int:
    """The fixed per-sequence state of one linear-attention / state-space layer, in bytes.

    Mamba-2: conv state ``(d_conv - 1) x (d_inner + 2 x groups x d_state)`` + SSM state
    ``heads x d_head x d_state`` (vLLM ``MambaStateShapeCalculator.mamba2_state_shape``).
    Gated DeltaNet: conv state ``(kernel - 1) x (2 x key_dim + value_dim)`` + recurrent state
    ``v_heads x k_head_dim x v_head_dim`` (vLLM ``gated_delta_net_state_shape``).
    States are kept in the model dtype (vLLM ``mamba_cache_dtype="auto"``), not the KV cache dtype.
    """
    spec = model.linear_attention
    if isinstance(spec, Mamba2Spec):
        d_inner = spec.mamba_n_heads * spec.mamba_d_head
        conv = (spec.mamba_d_conv - 1) * (d_inner + 2 * spec.mamba_n_groups * spec.mamba_d_state)
        ssm = spec.mamba_n_heads * spec.mamba_d_head * spec.mamba_d_state
        return (conv + ssm) * state_bits // 8
    if isinstance(spec, GatedDeltaNetSpec):
        key_dim = spec.linear_num_key_heads * spec.linear_key_head_dim
        value_dim = spec.linear_num_value_heads * spec.linear_value_head_dim
        conv = (spec.linear_conv_kernel_dim - 1) * (2 * key_dim + value_dim)
        recurrent = spec.linear_num_value_heads * spec.linear_key_head_dim * spec.linear_value_head_dim
        return (conv + recurrent) * state_bits // 8
    return 0


def cached_tokens(model: ModelSpec, kind: LayerKind, tokens: int) -> int:
    """Tokens a layer of ``kind`` keeps for a sequence of ``tokens``: all, or at most the window."""
    if kind is LayerKind.SLIDING:
        assert model.sliding_window is not None  # validated
        return min(tokens, model.sliding_window)
    if kind is LayerKind.CHUNKED:
        assert model.attention_chunk_size is not None  # validated
        return min(tokens, model.attention_chunk_size)
    if kind in (LayerKind.LINEAR, LayerKind.NONE):
        return 0
    return tokens


def has_windows(model: ModelSpec) -> bool:
    """Whether ``model`` has a window of its own: sliding-window or chunked-attention layers (what an engine that
    keeps every token ignores, :func:`every_token_cached`, and TensorRT-LLM's attention window setting caps)."""
    return model.sliding_window is not None or model.attention_chunk_size is not None


# One lifted copy per model asked (a ranking asks one model; validation a dozen): each keeps its spec alive (~11 kB
# at most, planner.bounds.limits), so 64 stay well under 1 MB.
@lru_cache(maxsize=64)
def every_token_cached(model: ModelSpec) -> ModelSpec:
    """``model`` as an engine caches it that gives every attention layer a window of its whole maximum sequence:
    the sliding-window and chunked layers' windows lifted to :data:`planner.bounds.limits.MAX_CONTEXT`, so they
    keep (and attend to) every token as full-attention layers do; ``model`` itself when it has no window.

    TensorRT-LLM sizes and runs its KV cache by the attention window it is given at run time, not by the model's
    config: ``KvCacheConfig.max_attention_window`` (``--max_attention_window_size`` for a TensorRT engine),
    whose default is the maximum sequence length for every layer (``tensorrt_llm/_torch/pyexecutor/
    resource_manager.py`` ``KVCacheManager``: "Use max_seq_len as default max_attention_window"; the C++
    executor's ``KvCacheConfig`` leaves ``maxAttentionWindowVec`` unset). Mistral-7B-v0.1 at 22,000 tokens in
    FP16 then holds ``32 x 8 x 128 x 2 x 2 x 22,000`` = 2,883,584,000 bytes per sequence, not the 4,096-token
    window's 536,870,912."""
    if not has_windows(model):
        return model
    lifted = {
        name: MAX_CONTEXT for name in ("sliding_window", "attention_chunk_size") if getattr(model, name) is not None
    }
    return model.model_copy(update=lifted)


# Memory: one entry is ~0.4 kB and keeps its spec alive (~11 kB for the largest planner.bounds.limits allows, 1,024
# layers):
# at most ~6 MB for 512 entries; the advisor asks for ~127 stage ranges per model (PP 1 to 64).
@lru_cache(maxsize=512)
def kinds_in(model: ModelSpec, start: int, stop: int) -> tuple[tuple[LayerKind, int], ...]:
    """How many layers of each kind lie in ``range(start, stop)`` (a pipeline stage), cached per model; shared-KV
    layers count as NONE (they keep nothing)."""
    counts = Counter(model.kv_kinds[start:stop])
    return tuple((kind, counts[kind]) for kind in LayerKind if counts[kind])


def kv_bytes_per_sequence(
    model: ModelSpec, kv_dtype: str, tokens: int, tensor_parallel: int = 1, layers: range | None = None
) -> int:
    """Bytes one sequence of ``tokens`` holds on one GPU (window caps and fixed states included).

    Sums the layers in ``layers`` (a pipeline stage), all layers by default.
    """
    if tokens < 0:
        raise PlannerError(f"tokens: must be zero or more, got {tokens}")
    span = layers if layers is not None else range(model.num_hidden_layers)
    total = 0
    for kind, count in kinds_in(model, span.start, span.stop):
        if kind is LayerKind.LINEAR:
            total += count * (linear_state_bytes_per_layer(model) // tensor_parallel)  # heads split over TP
        elif kind is not LayerKind.NONE:
            per_layer = kv_bytes_per_token_per_layer(model, kv_dtype, tensor_parallel, kind)
            total += count * cached_tokens(model, kind, tokens) * per_layer
    return total
