"""Projection slots vLLM allocates for Gemma 4 beyond the tensors the checkpoint's layers use.

vLLM builds every Gemma 4 attention layer's k and v projections as one ``QKVParallelLinear`` over the layer's KV
heads (``model_executor/models/gemma4.py``: 0.19.1 :298-307, 0.26.0 :407-418, 0.30.0 :434-444), whatever the
checkpoint stores, and "Model loading took" counts the allocation (torch's allocated bytes after loading less
before, 0.26.0 ``utils/mem_utils.py:86-102`` with ``platforms/cuda.py:351-356``):

- ``attention_k_eq_v`` (26B-A4B, 31B): the global layers store no ``v_proj`` (V is K's projection), yet the fused
  projection keeps a V slot, which the loader fills with K's weights ("k_eq_v layers load K weights into both K and
  V slots", the same lines); the planner's parameters, like the checkpoint, have none
  (:func:`planner.core.layer_params.attention_layer_params`).
- shared-KV layers (E-models: the last ``num_kv_shared_layers``), which attend with an earlier layer's K/V: up to
  0.29.0 they are built like the others, with k/v projections and ``k_norm`` that take the checkpoint's stored
  unused copies; from 0.30.0 only ``q_proj`` (0.30.0 gemma4.py:423-431, ``is_kv_shared_layer``), as the planner
  counts them (:func:`planner.core.layer_params.shared_kv_checkpoint_params`).

A slot is split over tensor-parallel ranks like the KV heads: ``max(1, kv // tp)`` heads a rank
(``QKVParallelLinear``), at the bits of the format's attention projections (a ``v_norm`` has no weight).
"""

from __future__ import annotations

import math
from fractions import Fraction

from planner.core.blocks import LayerKind
from planner.core.model import ModelSpec
from planner.core.params import parameter_breakdown
from planner.core.precision import weight_format
from planner.core.weights import category_bits


def _kv_heads_per_rank(model: ModelSpec, kind: LayerKind, tensor_parallel: int) -> Fraction:
    kv, _ = model.kv_geometry(kind)
    return Fraction(max(1, kv // tensor_parallel)) if tensor_parallel >= kv else Fraction(kv, tensor_parallel)


def gemma4_slot_bytes(
    model: ModelSpec, weights: str, tensor_parallel: int, layers: range, shared_kv_built: bool
) -> int:
    """Bytes one rank holds in the slots of the module docstring for decoder layers ``layers``: a V slot of
    ``kv heads x global_head_dim x hidden`` in each k_eq_v global layer, and where ``shared_kv_built`` (vLLM up to
    0.29.0) the k and v projections (and ``k_norm``, 16-bit) of each shared-KV layer. Zero for other models.

    Gemma 4 31B in BF16 at TP 1: 10 global layers x 4 x 512 x 5,376 x 2 B = 0.205 GiB. Gemma 4 E4B in BF16 up to
    0.29.0: 15 sliding x 2 x 2 x 256 x 2,560 + 3 global x 2 x 2 x 512 x 2,560 weights x 2 B, plus 18 k_norms
    (256 or 512) x 2 B = 0.103 GiB.
    """
    if not model.model_type.startswith("gemma4") or model.hidden_size is None:
        return 0
    params = parameter_breakdown(model)
    attention = category_bits(weight_format(weights), params.experts > 0)["attention"]
    h, bits = model.hidden_size, Fraction(0)
    for index in layers:
        kind = model.layers[index]
        _, head_dim = model.kv_geometry(kind)
        per_rank = _kv_heads_per_rank(model, kind, tensor_parallel) * head_dim * h
        if model.is_kv_shared_layer(index):
            if shared_kv_built:
                bits += 2 * per_rank * attention + (16 * head_dim if model.qk_norm else 0)
        elif model.attention_k_eq_v and kind is LayerKind.FULL:
            bits += per_rank * attention
    return math.ceil(bits / 8)
