"""The building blocks of a model's shape (:class:`planner.core.model.ModelSpec`): the kind of each decoder layer,
and the parts some architectures add — mixture of experts, multi-head latent attention, Mamba-2 and Gated
DeltaNet mixers, a sparse-attention indexer, RoPE scaling and attached modules (a vision tower, a projector).
Field names follow ``transformers`` configs; validators name the field they reject.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

from planner.bounds.limits import (
    MAX_CONTEXT,
    MAX_EXPERTS,
    MAX_HIDDEN,
    MAX_LAYERS,
    MAX_ROPE_FACTOR,
    Context,
    Experts,
    HeadDim,
    Heads,
    Parameters,
    Width,
)

# Counts of layers that may be zero (dense layers before the experts, MTP layers, shared-KV layers), experts that
# may be zero (shared experts), a rank (MLA's latent), and a layer index.
LayerCount = Annotated[int, Field(ge=0, le=MAX_LAYERS)]


ExpertCount = Annotated[int, Field(ge=0, le=MAX_EXPERTS)]


Rank = Annotated[int, Field(gt=0, le=MAX_HIDDEN)]


Period = Annotated[int, Field(gt=0, le=MAX_LAYERS)]


Name = Annotated[str, Field(max_length=512)]


class LayerKind(StrEnum):
    """How one decoder layer attends, which decides what it keeps per sequence."""

    FULL = "full"  # attends to every previous token: KV grows with the context
    SLIDING = "sliding"  # attends to the last `sliding_window` tokens: KV capped at the window
    CHUNKED = "chunked"  # attends within chunks of `attention_chunk_size` (Llama 4 local layers)
    LINEAR = "linear"  # linear attention / state-space: a fixed state per sequence, no KV
    # no token mixer, nothing cached: a feed-forward-only block (Nemotron-H "-" and "E" blocks,
    # modeling_nemotron_h.py NemotronHBlock with block_type "mlp"/"moe")
    NONE = "none"


ATTENTION_KINDS = (LayerKind.FULL, LayerKind.SLIDING, LayerKind.CHUNKED)


class MoESpec(BaseModel, frozen=True, extra="forbid"):
    """Mixture of experts: every expert is resident in memory, ``num_experts_per_tok`` run per token."""

    num_experts: Experts
    num_experts_per_tok: Experts
    moe_intermediate_size: Width
    num_shared_experts: ExpertCount = 0
    # Width of the shared expert MLP; default num_shared_experts * moe_intermediate_size (DeepSeek).
    shared_expert_intermediate_size: Width | None = None
    shared_expert_gate: bool = False  # Qwen2-MoE / Qwen3-Next: a sigmoid gate (hidden -> 1) on the shared expert
    first_k_dense_replace: LayerCount = 0  # DeepSeek: the first k layers use a dense MLP
    moe_layer_period: Period = 1  # Jamba expert_layer_period, Llama 4 interleave_moe_layer_step
    moe_layer_offset: LayerCount = 0  # Jamba expert_layer_offset
    router_bias: bool = False  # gpt-oss router has a bias
    expert_bias: bool = False  # gpt-oss experts have biases
    score_correction_bias: bool = False  # DeepSeek-V3 e_score_correction_bias (one per expert per layer)
    # Gemma 4 (modeling_gemma4.py Gemma4TextDecoderLayer with enable_moe_block): every layer runs its dense MLP *and*
    # the routed experts side by side; the router has an RMSNorm without weight, a scale (hidden) and a per_expert_scale
    # (E), and the layer three more RMSNorms (post_feedforward_layernorm_1/_2, pre_feedforward_layernorm_2).
    parallel_dense_mlp: bool = False

    @model_validator(mode="after")
    def _check(self) -> MoESpec:
        if self.num_experts_per_tok > self.num_experts:
            raise ValueError(
                f"moe.num_experts_per_tok ({self.num_experts_per_tok}) exceeds moe.num_experts ({self.num_experts})"
            )
        if self.moe_layer_offset >= self.moe_layer_period:
            raise ValueError("moe.moe_layer_offset must be smaller than moe.moe_layer_period")
        return self

    @property
    def shared_width(self) -> int:
        if self.shared_expert_intermediate_size is not None:
            return self.shared_expert_intermediate_size if self.num_shared_experts else 0
        return self.num_shared_experts * self.moe_intermediate_size


class MLASpec(BaseModel, frozen=True, extra="forbid"):
    """Multi-head latent attention (DeepSeek-V2/V3): one compressed latent per token and layer is cached."""

    kv_lora_rank: Rank
    q_lora_rank: Rank | None = None  # None: q is a plain projection (DeepSeek-V2-Lite)
    qk_nope_head_dim: HeadDim
    qk_rope_head_dim: HeadDim
    v_head_dim: HeadDim

    @property
    def latent_dim(self) -> int:
        """Values cached per token per layer: kv_lora_rank + qk_rope_head_dim (576 for DeepSeek-V3)."""
        return self.kv_lora_rank + self.qk_rope_head_dim

    @property
    def sparse_fp8_bytes(self) -> int:
        """Bytes per token and layer of the FP8 latent that sparse MLA (DeepSeek-V3.2, GLM-5: FlashMLA's sparse
        kernels) stores: the latent in FP8, an fp32 scale per 128 of its values, and the RoPE part left in BF16.
        vLLM names it ``fp8_ds_mla`` and maps ``--kv-cache-dtype fp8`` to it on these models ("fp8" is an alias
        for fp8_ds_mla; "V3.2 main MLA: 656-byte custom storage format", v1/attention/backends/mla/
        flashmla_sparse.py).

        >>> MLASpec(kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128).sparse_fp8_bytes
        656
        """
        return self.kv_lora_rank + -(-self.kv_lora_rank // 128) * 4 + 2 * self.qk_rope_head_dim


class Mamba2Spec(BaseModel, frozen=True, extra="forbid"):
    """A Mamba-2 mixer (granite-4.0-h, Nemotron-H, Bamba): config fields ``mamba_*``."""

    kind: Literal["mamba2"] = "mamba2"
    mamba_n_heads: Heads
    mamba_d_head: HeadDim
    mamba_d_state: HeadDim
    mamba_n_groups: Heads = 1
    mamba_d_conv: HeadDim = 4
    mamba_conv_bias: bool = True
    mamba_proj_bias: bool = False
    # The config's ``mamba_chunk_size`` (``chunk_size`` in Nemotron-H's): the tokens its kernels scan as one chunk.
    # None where the config does not state it; the config classes then give 256 (see planner.engines.vllm.mamba).
    mamba_chunk_size: Context | None = None


class GatedDeltaNetSpec(BaseModel, frozen=True, extra="forbid"):
    """A Gated DeltaNet linear-attention mixer (Qwen3-Next): config fields ``linear_*``."""

    kind: Literal["gated_deltanet"] = "gated_deltanet"
    linear_num_key_heads: Heads
    linear_num_value_heads: Heads
    linear_key_head_dim: HeadDim
    linear_value_head_dim: HeadDim
    linear_conv_kernel_dim: HeadDim = 4


class IndexerSpec(BaseModel, frozen=True, extra="forbid"):
    """DeepSeek sparse attention's lightning indexer (DeepSeek-V3.2, GLM-5): config ``index_*`` fields.

    Weights per layer (vLLM ``deepseek_v2.py`` ``Indexer``): ``wq_b`` q_lora_rank -> heads x head_dim, ``wk``
    hidden -> head_dim, ``k_norm`` (LayerNorm, weight and bias), ``weights_proj`` hidden -> heads. The indexer keeps
    its own key cache: head_dim FP8 values + one fp32 scale per 128 values per token and layer (132 bytes for a
    head_dim of 128: ``DeepseekV32IndexerCache(head_dim=head_dim + head_dim // 128 * 4)``), whatever the KV dtype.
    """

    index_n_heads: Heads
    index_head_dim: HeadDim
    index_topk: Context | None = None  # tokens each query attends to (compute, not memory)

    @property
    def cache_bytes_per_token(self) -> int:
        """Bytes of the indexer's key cache per token and layer: FP8 keys + an fp32 scale per 128 values."""
        return self.index_head_dim + -(-self.index_head_dim // 128) * 4


class RopeScaling(BaseModel, frozen=True, extra="forbid"):
    """A RoPE scaling whose cos/sin cache holds ``factor`` times the positions (vLLM v0.19.0
    ``LinearScalingRotaryEmbedding``, ``linear_scaling_rope.py`` line 90, and ``DynamicNTKScalingRotaryEmbedding``,
    ``dynamic_ntk_scaling_rope.py`` line 56: ``max_len = max_position_embeddings x scaling_factor``). YaRN, Llama 3
    and LongRoPE caches span ``max_position_embeddings`` as configs set them, and are not carried."""

    rope_type: Literal["linear", "dynamic"]
    factor: Annotated[float, Field(ge=1, le=MAX_ROPE_FACTOR, allow_inf_nan=False)]


class YarnExtension(BaseModel, frozen=True, extra="forbid"):
    """A YaRN RoPE extension the model's card documents and its ``config.json`` does not ship (Qwen3: "natively
    32,768, 131,072 with YaRN", ``rope_scaling`` factor 4 over an original 32,768, added by the reader): the
    planner switches it on where a context needs it (:func:`planner.core.model.for_context`). ``rope_theta`` is
    the config's, which vLLM's ``rope_parameters`` override carries beside it."""

    factor: Annotated[float, Field(gt=1, le=MAX_ROPE_FACTOR, allow_inf_nan=False)]
    original_max_position_embeddings: Context
    rope_theta: Annotated[float, Field(gt=0, allow_inf_nan=False)]

    @model_validator(mode="after")
    def _check_ceiling(self) -> YarnExtension:
        if self.ceiling > MAX_CONTEXT:  # a context the planner takes at all (planner.bounds.limits)
            raise ValueError(f"yarn: factor x original_max_position_embeddings exceeds {MAX_CONTEXT:,} tokens")
        return self

    @property
    def ceiling(self) -> int:
        """The longest context the card documents with it: factor x the original length (4 x 32,768 = 131,072)."""
        return int(self.factor * self.original_max_position_embeddings)


class AttachedModule(BaseModel, frozen=True, extra="forbid"):
    """Weights that are not the text decoder but take memory (a vision tower) or sit in the checkpoint."""

    name: Name
    parameters: Parameters
    loaded_for_serving: bool = True  # a vision tower is loaded; an MTP head is not, without speculation
    audio: bool = False  # an audio tower (with its embedder): vLLM leaves it unloaded where audio's limit is 0
    source: Annotated[str, Field(max_length=4096)]
