"""Parameters of one decoder layer, split into the categories a weight format treats differently.

Formulas follow the ``transformers`` modeling files of each family (``modeling_llama.py``,
``modeling_qwen3_moe.py``, ``modeling_deepseek_v3.py``, ``modeling_gpt_oss.py``, ``modeling_qwen3_next.py``,
``modeling_granitemoehybrid.py``, …). A layer's count depends only on its signature (its kind, whether it shares
KV, has a feed-forward, has experts), so a model's layers are counted once per distinct signature
(:mod:`planner.core.params` sums them).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from planner.bounds.hashing import HashedOnce
from planner.core.blocks import ATTENTION_KINDS, GatedDeltaNetSpec, LayerKind, Mamba2Spec
from planner.core.model import ModelSpec

Count = Annotated[int, Field(ge=0)]


class ParameterBreakdown(HashedOnce, frozen=True, extra="forbid"):
    """Parameters by category. ``total`` is what the checkpoint holds; ``active`` what one token uses."""

    embedding: Count = 0  # input token embedding (vocab x hidden)
    lm_head: Count = 0  # output projection, 0 when tied to the embedding
    attention: Count = 0  # q/k/v/o or MLA projections, and linear-attention / SSM mixers
    dense_mlp: Count = 0  # dense MLP layers and MoE shared experts
    experts: Count = 0  # routed experts, all of them (all are resident)
    experts_active: Count = 0  # routed experts one token runs through
    small: Count = 0  # norms, biases, routers, sinks, SSM scalars: kept in 16 bits by every quant format
    replicated_under_tp: Count = 0  # the part of `attention`+`small` every tensor-parallel rank holds whole
    attached_loaded: Count = 0  # vision tower and other modules the server loads (kept in 16 bits)
    attached_not_loaded: Count = 0  # e.g. DeepSeek's MTP layer: in the checkpoint, not loaded by default

    @property
    def total(self) -> int:
        """Every parameter in the checkpoint (what the Hub's safetensors total counts)."""
        return self.served + self.attached_not_loaded

    @property
    def served(self) -> int:
        """Parameters a server loads: the checkpoint minus modules it skips (MTP without speculation)."""
        return (
            self.embedding
            + self.lm_head
            + self.attention
            + self.dense_mlp
            + self.experts
            + self.small
            + self.attached_loaded
        )

    @property
    def active(self) -> int:
        """Parameters one token passes through: all but the routed experts it is not sent to.

        Counts the input embedding and the lm_head, as Mixtral's "12.9B active" does; vendors that quote
        active parameters without the input embedding (gpt-oss, DeepSeek-V2-Lite) differ by vocab x hidden.
        """
        return self.served - self.attached_loaded - self.experts + self.experts_active

    @property
    def decoder(self) -> int:
        """The decoder blocks alone: what pipeline stages split and tensor parallelism shards."""
        return self.attention + self.dense_mlp + self.experts + self.small


def norm_params(model: ModelSpec, width: int) -> int:
    """One norm over ``width`` features: RMSNorm has a weight, LayerNorm a weight and a bias."""
    return width * (2 if model.norm_kind == "layer" else 1)


def attention_layer_params(
    model: ModelSpec, kind: LayerKind = LayerKind.FULL, kv_shared: bool = False
) -> tuple[int, int, int]:
    """(projection weights, small parameters, of which replicated under TP) of one softmax-attention layer.

    GQA/MQA/MHA: q = hidden x heads·d, k = v = hidden x kv·d, o = heads·d x hidden (LlamaAttention), plus
    biases, q/k RMSNorm over d (Qwen3Attention, Gemma3Attention), the output gate doubling q (Qwen3-Next)
    and per-head sinks (GptOssAttention). MLA (DeepseekV3Attention): q_a (hidden x q_lora) + q_a_layernorm
    + q_b (q_lora x heads·(nope+rope)), or a plain q_proj; kv_a_proj_with_mqa (hidden x kv_lora+rope),
    kv_a_layernorm, kv_b (kv_lora x heads·(nope+v)), o (heads·v x hidden).
    Per-layer geometry (Gemma4TextAttention): ``kind`` FULL uses global_head_dim / num_global_key_value_heads,
    without v_proj under attention_k_eq_v; a ``kv_shared`` layer has only q_proj, q_norm and o_proj.
    """
    h = model.hidden_size or 0
    heads = model.num_attention_heads or 0
    if model.mla is not None:
        m = model.mla
        qk = m.qk_nope_head_dim + m.qk_rope_head_dim
        if m.q_lora_rank is not None:
            q_a, q_b = h * m.q_lora_rank, m.q_lora_rank * heads * qk
            q_norm = norm_params(model, m.q_lora_rank)
        else:
            q_a, q_b, q_norm = 0, h * heads * qk, 0
        kv_a = h * (m.kv_lora_rank + m.qk_rope_head_dim)
        kv_b = m.kv_lora_rank * heads * (m.qk_nope_head_dim + m.v_head_dim)
        o = heads * m.v_head_dim * h
        small = q_norm + norm_params(model, m.kv_lora_rank)
        weights = q_a + q_b + kv_a + kv_b + o
        if model.indexer is not None:  # DSA lightning indexer: wq_b, wk, weights_proj + k_norm (LayerNorm)
            ix = model.indexer
            weights += (m.q_lora_rank or h) * ix.index_n_heads * ix.index_head_dim
            weights += h * ix.index_head_dim + h * ix.index_n_heads
            small += 2 * ix.index_head_dim
        # vLLM: q_a_proj and kv_a_proj_with_mqa are ReplicatedLinear (deepseek_v2.py), as are the norms.
        return weights, small, q_a + kv_a + small
    kv, d = model.kv_geometry(kind)
    no_v = model.attention_k_eq_v and kind is LayerKind.FULL
    q_out = heads * d * (2 if model.attention_output_gate else 1)
    kv_out = 0 if kv_shared else kv * d * (1 if no_v else 2)
    weights = h * q_out + h * kv_out + heads * d * h
    small = 0
    if model.attention_bias:
        small += q_out + kv_out
    if model.attention_out_bias:
        small += h
    if model.qk_norm:
        small += d if kv_shared else 2 * d
    if model.qk_norm_over_heads:  # MiniMaxM2Attention: q_norm over heads·d, k_norm over kv·d
        small += heads * d + kv * d
    if model.attention_sinks:
        small += heads
    return weights, small, small


def shared_kv_checkpoint_params(model: ModelSpec) -> int:
    """Weights of the shared-KV layers' k/v projections and k_norm that the checkpoint still stores although no
    layer uses them (Gemma 4 E-models: ``Gemma4TextModel._keys_to_ignore_on_load_unexpected``)."""
    if not (model.kv_shared_weights_in_checkpoint and model.num_kv_shared_layers):
        return 0
    h = model.hidden_size or 0
    total = 0
    for index in range(model.first_kv_shared_layer, model.num_hidden_layers):
        kind = model.layers[index]
        kv, d = model.kv_geometry(kind)
        no_v = model.attention_k_eq_v and kind is LayerKind.FULL
        total += h * kv * d * (1 if no_v else 2) + (d if model.qk_norm else 0)
    return total


def linear_attention_layer_params(model: ModelSpec) -> tuple[int, int]:
    """(projection weights, small parameters) of one linear-attention / state-space mixer.

    Mamba-2 (GraniteMoeHybridMambaLayer / Mamba2Mixer): in_proj hidden -> 2·d_inner + 2·groups·d_state +
    heads, depthwise conv1d over d_inner + 2·groups·d_state channels (kernel d_conv, optional bias),
    dt_bias, A_log and D (one per head), a gated RMSNorm over d_inner, out_proj d_inner -> hidden.
    Gated DeltaNet (Qwen3NextGatedDeltaNet): in_proj_qkvz hidden -> 2·key_dim + 2·value_dim, in_proj_ba
    hidden -> 2·v_heads, conv1d over 2·key_dim + value_dim channels (no bias), dt_bias and A_log per value
    head, a gated RMSNorm over head_v_dim, out_proj value_dim -> hidden.
    """
    spec = model.linear_attention
    h = model.hidden_size or 0
    if isinstance(spec, Mamba2Spec):
        d_inner = spec.mamba_n_heads * spec.mamba_d_head
        conv_dim = d_inner + 2 * spec.mamba_n_groups * spec.mamba_d_state
        in_out = d_inner + conv_dim + spec.mamba_n_heads
        weights = h * in_out + d_inner * h + conv_dim * spec.mamba_d_conv
        small = 3 * spec.mamba_n_heads + d_inner
        if spec.mamba_conv_bias:
            small += conv_dim
        if spec.mamba_proj_bias:
            small += in_out + h
        return weights, small
    if isinstance(spec, GatedDeltaNetSpec):
        key_dim = spec.linear_num_key_heads * spec.linear_key_head_dim
        value_dim = spec.linear_num_value_heads * spec.linear_value_head_dim
        conv_dim = 2 * key_dim + value_dim
        weights = (
            h * (2 * key_dim + 2 * value_dim)
            + h * 2 * spec.linear_num_value_heads
            + conv_dim * spec.linear_conv_kernel_dim
            + value_dim * h
        )
        small = 2 * spec.linear_num_value_heads + spec.linear_value_head_dim
        return weights, small
    return 0, 0


def dense_mlp_params(model: ModelSpec, width: int) -> tuple[int, int]:
    """(weights, biases) of one dense MLP of intermediate ``width``: 3·h·w gated (SwiGLU), 2·h·w plain."""
    h = model.hidden_size or 0
    if model.mlp_gated:
        return 3 * h * width, (2 * width + h) if model.mlp_bias else 0
    return 2 * h * width, (width + h) if model.mlp_bias else 0


def moe_layer_params(model: ModelSpec) -> tuple[int, int, int, int]:
    """(routed experts, active routed experts, shared expert weights, small) of one MoE layer.

    Routed experts: E x 3·h·w (MixtralSparseMoeBlock, Qwen3MoeSparseMoeBlock, DeepseekV3MoE), with
    gpt-oss's per-expert biases (2·w + h). Router: h x E (+ E bias in gpt-oss), DeepSeek-V3's
    e_score_correction_bias (E), the shared expert (3·h·w_shared) and its sigmoid gate (h x 1).
    """
    moe = model.moe
    assert moe is not None
    h = model.hidden_size or 0
    w = moe.moe_intermediate_size
    # Experts follow the model's MLP form: gated (3 matrices) or plain up/down (Nemotron-H relu2, 2 matrices).
    per_expert = (3 if model.mlp_gated else 2) * h * w + ((2 * w + h) if moe.expert_bias else 0)
    experts = moe.num_experts * per_expert
    active = moe.num_experts_per_tok * per_expert
    shared, shared_bias = dense_mlp_params(model, moe.shared_width) if moe.shared_width else (0, 0)
    small = h * moe.num_experts + shared_bias
    if moe.router_bias:
        small += moe.num_experts
    if moe.score_correction_bias:
        small += moe.num_experts
    if moe.shared_expert_gate:
        shared += h
    if moe.parallel_dense_mlp:  # Gemma4TextRouter scale (h) and per_expert_scale (E); three more RMSNorms
        small += h + moe.num_experts + 3 * norm_params(model, h)
    return experts, active, shared, small


LayerSignature = tuple[LayerKind, bool, bool, bool]  # (kind, shares KV, has a feed-forward, has experts)


def layer_signature(model: ModelSpec, index: int) -> LayerSignature:
    """What decides the parameters of decoder layer ``index``: layers with equal signatures have equal counts."""
    return model.layers[index], model.is_kv_shared_layer(index), model.has_ffn(index), model.is_moe_layer(index)


def decoder_layer_params(model: ModelSpec, index: int) -> ParameterBreakdown:
    """The parameters of decoder layer ``index`` (mixer + MLP or MoE + its norms)."""
    return signature_params(model, layer_signature(model, index))


def signature_params(model: ModelSpec, signature: LayerSignature) -> ParameterBreakdown:
    kind, kv_shared, has_ffn, is_moe = signature
    h = model.hidden_size or 0
    if kind in ATTENTION_KINDS:
        attention, small, replicated = attention_layer_params(model, kind, kv_shared)
    elif kind is LayerKind.NONE:  # a feed-forward-only block (Nemotron-H)
        attention = small = replicated = 0
    else:
        attention, small = linear_attention_layer_params(model)
        replicated = small
    norms = model.norms_per_layer * norm_params(model, h)
    if model.layer_scalar:
        norms += 1
    small += norms
    replicated += norms
    experts = experts_active = dense = 0
    width = model.intermediate_size
    if width and model.double_wide_mlp_on_shared_kv and kv_shared:
        width *= 2  # Gemma4TextMLP: use_double_wide_mlp on shared-KV layers
    if not has_ffn:
        pass
    elif is_moe:
        experts, experts_active, dense, moe_small = moe_layer_params(model)
        small += moe_small
        replicated += moe_small  # the router and its biases are ReplicatedLinear in vLLM
        if model.moe is not None and model.moe.parallel_dense_mlp and width:
            mlp, bias = dense_mlp_params(model, width)
            dense += mlp
            small += bias
    elif width:
        dense, bias = dense_mlp_params(model, width)
        small += bias
    if model.hidden_size_per_layer_input:  # Gemma 4 PLE: per_layer_input_gate, per_layer_projection, its norm
        dense += 2 * h * model.hidden_size_per_layer_input
        small += norm_params(model, h)
        replicated += norm_params(model, h)
    return ParameterBreakdown(
        attention=attention,
        dense_mlp=dense,
        experts=experts,
        experts_active=experts_active,
        small=small,
        replicated_under_tp=replicated,
    )
