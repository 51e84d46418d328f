"""What a ``config.json`` does not spell out, by model family, from the ``transformers`` modeling files: norms
per layer, q/k norms, biases, the layer layout (sliding, chunked, linear, Mamba), and the defaults a sparse
multimodal config leaves to its config class. Read by :mod:`planner.sources.config`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planner.bounds.errors import PlannerError

# Families whose decoder layer has four norms (pre/post attention, pre/post MLP): Gemma2DecoderLayer,
# Gemma3DecoderLayer, Glm4DecoderLayer.
FOUR_NORM_FAMILIES = {"gemma2", "gemma3", "gemma3_text", "glm4", "gemma4", "gemma4_text"}
# Families with RMSNorm over head_dim on q and k (Qwen3Attention, Gemma3Attention, Qwen3NextAttention,
# Qwen3_5Attention, Qwen3VLTextAttention, Gemma4TextAttention, …).
QK_NORM_FAMILIES = {
    "qwen3",
    "qwen3_moe",
    "gemma3",
    "gemma3_text",
    "qwen3_next",
    "olmo2",
    "qwen3_5",
    "qwen3_5_text",
    "qwen3_5_moe",
    "qwen3_5_moe_text",
    "qwen3_vl",
    "qwen3_vl_text",
    "qwen3_vl_moe",
    "qwen3_vl_moe_text",
    "gemma4",
    "gemma4_text",
}
# Qwen3.5 / 3.6 / 3.8 (modeling_qwen3_5.py): Qwen3-Next's gated attention and Gated DeltaNet, in a text_config.
QWEN3_5_FAMILIES = {"qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text"}
# Routers with DeepSeek-V3's e_score_correction_bias (one per expert per MoE layer): DeepseekV3TopkRouter,
# Glm4MoeTopkRouter, GlmMoeDsa, NemotronHTopkRouter; MiniMax-M2 with use_routing_bias.
SCORE_BIAS_FAMILIES = {"deepseek_v3", "deepseek_v32", "kimi_k2", "glm4_moe", "glm_moe_dsa", "nemotron_h"}
# Nemotron-H hybrid_override_pattern characters (configuration_nemotron_h.py): Mamba-2, attention, MLP, MoE.
NEMOTRON_H_BLOCKS = {"M": "linear", "*": "full", "-": "none", "E": "none"}
# Qwen2 q/k/v projections carry a bias without a config flag (Qwen2Attention: bias=True).
QKV_BIAS_FAMILIES = {"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"}
FALCON_FAMILIES = ("falcon", "RefinedWebModel", "RefinedWeb")
LLAMA4_FAMILIES = ("llama4", "llama4_text")
GEMMA4_FAMILIES = ("gemma4", "gemma4_text")
GEMMA3_FAMILIES = ("gemma3", "gemma3_text")
# partial_rotary_factor where the config may omit it (vLLM v0.19.0): glm4.py line 97 and glm4_moe.py line 287
# setdefault 0.5; transformers_utils/configs/qwen3_next.py line 240, qwen3_5.py line 86, qwen3_5_moe.py line 92: 0.25.
PARTIAL_ROTARY_DEFAULTS: dict[str, float] = {
    "glm4": 0.5,
    "glm4_moe": 0.5,
    "qwen3_next": 0.25,
    **dict.fromkeys(("qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text"), 0.25),
}
MULTIMODAL_TEXT_KEYS = ("text_config", "language_config", "llm_config")
LAYER_TYPE_NAMES = {
    "full_attention": "full",
    "attention": "full",
    "global": "full",
    "sliding_attention": "sliding",
    "local": "sliding",
    "chunked_attention": "chunked",
    "linear_attention": "linear",
    "mamba": "linear",
    "mamba2": "linear",
    "mlp": "none",
    "moe": "none",
}
# Fields a sparse config.json may leave to the transformers config class defaults.
FAMILY_DEFAULTS: dict[str, dict[str, Any]] = {
    # transformers Gemma3TextConfig.__init__: the official gemma-3-*-it text_config omits these.
    "gemma3_text": {
        "vocab_size": 262_208,
        "max_position_embeddings": 131_072,
        "tie_word_embeddings": True,
        "sliding_window": 4096,
        "sliding_window_pattern": 6,
    },
}


def text_config_key(config: Mapping[str, Any]) -> str | None:
    """The key of a multimodal config's language-model section (``text_config``, …), or None."""
    return next((k for k in MULTIMODAL_TEXT_KEYS if isinstance(config.get(k), dict)), None)


def with_family_defaults(config: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Fill fields a sparse config leaves to its transformers config class (noted, never silently)."""
    key = text_config_key(config)
    text = dict(config[key]) if key else dict(config)
    family = str(text.get("model_type") or "")
    defaults = FAMILY_DEFAULTS.get(family, {})
    filled = {name: value for name, value in defaults.items() if text.get(name) is None and config.get(name) is None}
    if not filled:
        return config, []
    text.update(filled)
    out = {**config, key: text} if key else text
    listed = ", ".join(f"{k} {v}" for k, v in filled.items())
    return out, [f"config.json omits {listed}: taken from the transformers {family} config defaults"]


def _named_layers(values: list[Any], table: Mapping[str, str], field: str) -> list[str]:
    try:
        return [table[str(v)] for v in values]
    except KeyError as exc:
        known = ", ".join(sorted(set(table)))
        raise PlannerError(f"{field}: unknown layer type {str(exc.args[0])[:40]!r} (known: {known})") from None


def _periodic(layers: int, period: int, every: str, otherwise: str) -> list[str]:
    """``every`` on each ``period``-th layer (1-based), ``otherwise`` elsewhere."""
    return [every if (i + 1) % period == 0 else otherwise for i in range(layers)]


def layer_types(config: Mapping[str, Any], model_type: str, layers: int, period: int | None) -> list[str] | None:
    """Per-layer attention kinds, from ``layer_types`` or the family's rule (``period``: the config's
    ``sliding_window_pattern`` or ``full_attention_interval``, already checked)."""
    explicit = config.get("layer_types") or config.get("layers_block_type")
    if isinstance(explicit, list) and explicit:
        return _named_layers(explicit, LAYER_TYPE_NAMES, "layer_types")
    pattern = config.get("hybrid_override_pattern")
    if model_type == "nemotron_h" and isinstance(pattern, str) and len(pattern) == layers:
        return _named_layers(list(pattern), NEMOTRON_H_BLOCKS, "hybrid_override_pattern")
    if model_type == "gemma2":  # Gemma2: even layers local (layer_idx % 2 == 0), odd global
        return ["sliding" if i % 2 == 0 else "full" for i in range(layers)]
    if model_type in ("gemma3", "gemma3_text"):  # 5 local : 1 global (sliding_window_pattern 6)
        return _periodic(layers, period or 6, "full", "sliding")
    if model_type == "qwen3_next" or model_type in QWEN3_5_FAMILIES:  # every interval-th layer is softmax
        return _periodic(layers, period or 4, "full", "linear")
    if model_type in LLAMA4_FAMILIES and config.get("attention_chunk_size"):
        no_rope = config.get("no_rope_layers")
        if isinstance(no_rope, list) and len(no_rope) == layers:  # 0 marks a NoPE global layer
            return ["chunked" if flag else "full" for flag in no_rope]
        return _periodic(layers, 4, "full", "chunked")
    if model_type.startswith("qwen2") and not config.get("use_sliding_window", False):
        return None  # Qwen2.5 sets sliding_window but use_sliding_window=false
    if config.get("sliding_window") and model_type in ("mistral", "mixtral", "phi3", "starcoder2"):
        return ["sliding"] * layers
    return None


def family_fields(config: Mapping[str, Any], model_type: str, spec: Mapping[str, Any]) -> dict[str, Any]:
    """Fields a family's modeling file fixes without a config flag (each noted with its class)."""
    out: dict[str, Any] = {}
    if model_type in FALCON_FAMILIES:
        out.update(
            mlp_gated=False,
            norm_kind="layer",
            intermediate_size=spec.get("intermediate_size") or 4 * (spec.get("hidden_size") or 0),
            norms_per_layer=2 if config.get("new_decoder_architecture") else 1,
            tie_word_embeddings=True,
        )
    if model_type == "phi":  # PhiDecoderLayer: parallel block, one LayerNorm, biased dense layers
        out.update(
            mlp_gated=False,
            mlp_bias=True,
            norm_kind="layer",
            norms_per_layer=1,
            attention_bias=True,
            attention_out_bias=True,
            lm_head_bias=True,
        )
    if model_type == "cohere":  # CohereDecoderLayer: parallel block, one LayerNorm without bias
        out["norms_per_layer"] = 1
    if model_type in FOUR_NORM_FAMILIES:
        out["norms_per_layer"] = 4
    if model_type in QK_NORM_FAMILIES:
        out["qk_norm"] = True
    if model_type in QKV_BIAS_FAMILIES or config.get("attention_bias") or config.get("qkv_bias"):
        out["attention_bias"] = True
    if model_type == "gpt_oss":
        out.update(attention_bias=True, attention_out_bias=True, attention_sinks=True)
    if model_type == "qwen3_next" or (model_type in QWEN3_5_FAMILIES and config.get("attn_output_gate", True)):
        out["attention_output_gate"] = True
    if model_type == "glm4_moe":  # Glm4MoeAttention: q/k/v bias; q/k RMSNorm when use_qk_norm
        out["qk_norm"] = bool(config.get("use_qk_norm"))
    if model_type == "minimax_m2" and config.get("use_qk_norm") and config.get("qk_norm_type") == "per_layer":
        out["qk_norm_over_heads"] = True  # MiniMaxM2Attention: q_norm over heads·d, k_norm over kv·d
    if model_type == "nemotron_h" or config.get("alibi") or config.get("position_embedding_type") in ("nope", "none"):
        out["rope"] = False  # vLLM nemotron_h.py builds no rotary embedding; granitemoehybrid.py only for "rope"
    if model_type == "nemotron_h":  # NemotronHBlock: one RMSNorm and one mixer (Mamba-2, attention, MLP or MoE)
        out.update(
            mixer_blocks_without_mlp=True,
            norms_per_layer=1,
            mlp_gated=str(config.get("mlp_hidden_act", "relu2")) != "relu2",
            mlp_bias=bool(config.get("mlp_bias")),
        )
    return out
