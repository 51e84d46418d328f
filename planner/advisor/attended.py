"""The (query, key) pairs a prompt's attention layers score: each layer's attended span, not the tokens it caches.

A causal layer's token at position ``p`` attends the ``p`` tokens up to it; a sliding-window layer's at most its
window; a chunked layer's only those of its own ``attention_chunk_size`` chunk (Llama 4's RoPE layers, three in
four; its NoPE layers attend globally). Summed over a prompt of ``n`` tokens after ``depth`` cached ones this is
:func:`causal_pairs` at ``depth + n`` less at ``depth`` (a full layer: ``n^2 / 2 + n x depth``, the mean over the
prompt the speed model has always used).

What a layer caches and what it attends can differ: TensorRT-LLM keeps every token of Llama 4's chunked layers (its
KV window defaults to ``max_seq_len``, :func:`planner.core.kv.every_token_cached`) but still attends within chunks,
since the chunk is a separate argument of its attention op, not the window (TensorRT-LLM
``tensorrt_llm/_torch/models/modeling_llama.py`` ``Llama4DecoderLayer.__init__``: ``attention_chunk_size =
getattr(config, "attention_chunk_size", None) if not nope_layer else None``, passed to ``Llama4Attention`` and on
to the ``TrtllmAttentionWrapper``; other backends drop it and limit the sequence to 8k). vLLM does the same with
its ``ChunkedLocalAttention`` layer (vLLM 0.22.0 ``model_executor/models/llama4.py:255``: ``use_chunked_local_attn
= not self.nope and config.attention_chunk_size``). A sliding window, by contrast, *is* TensorRT-LLM's attention
window, so lifted it is attended whole (:func:`attended_model`).
"""

from __future__ import annotations

from planner.core.blocks import LayerKind
from planner.core.model import ModelSpec


def causal_pairs(model: ModelSpec, kind: LayerKind, tokens: int) -> float:
    """The (query, key) pairs one layer of ``kind`` scores over a sequence's first ``tokens`` positions: ``t^2 / 2``
    for full attention; a window ``W`` caps each token's span (``W^2 / 2 + W (t - W)`` past it); a chunk ``C``
    restarts it (``floor(t / C) x C^2 / 2 + (t mod C)^2 / 2``); 0 for a layer with no softmax attention."""
    if kind is LayerKind.SLIDING:
        assert model.sliding_window is not None  # validated
        w = model.sliding_window
        return tokens * tokens / 2 if tokens <= w else w * w / 2 + w * (tokens - w)
    if kind is LayerKind.CHUNKED:
        assert model.attention_chunk_size is not None  # validated
        c = model.attention_chunk_size
        return (tokens // c) * c * c / 2 + (tokens % c) ** 2 / 2
    if kind in (LayerKind.LINEAR, LayerKind.NONE):
        return 0.0
    return tokens * tokens / 2


def attended_model(cached: ModelSpec, model: ModelSpec) -> ModelSpec:
    """``cached`` (the model as an engine caches it, :meth:`planner.core.overhead.OverheadModelBase.kv_model`) with
    ``model``'s own attention chunk: a chunked layer attends within its chunk whatever the engine keeps (module
    docstring: TensorRT-LLM and vLLM both pass ``attention_chunk_size`` to the attention op)."""
    if cached.attention_chunk_size == model.attention_chunk_size:
        return cached
    return cached.model_copy(update={"attention_chunk_size": model.attention_chunk_size})


def prompt_pairs(model: ModelSpec, depth: int, tokens: int) -> float:
    """The pairs every attention layer scores for a prompt of ``tokens`` after ``depth`` cached ones, summed over
    layers: :func:`causal_pairs` at ``depth + tokens`` less at ``depth``."""
    return sum(causal_pairs(model, kind, depth + tokens) - causal_pairs(model, kind, depth) for kind in model.layers)
