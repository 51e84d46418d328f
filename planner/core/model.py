"""ModelSpec: a model's architecture as its Hugging Face ``config.json`` describes it.

Field names follow ``transformers`` configs (``hidden_size``, ``num_key_value_heads``, …) so that a config
maps onto the schema with few renames (see :mod:`planner.sources.config`). A model can also be given by its
parameter count plus the KV-relevant fields alone, as the founding texts do ("8B, 32 layers, 8 KV heads, head
dim 128"): then ``num_parameters`` is set and the dense shape fields may be left out.

Validators reject impossible shapes with a message that names the field.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from planner.bounds.hashing import HashedOnce
from planner.bounds.limits import (
    MAX_HIDDEN,
    MAX_LAYERS,
    Context,
    HeadDim,
    Heads,
    Hidden,
    Layers,
    Parameters,
    Vocab,
    Width,
)
from planner.core.blocks import (
    AttachedModule,
    GatedDeltaNetSpec,
    IndexerSpec,
    LayerCount,
    LayerKind,
    Mamba2Spec,
    MLASpec,
    MoESpec,
    Name,
    RopeScaling,
    YarnExtension,
)
from planner.core.precision import WeightPrecision

LinearSpec = Annotated[Mamba2Spec | GatedDeltaNetSpec, Field(discriminator="kind")]


class ModelSpec(HashedOnce, frozen=True, extra="forbid"):
    """A decoder-only language model, as far as memory is concerned."""

    id: Annotated[str, Field(min_length=1, max_length=512)]
    name: Name | None = None
    model_type: Annotated[str, Field(max_length=64)] = "custom"
    # -- the parameter count, when the model is known only by its size (the founding texts, config "num_parameters").
    num_parameters: Parameters | None = None
    # -- dense shape (every count bounded by planner.bounds.limits: the largest real model, with a wide margin)
    hidden_size: Hidden | None = None
    num_hidden_layers: Layers
    num_attention_heads: Heads | None = None
    num_key_value_heads: Heads | None = None
    head_dim: HeadDim | None = None
    intermediate_size: Width | None = None
    vocab_size: Vocab | None = None
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
    norms_per_layer: Annotated[int, Field(ge=0, le=16)] = 2  # Gemma 2/3: 4; Falcon-7B, Command-R: 1
    lm_head_bias: bool = False  # phi-2
    # -- architecture variants
    moe: MoESpec | None = None
    mla: MLASpec | None = None
    linear_attention: LinearSpec | None = None
    # one per layer; None means all full attention
    layer_types: Annotated[tuple[LayerKind, ...], Field(max_length=MAX_LAYERS)] | None = None
    sliding_window: Context | None = None
    attention_chunk_size: Context | None = None
    num_nextn_predict_layers: LayerCount = 0  # DeepSeek-V3 multi-token-prediction layers in the checkpoint
    # Qwen3.5 / GLM-4.6 MTP modules use the main embedding and lm_head (vLLM qwen3_next_mtp.py,
    # glm4_moe_mtp.py): the checkpoint holds no copies of them, unlike DeepSeek-V3's and GLM-4.5's.
    mtp_shares_embeddings: bool = False
    indexer: IndexerSpec | None = None  # DeepSeek sparse attention (V3.2, GLM-5)
    # -- per-layer attention geometry (Gemma 4, modeling_gemma4.py Gemma4TextAttention): full-attention layers use
    # global_head_dim and num_global_key_value_heads; with attention_k_eq_v they have no v_proj (V is the K
    # projection, normalised separately), the cache still holds K and V.
    global_head_dim: HeadDim | None = None
    num_global_key_value_heads: Heads | None = None
    attention_k_eq_v: bool = False
    # The last num_kv_shared_layers layers attend with the K/V of the last earlier layer of their type and cache
    # nothing (Gemma 3n / Gemma 4 E-models); their k/v projections are not built, though the checkpoint may still
    # store them (kv_shared_weights_in_checkpoint: attached, not loaded).
    num_kv_shared_layers: LayerCount = 0
    kv_shared_weights_in_checkpoint: bool = False
    # Image and video tokens attend to each other both ways (a prefix LM over multimodal items): Gemma 4 26B-A4B and
    # 31B, ``use_bidirectional_attention: "vision"``; an engine then keeps each item whole in one step
    mm_prefix_lm: bool = False
    double_wide_mlp_on_shared_kv: bool = False  # Gemma 4 use_double_wide_mlp: 2 x intermediate on shared-KV layers
    # Per-layer embeddings (Gemma 3n/4 PLE): embed_tokens_per_layer (vocab_per_layer x layers*p), a projection
    # hidden -> layers*p with its norm, and per layer a gate hidden -> p, a projection p -> hidden and a norm.
    hidden_size_per_layer_input: Annotated[int, Field(ge=0, le=MAX_HIDDEN)] = 0
    vocab_size_per_layer_input: Vocab | None = None
    layer_scalar: bool = False  # Gemma 4: one learned scalar per decoder layer (layer_scalar)
    # MiniMax-M2 (qk_norm_type "per_layer"): q_norm over heads x head_dim and k_norm over kv x head_dim
    qk_norm_over_heads: bool = False
    # Nemotron-H: a block holds a token mixer (Mamba-2 or attention) *or* a feed-forward (NONE layers), never both
    mixer_blocks_without_mlp: bool = False
    attached_modules: Annotated[tuple[AttachedModule, ...], Field(max_length=16)] = ()
    # Its attached towers take audio too (config.json audio_config: Gemma 4 E2B / E4B): an engine serves audio clips
    # beside images and videos unless told otherwise (vLLM --limit-mm-per-prompt names every modality)
    audio_input: bool = False
    mistral_native_files: bool = False  # the repo ships params.json + consolidated*.safetensors (engines.vllm.towers)
    # -- context and dtype
    # Attention applies rotary position embeddings (vLLM keeps their cos/sin cache per GPU); False for NoPE, ALiBi
    # or learned positions (Nemotron-H, Granite-4.0-H position_embedding_type "nope", Falcon with alibi).
    rope: bool = True
    # The share of head_dim rotated (vLLM get_rope: rotary_dim = int(head_dim x partial_rotary_factor)): phi-2 0.4,
    # GLM-4 / GLM-4.5 0.5, Qwen3-Next / Qwen3.5 0.25, MiniMax-M2 rotary_dim 64 of 128.
    partial_rotary_factor: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] = 1.0
    # A linear or dynamic RoPE scaling of the full-attention layers (all layers unless sliding_rope): Gemma 3 linear x8.
    rope_scaling: RopeScaling | None = None
    # Multimodal RoPE sections (rope mrope_section: Qwen2-VL ... Qwen3-VL, Qwen3.5): vLLM caches 4x the positions.
    mrope: bool = False
    # Sliding-window layers use their own unscaled RoPE (Gemma 3 rope_local_base_freq, Gemma 4 per layer type):
    # a second cos/sin cache beside the full-attention layers'.
    sliding_rope: bool = False
    max_position_embeddings: Context = 4096
    # A YaRN extension the card documents and the config does not ship, and whether this plan switches it on (a
    # context above max_position_embeddings: for_context): engines then serve up to its ceiling.
    yarn: YarnExtension | None = None
    yarn_on: bool = False
    native_dtype: WeightPrecision = "bf16"

    @model_validator(mode="before")
    @classmethod
    def _expand_layer_pattern(cls, data: Any) -> Any:
        """Accept ``layer_pattern`` (a repeating unit, e.g. 5 sliding + 1 full) in place of ``layer_types``.

        The pattern and the layer count are checked before anything is expanded: a pattern is a list of at most
        :data:`~planner.bounds.limits.MAX_LAYERS` kinds, and a layer count beyond that is left for the field's own bound
        to refuse by name (nothing is built from it)."""
        if isinstance(data, dict) and "layer_pattern" in data:
            data = dict(data)
            pattern = data.pop("layer_pattern")
            if not isinstance(pattern, list | tuple):
                raise ValueError(f"layer_pattern: a list of layer kinds, got {type(pattern).__name__}")
            if not pattern:
                raise ValueError("layer_pattern must not be empty")
            if len(pattern) > MAX_LAYERS:
                raise ValueError(f"layer_pattern has {len(pattern):,} entries; at most {MAX_LAYERS:,}")
            layers = data.get("num_hidden_layers")
            if isinstance(layers, int) and not isinstance(layers, bool) and 0 < layers <= MAX_LAYERS:
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
        if self.num_kv_shared_layers >= self.num_hidden_layers and self.num_kv_shared_layers:
            raise ValueError("num_kv_shared_layers must leave at least one layer with its own KV cache")
        if self.indexer is not None and self.mla is None:
            raise ValueError("indexer: DeepSeek sparse attention needs multi-head latent attention (mla)")
        if self.hidden_size_per_layer_input and self.vocab_size_per_layer_input is None:
            raise ValueError("vocab_size_per_layer_input: required with hidden_size_per_layer_input")
        if self.yarn_on and self.yarn is None:
            raise ValueError("yarn_on: the model documents no YaRN extension (yarn)")
        if self.yarn is not None and self.yarn.ceiling <= self.max_position_embeddings:
            raise ValueError("yarn: its ceiling (factor x original_max_position_embeddings) must exceed the maximum")
        global_kv = self.num_global_key_value_heads
        if global_kv is not None and heads is not None and heads % global_kv != 0:
            raise ValueError(
                f"num_attention_heads ({heads}) must be a multiple of num_global_key_value_heads ({global_kv})"
            )
        return self

    # -- context -------------------------------------------------------------------------------------
    @property
    def context_limit(self) -> int:
        """The positions an engine serves this model with: the YaRN ceiling where it is switched on, else the
        config's ``max_position_embeddings``."""
        return self.yarn.ceiling if self.yarn_on and self.yarn is not None else self.max_position_embeddings

    @property
    def longest_context(self) -> int:
        """The longest context the model can be planned at: its documented YaRN ceiling, else its maximum."""
        return max(self.max_position_embeddings, self.yarn.ceiling if self.yarn is not None else 0)

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
        """The attention kind of every layer (the same tuple on every call: per-layer lookups are O(1))."""
        return self.layer_types or _all_full(self.num_hidden_layers)

    @property
    def first_kv_shared_layer(self) -> int:
        """Index of the first layer that reuses an earlier layer's KV (num_hidden_layers when none does)."""
        return self.num_hidden_layers - self.num_kv_shared_layers

    def is_kv_shared_layer(self, index: int) -> bool:
        """Whether layer ``index`` attends with an earlier layer's K/V and so caches nothing of its own."""
        return self.num_kv_shared_layers > 0 and index >= self.first_kv_shared_layer

    @property
    def kv_kinds(self) -> tuple[LayerKind, ...]:
        """What each layer keeps per sequence: its kind, or NONE for a shared-KV layer (Gemma 3n/4)."""
        if not self.num_kv_shared_layers:
            return self.layers
        return _without_shared(self.layers, self.first_kv_shared_layer)

    def kv_geometry(self, kind: LayerKind = LayerKind.FULL) -> tuple[int, int]:
        """(KV heads, head_dim) of a softmax-attention layer of ``kind``: full-attention layers may use
        ``num_global_key_value_heads`` / ``global_head_dim`` (Gemma 4), the others the model's."""
        if kind is LayerKind.FULL:
            heads = self.num_global_key_value_heads or self.resolved_kv_heads
            return heads, self.global_head_dim or self.resolved_head_dim
        return self.resolved_kv_heads, self.resolved_head_dim

    @property
    def layer_kind_counts(self) -> dict[str, int]:
        """Layers of each kind; ``none`` (feed-forward-only blocks) appears only when the model has some."""
        counts = Counter(self.layers)
        return {kind.value: counts.get(kind, 0) for kind in LayerKind if kind is not LayerKind.NONE or counts[kind]}

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

    def has_ffn(self, index: int) -> bool:
        """Whether decoder layer ``index`` has a feed-forward (MLP or MoE): always, except Nemotron-H's mixer
        blocks."""
        return not self.mixer_blocks_without_mlp or self.layers[index] is LayerKind.NONE

    def is_moe_layer(self, index: int) -> bool:
        """Whether decoder layer ``index`` has routed experts in place of a dense MLP."""
        moe = self.moe
        if moe is None or index < moe.first_k_dense_replace:
            return False
        if self.mixer_blocks_without_mlp:
            return self.layers[index] is LayerKind.NONE
        return index % moe.moe_layer_period == moe.moe_layer_offset


def for_context(model: ModelSpec, tokens: int) -> ModelSpec:
    """``model`` as an engine serves ``tokens`` of context: with its documented YaRN extension switched on above
    the config's maximum (up to the ceiling; beyond it the engines refuse), off at or below it (Qwen's cards add
    ``rope_scaling`` "only when processing long contexts is required").

    >>> from model_catalog import get_model
    >>> qwen = get_model("Qwen/Qwen3-32B").spec
    >>> for_context(qwen, 131_072).context_limit, for_context(qwen, 40_960).context_limit
    (131072, 40960)
    """
    if model.yarn is None:
        return model
    on = tokens > model.max_position_embeddings
    return model if on == model.yarn_on else model.model_copy(update={"yarn_on": on})


# Layouts computed once: the attention kind of every layer is looked up per layer, so it must not be rebuilt per
# lookup (an n-tuple per layer made planning quadratic in the layer count). Memory: a tuple of at most MAX_LAYERS
# references is 8 kB; 128 of each cache hold at most ~2 MB.
@lru_cache(maxsize=128)
def _all_full(layers: int) -> tuple[LayerKind, ...]:
    return (LayerKind.FULL,) * layers


@lru_cache(maxsize=128)
def _without_shared(layers: tuple[LayerKind, ...], first: int) -> tuple[LayerKind, ...]:
    return layers[:first] + (LayerKind.NONE,) * (len(layers) - first)
