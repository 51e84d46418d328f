"""ModelSpec: a model's architecture as its Hugging Face ``config.json`` describes it.

Field names follow ``transformers`` configs (``hidden_size``, ``num_key_value_heads``, …) so that a config
maps onto the schema with few renames (see :mod:`planner.hf_config`). A model can also be given by its
parameter count plus the KV-relevant fields alone, as the seed texts do ("8B, 32 layers, 8 KV heads, head
dim 128"): then ``num_parameters`` is set and the dense shape fields may be left out.

Validators reject impossible shapes with a message that names the field.
"""

from __future__ import annotations

from collections import Counter
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, model_validator

from planner.precision import WeightPrecision

PositiveInt = Annotated[int, Field(gt=0)]
NonNegativeInt = Annotated[int, Field(ge=0)]


class LayerKind(StrEnum):
    """How one decoder layer attends, which decides what it keeps per sequence."""

    FULL = "full"  # attends to every previous token: KV grows with the context
    SLIDING = "sliding"  # attends to the last `sliding_window` tokens: KV capped at the window
    CHUNKED = "chunked"  # attends within chunks of `attention_chunk_size` (Llama 4 local layers)
    LINEAR = "linear"  # linear attention / state-space: a fixed state per sequence, no KV


ATTENTION_KINDS = (LayerKind.FULL, LayerKind.SLIDING, LayerKind.CHUNKED)


class MoESpec(BaseModel, frozen=True, extra="forbid"):
    """Mixture of experts: every expert is resident in memory, ``num_experts_per_tok`` run per token."""

    num_experts: PositiveInt
    num_experts_per_tok: PositiveInt
    moe_intermediate_size: PositiveInt
    num_shared_experts: NonNegativeInt = 0
    # Width of the shared expert MLP; default num_shared_experts * moe_intermediate_size (DeepSeek).
    shared_expert_intermediate_size: PositiveInt | None = None
    shared_expert_gate: bool = False  # Qwen2-MoE / Qwen3-Next: a sigmoid gate (hidden -> 1) on the shared expert
    first_k_dense_replace: NonNegativeInt = 0  # DeepSeek: the first k layers use a dense MLP
    moe_layer_period: PositiveInt = 1  # Jamba expert_layer_period, Llama 4 interleave_moe_layer_step
    moe_layer_offset: NonNegativeInt = 0  # Jamba expert_layer_offset
    router_bias: bool = False  # gpt-oss router has a bias
    expert_bias: bool = False  # gpt-oss experts have biases
    score_correction_bias: bool = False  # DeepSeek-V3 e_score_correction_bias (one per expert per layer)

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

    kv_lora_rank: PositiveInt
    q_lora_rank: PositiveInt | None = None  # None: q is a plain projection (DeepSeek-V2-Lite)
    qk_nope_head_dim: PositiveInt
    qk_rope_head_dim: PositiveInt
    v_head_dim: PositiveInt

    @property
    def latent_dim(self) -> int:
        """Values cached per token per layer: kv_lora_rank + qk_rope_head_dim (576 for DeepSeek-V3)."""
        return self.kv_lora_rank + self.qk_rope_head_dim


class Mamba2Spec(BaseModel, frozen=True, extra="forbid"):
    """A Mamba-2 mixer (granite-4.0-h, Nemotron-H, Bamba): config fields ``mamba_*``."""

    kind: Literal["mamba2"] = "mamba2"
    mamba_n_heads: PositiveInt
    mamba_d_head: PositiveInt
    mamba_d_state: PositiveInt
    mamba_n_groups: PositiveInt = 1
    mamba_d_conv: PositiveInt = 4
    mamba_conv_bias: bool = True
    mamba_proj_bias: bool = False


class GatedDeltaNetSpec(BaseModel, frozen=True, extra="forbid"):
    """A Gated DeltaNet linear-attention mixer (Qwen3-Next): config fields ``linear_*``."""

    kind: Literal["gated_deltanet"] = "gated_deltanet"
    linear_num_key_heads: PositiveInt
    linear_num_value_heads: PositiveInt
    linear_key_head_dim: PositiveInt
    linear_value_head_dim: PositiveInt
    linear_conv_kernel_dim: PositiveInt = 4


LinearSpec = Annotated[Mamba2Spec | GatedDeltaNetSpec, Field(discriminator="kind")]


class AttachedModule(BaseModel, frozen=True, extra="forbid"):
    """Weights that are not the text decoder but take memory (a vision tower) or sit in the checkpoint."""

    name: str
    parameters: PositiveInt
    loaded_for_serving: bool = True  # a vision tower is loaded; an MTP head is not, without speculation
    source: str


class ModelSpec(BaseModel, frozen=True, extra="forbid"):
    """A decoder-only language model, as far as memory is concerned."""

    id: Annotated[str, Field(min_length=1)]
    name: str | None = None
    model_type: str = "custom"
    # -- the parameter count, when the model is known only by its size (seed texts, config "num_parameters").
    num_parameters: PositiveInt | None = None
    # -- dense shape
    hidden_size: PositiveInt | None = None
    num_hidden_layers: PositiveInt
    num_attention_heads: PositiveInt | None = None
    num_key_value_heads: PositiveInt | None = None
    head_dim: PositiveInt | None = None
    intermediate_size: PositiveInt | None = None
    vocab_size: PositiveInt | None = None
    tie_word_embeddings: bool = False
    # -- details that change the parameter count
    attention_bias: bool = False  # q, k, v biases (Qwen2, phi-2, gpt-oss)
    attention_out_bias: bool = False  # o_proj bias (phi-2 dense, gpt-oss)
    attention_output_gate: bool = False  # Qwen3-Next: q_proj also produces a sigmoid output gate
    attention_sinks: bool = False  # gpt-oss: one learned sink logit per head
    qk_norm: bool = False  # Qwen3, Gemma 3: RMSNorm over head_dim on q and k
    mlp_gated: bool = True  # SwiGLU/GeGLU (gate, up, down) vs a plain 2-matrix MLP (phi-2, falcon)
    mlp_bias: bool = False
    norm_kind: Literal["rms", "layer"] = "rms"  # LayerNorm also has a bias vector
    norms_per_layer: NonNegativeInt = 2  # Gemma 2/3: 4; Falcon-7B, Command-R: 1
    lm_head_bias: bool = False  # phi-2
    # -- architecture variants
    moe: MoESpec | None = None
    mla: MLASpec | None = None
    linear_attention: LinearSpec | None = None
    layer_types: tuple[LayerKind, ...] | None = None  # one per layer; None means all full attention
    sliding_window: PositiveInt | None = None
    attention_chunk_size: PositiveInt | None = None
    num_nextn_predict_layers: NonNegativeInt = 0  # DeepSeek-V3 multi-token-prediction layers in the checkpoint
    attached_modules: tuple[AttachedModule, ...] = ()
    # -- context and dtype
    max_position_embeddings: PositiveInt = 4096
    native_dtype: WeightPrecision = "bf16"

    @model_validator(mode="before")
    @classmethod
    def _expand_layer_pattern(cls, data: Any) -> Any:
        """Accept ``layer_pattern`` (a repeating unit, e.g. 5 sliding + 1 full) in place of ``layer_types``."""
        if isinstance(data, dict) and "layer_pattern" in data:
            data = dict(data)
            pattern = list(data.pop("layer_pattern"))
            layers = data.get("num_hidden_layers")
            if not pattern:
                raise ValueError("layer_pattern must not be empty")
            if isinstance(layers, int) and layers > 0:
                data["layer_types"] = tuple(pattern[i % len(pattern)] for i in range(layers))
        return data

    @model_validator(mode="after")
    def _check_shape(self) -> ModelSpec:
        if self.num_parameters is None:
            missing = [f for f in ("hidden_size", "num_attention_heads", "vocab_size") if getattr(self, f) is None]
            if self.intermediate_size is None and (self.moe is None or self.moe.first_k_dense_replace > 0):
                missing.append("intermediate_size")
            if missing:
                raise ValueError(
                    f"{', '.join(missing)}: required to count parameters; give them, or give num_parameters"
                )
        if self.num_key_value_heads is None and self.mla is None and self.num_attention_heads is None:
            raise ValueError("num_key_value_heads: required (the KV cache size depends on it)")
        heads = self.num_attention_heads
        kv = self.num_key_value_heads
        if heads is not None and kv is not None and heads % kv != 0:
            raise ValueError(f"num_attention_heads ({heads}) must be a multiple of num_key_value_heads ({kv})")
        if heads is not None and kv is not None and kv > heads:
            raise ValueError(f"num_key_value_heads ({kv}) exceeds num_attention_heads ({heads})")
        if self.head_dim is None and self.mla is None:
            if self.hidden_size is None or heads is None:
                raise ValueError("head_dim: required when hidden_size or num_attention_heads is not given")
            if self.hidden_size % heads != 0:
                raise ValueError(
                    f"hidden_size ({self.hidden_size}) is not divisible by num_attention_heads ({heads}); "
                    "give head_dim explicitly"
                )
        if self.layer_types is not None and len(self.layer_types) != self.num_hidden_layers:
            raise ValueError(
                f"layer_types has {len(self.layer_types)} entries but num_hidden_layers is {self.num_hidden_layers}"
            )
        kinds = set(self.layer_types or ())
        if LayerKind.SLIDING in kinds and self.sliding_window is None:
            raise ValueError("sliding_window: required when a layer uses sliding-window attention")
        if LayerKind.CHUNKED in kinds and self.attention_chunk_size is None:
            raise ValueError("attention_chunk_size: required when a layer uses chunked attention")
        if LayerKind.LINEAR in kinds and self.linear_attention is None:
            raise ValueError("linear_attention: required when a layer is linear attention / state-space")
        if self.moe is not None and self.moe.first_k_dense_replace > self.num_hidden_layers:
            raise ValueError("moe.first_k_dense_replace exceeds num_hidden_layers")
        if self.mla is not None and self.num_attention_heads is None:
            raise ValueError("num_attention_heads: required for multi-head latent attention")
        return self

    # -- derived shape -------------------------------------------------------------------------------
    @property
    def display_name(self) -> str:
        return self.name or self.id.split("/")[-1]

    @property
    def resolved_head_dim(self) -> int:
        """head_dim as given, else hidden_size // num_attention_heads (Mistral-Nemo, Gemma, Qwen3 give it)."""
        if self.head_dim is not None:
            return self.head_dim
        if self.mla is not None:
            return self.mla.qk_nope_head_dim + self.mla.qk_rope_head_dim
        assert self.hidden_size is not None and self.num_attention_heads is not None  # validated
        return self.hidden_size // self.num_attention_heads

    @property
    def resolved_kv_heads(self) -> int:
        if self.num_key_value_heads is not None:
            return self.num_key_value_heads
        assert self.num_attention_heads is not None  # validated
        return self.num_attention_heads

    @property
    def layers(self) -> tuple[LayerKind, ...]:
        """The attention kind of every layer."""
        return self.layer_types or (LayerKind.FULL,) * self.num_hidden_layers

    @property
    def layer_kind_counts(self) -> dict[str, int]:
        counts = Counter(self.layers)
        return {kind.value: counts.get(kind, 0) for kind in LayerKind}

    @property
    def attention_kind(self) -> str:
        """A short label: MHA, GQA, MQA or MLA (what determines the per-token KV size)."""
        if self.mla is not None:
            return "MLA"
        kv, heads = self.resolved_kv_heads, self.num_attention_heads
        if kv == 1:
            return "MQA"
        if heads is not None and kv == heads:
            return "MHA"
        return "GQA"

    def is_moe_layer(self, index: int) -> bool:
        """Whether decoder layer ``index`` has routed experts in place of a dense MLP."""
        moe = self.moe
        if moe is None or index < moe.first_k_dense_replace:
            return False
        return index % moe.moe_layer_period == moe.moe_layer_offset
