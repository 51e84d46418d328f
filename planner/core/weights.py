"""Weight memory: parameters x bits per parameter, per category, per GPU.

``weight bytes = parameters x bytes per parameter`` (The Memory Math of Serving a Model; Memory Planning for LLMs:
"8B x 2 bytes (FP16) = 16 GB").
A quantization format stores its quantized categories at its bits per weight (scales and zero points
included) and keeps the rest in 16 bits (:mod:`planner.core.precision`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from planner.core.blocks import ATTENTION_KINDS
from planner.core.format_spec import WeightFormat
from planner.core.model import ModelSpec
from planner.core.params import ParameterBreakdown, layer_breakdowns, parameter_breakdown
from planner.core.precision import weight_format


def category_bits(fmt: WeightFormat, has_experts: bool) -> dict[str, Fraction]:
    """Bits per parameter of each :class:`ParameterBreakdown` category under ``fmt`` (exact rationals, so that
    sums in any order give the same byte count)."""
    q, u = Fraction(fmt.bits_per_weight), Fraction(fmt.unquantized_bits)
    if fmt.scope == "none":
        return dict.fromkeys(("embedding", "lm_head", "attention", "dense_mlp", "experts", "small", "attached"), q)
    if fmt.scope == "all":
        return {
            "embedding": q,
            "lm_head": q,
            "attention": q,
            "dense_mlp": q,
            "experts": q,
            "small": q,
            "attached": u,
        }
    if fmt.scope == "mlp":  # feed-forward quantized; attention (and lm_head) kept or in their own format
        return {
            "embedding": u,
            "lm_head": Fraction(fmt.lm_head_bits) if fmt.lm_head_bits is not None else u,
            "attention": Fraction(fmt.attention_bits) if fmt.attention_bits is not None else u,
            "dense_mlp": q,
            "experts": q,
            "small": u,
            "attached": u,
        }
    experts_only = fmt.scope == "experts" and has_experts
    rest = Fraction(fmt.non_expert_bits) if fmt.non_expert_bits is not None else u
    linear = rest if experts_only else q
    return {
        "embedding": Fraction(fmt.embedding_bits) if fmt.embedding_bits is not None else u,
        "lm_head": Fraction(fmt.lm_head_bits) if fmt.lm_head_bits is not None else u,
        "attention": linear,
        "dense_mlp": linear,
        "experts": q,
        "small": u,
        "attached": u,
    }


# An entry is a breakdown of ~10 ints and a string: 1,024 of them stay under 1 MB.
@lru_cache(maxsize=1024)
def weights_bytes(params: ParameterBreakdown, precision: str) -> int:
    """Bytes of every served parameter (one full copy of the model) in ``precision``.

    Memory Planning for LLMs: 8e9 parameters in FP16 = 16.0 GB; in 4-bit = 4.0 GB; 70e9 in 8-bit = 70.0 GB.
    """
    return math.ceil(_total_bits(params, precision) / 8)


def _total_bits(params: ParameterBreakdown, precision: str) -> Fraction:
    bits = category_bits(weight_format(precision), params.experts > 0)
    return (
        params.embedding * bits["embedding"]
        + params.lm_head * bits["lm_head"]
        + params.attention * bits["attention"]
        + params.dense_mlp * bits["dense_mlp"]
        + params.experts * bits["experts"]
        + params.small * bits["small"]
        + params.attached_loaded * bits["attached"]
    )


def tail_bits(fmt: WeightFormat, layers: list[ParameterBreakdown], stage: range) -> Fraction:
    """Bits a format's tail (:attr:`WeightFormat.tail_layers`: the dense MLPs of the last decoder layers at
    ``tail_bits``) adds over its MLP bits in the layers ``stage`` of ``layers``; 0 without one."""
    if not fmt.tail_layers or fmt.tail_bits is None:
        return Fraction(0)
    start = len(layers) - fmt.tail_layers
    dense = sum(layers[i].dense_mlp for i in stage if i >= start)
    return dense * (Fraction(fmt.tail_bits) - Fraction(fmt.bits_per_weight))


def model_weights_bytes(model: ModelSpec, precision: str) -> int:
    """:func:`weights_bytes` of ``model`` with the format's tail (:func:`tail_bits`) in its last layers; a model
    known by its size alone has no layers to hold one."""
    params = parameter_breakdown(model)
    fmt = weight_format(precision)
    if not fmt.tail_layers or model.hidden_size is None or model.vocab_size is None:
        return weights_bytes(params, precision)
    layers = layer_breakdowns(model)
    return math.ceil((_total_bits(params, precision) + tail_bits(fmt, layers, range(len(layers)))) / 8)


class Spread(NamedTuple):
    """Categories of :class:`ParameterBreakdown` split over more GPUs than a replica's tensor-parallel ranks: a
    mixture-of-experts model's routed experts over every data-parallel rank of a stage (vLLM's ``FusedMoE`` flattens
    TP across DP; data-parallel attention in SGLang and TensorRT-LLM), :meth:`planner.core.overhead.
    OverheadModelBase.spread_over_replicas`."""

    gpus: int  # the GPUs of one pipeline stage the categories are split over (TP x data-parallel ranks)
    categories: frozenset[str]  # "experts", "dense_mlp", "lm_head"


def stage_weights_bytes_per_gpu(
    model: ModelSpec,
    layers: list[ParameterBreakdown],
    whole: ParameterBreakdown,
    precision: str,
    tensor_parallel: int,
    stage: range,
    first: bool,
    last: bool,
    spread: Spread | None = None,
) -> int:
    """Weight bytes on one GPU of a pipeline stage holding decoder layers ``stage``.

    Tensor parallelism shards attention, MLP, experts and the vocabulary-parallel embedding and lm_head
    (vLLM ``VocabParallelEmbedding`` / ``ParallelLMHead``) over ``tp``; norms, routers and MLA's
    down-projections stay whole on every rank (``ReplicatedLinear``); when TP exceeds the KV heads each rank
    keeps a whole KV head, so its k/v projections are replicated (vLLM ``QKVParallelLinear``).
    The first stage holds the embedding and attached modules (vision tower), the last the lm_head and
    final norm; the format's tail (:func:`tail_bits`) is in the last layers. ``spread``: the categories split
    over all of the stage's data-parallel GPUs instead of ``tp``
    (DeepSeek-V3 in FP8 at TP 1 on eight data-parallel ranks: the routed experts an eighth a GPU, the rest whole).
    """
    fmt = weight_format(precision)
    bits = category_bits(fmt, whole.experts > 0)
    tp = tensor_parallel
    wide = spread.categories if spread is not None else frozenset()
    over = Fraction(tp, spread.gpus) if spread is not None else Fraction(1)  # a spread category's share of 1/tp
    attention = replicated_attention = dense = experts = small = replicated_small = 0
    for index in stage:
        layer = layers[index]
        rep_small = min(layer.small, layer.replicated_under_tp)
        attention += layer.attention
        replicated_attention += layer.replicated_under_tp - rep_small
        dense += layer.dense_mlp
        experts += layer.experts
        small += layer.small
        replicated_small += rep_small
    sharded_bits = (
        (attention - replicated_attention) * bits["attention"]
        + dense * bits["dense_mlp"] * (over if "dense_mlp" in wide else 1)
        + experts * bits["experts"] * (over if "experts" in wide else 1)
        + (small - replicated_small) * bits["small"]
        + tail_bits(fmt, layers, stage) * (over if "dense_mlp" in wide else 1)
    )
    replicated_bits = replicated_attention * bits["attention"] + replicated_small * bits["small"]
    if first:
        sharded_bits += whole.embedding * bits["embedding"] + whole.attached_loaded * bits["attached"]
    if last:
        sharded_bits += whole.lm_head * bits["lm_head"] * (over if "lm_head" in wide else 1)
        block_small = sum(layer.small for layer in layers)
        replicated_bits += (whole.small - block_small) * bits["small"]  # final norm, lm_head bias
    replicated_bits += kv_replication_extra(model, tp) * attention_layers(model, stage) * bits["attention"]
    return math.ceil((sharded_bits / tp + replicated_bits) / 8)


def attention_layers(model: ModelSpec, stage: range) -> int:
    """The layers of ``stage`` that project K and V (:data:`ATTENTION_KINDS`): a hybrid's linear-attention,
    state-space and feed-forward-only layers have no KV heads to replicate. Qwen3-Next's ``full_attention`` layers
    build ``Qwen3NextAttention`` on a ``QKVParallelLinear``, its ``linear_attention`` layers a Gated DeltaNet of
    their own heads (vLLM 0.24.0 ``model_executor/models/qwen3_next.py:398-410``, :246-250; the replicas
    ``model_executor/layers/linear.py:970``)."""
    kinds = model.layers
    return sum(1 for index in stage if kinds[index] in ATTENTION_KINDS)


def kv_replication_extra(model: ModelSpec, tensor_parallel: int) -> Fraction:
    """Extra k/v projection parameters per attention layer (:func:`attention_layers`) on one rank when TP exceeds
    the KV heads.

    Each rank holds ``max(1, kv // tp)`` whole heads where an even split would give ``kv / tp``:
    ``2 x hidden x head_dim x (heads held - kv / tp)``.
    """
    if model.mla is not None or model.hidden_size is None:
        return Fraction(0)
    kv = model.resolved_kv_heads
    held = max(1, kv // tensor_parallel)
    return 2 * model.hidden_size * model.resolved_head_dim * (held - Fraction(kv, tensor_parallel))
