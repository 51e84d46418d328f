"""The weight matmuls of one forward pass by shape, for the engines whose GEMM times are read from measured tables
(:mod:`planner.advisor.gemm_tables`): no constants, only the model's widths.

Per layer: the fused QKV projection (column parallel: its output ``n`` splits over tensor-parallel GPUs), the
attention output projection (row parallel: its input ``k`` splits), then either the gated MLP's fused gate-and-up
(column) and down (row) projections, or the routed experts as one fused MoE (a shape of its own: hidden, expert
width, top-k, experts) plus any shared expert as a gated MLP of its width; then the lm_head (column, ``n`` the
vocabulary). Models of other kinds (MLA, linear attention, Nemotron-H blocks, plain two-matrix MLPs, per-layer
widths) have no shapes here and keep the rate model.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal, NamedTuple

from planner.core.blocks import ATTENTION_KINDS
from planner.core.model import ModelSpec

Parallel = Literal["column", "row"]


class Matmul(NamedTuple):
    """``repeats`` weight matmuls of ``n`` outputs and ``k`` inputs, and the dimension tensor parallelism splits."""

    n: int
    k: int
    repeats: int  # how many of them one forward pass runs (layers)
    parallel: Parallel


class MoeShape(NamedTuple):
    hidden: int
    width: int  # moe_intermediate_size: one expert's MLP width
    top_k: int
    experts: int


class Matmuls(NamedTuple):
    """A forward pass's weight matmuls: the dense ones of every layer, the routed experts, the lm_head."""

    dense: tuple[Matmul, ...]
    moe: MoeShape | None
    moe_layers: int
    head: Matmul


def _mlp(hidden: int, width: int, count: int) -> tuple[Matmul, ...]:
    return (Matmul(2 * width, hidden, count, "column"), Matmul(hidden, width, count, "row"))


def _plain(model: ModelSpec) -> bool:
    """Whether every layer is softmax attention with a gated MLP or MoE of one width (what the shapes cover)."""
    return (
        model.mla is None
        and model.linear_attention is None
        and not model.mixer_blocks_without_mlp
        and model.mlp_gated
        and all(kind in ATTENTION_KINDS for kind in model.layers)
        and model.global_head_dim is None
        and not model.double_wide_mlp_on_shared_kv
        and not model.hidden_size_per_layer_input
        and bool(model.hidden_size and model.num_attention_heads and model.num_key_value_heads and model.vocab_size)
    )


def moe_shape(model: ModelSpec) -> MoeShape | None:
    """The routed experts' shape of ``model`` (any attention kind; ``None`` for a dense model or one without a
    hidden size)."""
    moe = model.moe
    if moe is None or not model.hidden_size:
        return None
    return MoeShape(model.hidden_size, moe.moe_intermediate_size, moe.num_experts_per_tok, moe.num_experts)


@lru_cache(maxsize=256)
def matmul_shapes(model: ModelSpec) -> Matmuls | None:
    """The weight matmuls of ``model`` (``None``: a kind the shapes do not cover, see the module docstring)."""
    if not _plain(model):
        return None
    hidden, head_dim, layers = model.hidden_size or 0, model.resolved_head_dim, model.num_hidden_layers
    q = (model.num_attention_heads or 0) * head_dim
    kv = (model.num_key_value_heads or 0) * head_dim
    dense = [Matmul(q + 2 * kv, hidden, layers, "column"), Matmul(hidden, q, layers, "row")]
    moe = model.moe
    moe_layers = 0 if moe is None else sum(1 for i in range(layers) if model.is_moe_layer(i))
    if layers - moe_layers:
        if not model.intermediate_size:
            return None
        dense += _mlp(hidden, model.intermediate_size, layers - moe_layers)
    shape = None
    if moe is not None and moe_layers:
        shape = moe_shape(model)
        if moe.num_shared_experts:
            width = (moe.shared_expert_intermediate_size or moe.moe_intermediate_size) * moe.num_shared_experts
            dense += _mlp(hidden, width, moe_layers)
    head = Matmul(model.vocab_size or 0, hidden, 1, "column")
    return Matmuls(tuple(dense), shape, moe_layers, head)
