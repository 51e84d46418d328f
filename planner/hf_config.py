"""Read a Hugging Face ``config.json`` (a dict) into a :class:`ModelSpec`.

Nothing a repository serves is executed: the config is data, read field by field. Family differences that
the config does not spell out come from the ``transformers`` modeling files (each noted where used).
Malformed input raises :class:`PlannerError` naming the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from planner.errors import PlannerError
from planner.model import ModelSpec
from planner.precision import TORCH_DTYPE_NAMES

MAX_CONFIG_BYTES = 1_000_000
# The most decoder layers accepted: released models have at most a few hundred (Llama 3.1 405B: 126), so
# 10,000 is a wide margin that still bounds every per-layer list built from the count.
MAX_LAYERS = 10_000

# Families whose decoder layer has four norms (pre/post attention, pre/post MLP): Gemma2DecoderLayer,
# Gemma3DecoderLayer, Glm4DecoderLayer.
FOUR_NORM_FAMILIES = {"gemma2", "gemma3", "gemma3_text", "glm4"}
# Families with RMSNorm over head_dim on q and k (Qwen3Attention, Gemma3Attention, Qwen3NextAttention, …).
QK_NORM_FAMILIES = {"qwen3", "qwen3_moe", "gemma3", "gemma3_text", "qwen3_next", "olmo2"}
# Qwen2 q/k/v projections carry a bias without a config flag (Qwen2Attention: bias=True).
QKV_BIAS_FAMILIES = {"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"}
MULTIMODAL_TEXT_KEYS = ("text_config", "language_config", "llm_config")


def text_config_key(config: Mapping[str, Any]) -> str | None:
    """The key of a multimodal config's language-model section (``text_config``, …), or None."""
    return next((k for k in MULTIMODAL_TEXT_KEYS if isinstance(config.get(k), dict)), None)


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
}


def _get(config: dict[str, Any], *names: str, default: Any = None) -> Any:
    for name in names:
        if config.get(name) is not None:
            return config[name]
    return default


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


def quantization_precision(config: dict[str, Any]) -> str | None:
    """The weight precision a checkpoint's ``quantization_config`` implies (None when not quantized)."""
    quant = config.get("quantization_config")
    if not isinstance(quant, dict):
        return None
    method = str(quant.get("quant_method", "")).lower()
    bits = quant.get("bits") or quant.get("w_bit")
    if method == "fp8":
        return "fp8"
    if method == "mxfp4":
        return "mxfp4"
    if method in ("awq", "awq_marlin"):
        return "int4-awq" if bits in (4, None) else None
    if method in ("gptq", "gptq_marlin"):
        return "int4-gptq" if bits in (4, None) else ("int8" if bits == 8 else None)
    if method in ("modelopt", "nvfp4") and "FP4" in str(quant.get("quant_algo", "")).upper():
        return "nvfp4"
    if method == "bitsandbytes":
        return "int8" if quant.get("load_in_8bit") else "int4"
    groups = quant.get("config_groups")
    if method == "compressed-tensors" and isinstance(groups, dict):
        for group in groups.values():
            weights = group.get("weights") if isinstance(group, dict) else None
            if not isinstance(weights, dict):
                continue
            num_bits, kind = weights.get("num_bits"), weights.get("type")
            if num_bits == 8:
                return "fp8" if kind == "float" else "int8"
            if num_bits == 4:
                return "nvfp4" if kind == "float" else "int4-gptq"
    return None


def _layer_types(config: dict[str, Any], model_type: str, layers: int) -> list[str] | None:
    """Per-layer attention kinds, from ``layer_types`` or the family's rule."""
    explicit = config.get("layer_types") or config.get("layers_block_type")
    if isinstance(explicit, list) and explicit:
        try:
            return [LAYER_TYPE_NAMES[str(t)] for t in explicit]
        except KeyError as exc:
            raise PlannerError(f"layer_types: unknown layer type {exc.args[0]!r}") from None
    window = config.get("sliding_window")
    if model_type == "gemma2":  # Gemma2: even layers local (layer_idx % 2 == 0), odd global
        return ["sliding" if i % 2 == 0 else "full" for i in range(layers)]
    if model_type in ("gemma3", "gemma3_text"):  # 5 local : 1 global (sliding_window_pattern 6)
        period = int(config.get("sliding_window_pattern") or 6)
        return ["full" if (i + 1) % period == 0 else "sliding" for i in range(layers)]
    if model_type == "qwen3_next":  # every full_attention_interval-th layer is softmax attention
        interval = int(config.get("full_attention_interval") or 4)
        return ["full" if (i + 1) % interval == 0 else "linear" for i in range(layers)]
    if model_type in ("llama4", "llama4_text") and config.get("attention_chunk_size"):
        no_rope = config.get("no_rope_layers")
        if isinstance(no_rope, list) and len(no_rope) == layers:  # 0 marks a NoPE global layer
            return ["chunked" if flag else "full" for flag in no_rope]
        return ["full" if (i + 1) % 4 == 0 else "chunked" for i in range(layers)]
    if model_type.startswith("qwen2") and not config.get("use_sliding_window", False):
        return None  # Qwen2.5 sets sliding_window but use_sliding_window=false
    if window and model_type in ("mistral", "mixtral", "phi3", "starcoder2"):
        return ["sliding"] * layers
    return None


def spec_from_hf_config(config: dict[str, Any], model_id: str = "custom/config") -> ModelSpec:
    """A :class:`ModelSpec` from a ``config.json`` dict (multimodal configs: their ``text_config``)."""
    if not isinstance(config, dict):
        raise PlannerError("config.json: expected a JSON object at the top level")
    config, _ = with_family_defaults(config)
    outer = config
    key = text_config_key(outer)
    if key is not None:
        config = {**{k: v for k, v in outer.items() if k not in MULTIMODAL_TEXT_KEYS}, **outer[key]}
    model_type = str(config.get("model_type") or "custom")
    try:
        layers = int(_get(config, "num_hidden_layers", "n_layer", "num_layers"))
    except (TypeError, ValueError, OverflowError):
        raise PlannerError("num_hidden_layers: missing or not a number in config.json") from None
    if not 0 < layers <= MAX_LAYERS:  # bounds the per-layer lists built below
        raise PlannerError(f"num_hidden_layers: must be from 1 to {MAX_LAYERS:,} in config.json")
    heads = _get(config, "num_attention_heads", "n_head")
    kv_heads = _get(config, "num_key_value_heads", "n_head_kv", "num_kv_heads")
    falcon = model_type in ("falcon", "RefinedWebModel", "RefinedWeb")
    if falcon and not config.get("new_decoder_architecture") and config.get("multi_query", True):
        kv_heads = 1  # FalconAttention: multi_query means one KV head whatever num_kv_heads says
    spec: dict[str, Any] = {
        "id": model_id,
        "model_type": model_type,
        "hidden_size": _get(config, "hidden_size", "n_embd", "d_model"),
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "head_dim": config.get("head_dim"),
        "intermediate_size": _get(config, "intermediate_size", "ffn_hidden_size"),
        "vocab_size": config.get("vocab_size"),
        "tie_word_embeddings": bool(
            _get(outer, "tie_word_embeddings", default=config.get("tie_word_embeddings", False))
        ),
        "max_position_embeddings": _get(config, "max_position_embeddings", "n_positions", "seq_length", default=4096),
        "num_parameters": config.get("num_parameters"),
    }
    if model_type in ("falcon", "RefinedWebModel", "RefinedWeb"):
        spec.update(
            mlp_gated=False,
            norm_kind="layer",
            intermediate_size=spec["intermediate_size"] or 4 * (spec["hidden_size"] or 0),
            norms_per_layer=2 if config.get("new_decoder_architecture") else 1,
            tie_word_embeddings=True,
        )
    if model_type == "phi":  # PhiDecoderLayer: parallel block, one LayerNorm, biased dense layers
        spec.update(
            mlp_gated=False,
            mlp_bias=True,
            norm_kind="layer",
            norms_per_layer=1,
            attention_bias=True,
            attention_out_bias=True,
            lm_head_bias=True,
        )
    if model_type == "cohere":  # CohereDecoderLayer: parallel block, one LayerNorm without bias
        spec.update(norms_per_layer=1)
    if model_type in FOUR_NORM_FAMILIES:
        spec["norms_per_layer"] = 4
    if model_type in QK_NORM_FAMILIES:
        spec["qk_norm"] = True
    if model_type in QKV_BIAS_FAMILIES or config.get("attention_bias") or config.get("qkv_bias"):
        spec["attention_bias"] = True
    if model_type == "gpt_oss":
        spec.update(attention_bias=True, attention_out_bias=True, attention_sinks=True)
    if model_type == "qwen3_next":
        spec["attention_output_gate"] = True
    types = _layer_types(config, model_type, layers)
    if types:
        spec["layer_types"] = types
        if "sliding" in types:
            spec["sliding_window"] = config.get("sliding_window") or 4096
        if "chunked" in types:
            spec["attention_chunk_size"] = config.get("attention_chunk_size")
    experts = _get(config, "num_local_experts", "n_routed_experts", "num_experts")
    if experts:
        moe_width = _get(config, "moe_intermediate_size", "intermediate_size")
        if model_type in ("llama4", "llama4_text"):
            moe_width = config.get("intermediate_size")
        moe: dict[str, Any] = {
            "num_experts": experts,
            "num_experts_per_tok": _get(config, "num_experts_per_tok", "experts_per_token", default=2),
            "moe_intermediate_size": moe_width,
            "num_shared_experts": _get(config, "n_shared_experts", "num_shared_experts", default=0),
            "first_k_dense_replace": config.get("first_k_dense_replace") or 0,
        }
        if config.get("shared_expert_intermediate_size"):
            moe["num_shared_experts"] = 1
            moe["shared_expert_intermediate_size"] = config["shared_expert_intermediate_size"]
            moe["shared_expert_gate"] = model_type.startswith("qwen")
        if model_type in ("llama4", "llama4_text"):
            moe["num_shared_experts"] = 1
            moe["moe_layer_period"] = int(config.get("interleave_moe_layer_step") or 1)
            moe["moe_layer_offset"] = moe["moe_layer_period"] - 1
            spec["intermediate_size"] = config.get("intermediate_size_mlp") or spec["intermediate_size"]
        if model_type == "gpt_oss":
            moe.update(router_bias=True, expert_bias=True)
        if model_type == "deepseek_v3":
            moe["score_correction_bias"] = True
        if model_type == "jamba":
            moe["moe_layer_period"] = int(config.get("expert_layer_period") or 2)
            moe["moe_layer_offset"] = int(config.get("expert_layer_offset") or 1)
        spec["moe"] = moe
    if config.get("kv_lora_rank"):
        spec["mla"] = {
            "kv_lora_rank": config["kv_lora_rank"],
            "q_lora_rank": config.get("q_lora_rank") or None,
            "qk_nope_head_dim": config.get("qk_nope_head_dim"),
            "qk_rope_head_dim": config.get("qk_rope_head_dim"),
            "v_head_dim": config.get("v_head_dim"),
        }
        spec["num_nextn_predict_layers"] = config.get("num_nextn_predict_layers") or 0
        spec["head_dim"] = None
    if model_type == "qwen3_next":
        spec["linear_attention"] = {
            "kind": "gated_deltanet",
            "linear_num_key_heads": config.get("linear_num_key_heads"),
            "linear_num_value_heads": config.get("linear_num_value_heads"),
            "linear_key_head_dim": config.get("linear_key_head_dim"),
            "linear_value_head_dim": config.get("linear_value_head_dim"),
            "linear_conv_kernel_dim": config.get("linear_conv_kernel_dim") or 4,
        }
    if config.get("mamba_n_heads") or config.get("mamba_d_state"):
        spec["linear_attention"] = {
            "kind": "mamba2",
            "mamba_n_heads": config.get("mamba_n_heads"),
            "mamba_d_head": config.get("mamba_d_head"),
            "mamba_d_state": config.get("mamba_d_state"),
            "mamba_n_groups": config.get("mamba_n_groups") or 1,
            "mamba_d_conv": config.get("mamba_d_conv") or 4,
            "mamba_conv_bias": bool(config.get("mamba_conv_bias", True)),
            "mamba_proj_bias": bool(config.get("mamba_proj_bias", False)),
        }
    dtype = str(_get(outer, "torch_dtype", "dtype", default=_get(config, "torch_dtype", "dtype", default="bfloat16")))
    spec["native_dtype"] = quantization_precision(outer) or TORCH_DTYPE_NAMES.get(dtype, "bf16")
    try:
        return ModelSpec.model_validate({k: v for k, v in spec.items() if v is not None})
    except ValidationError as exc:
        raise PlannerError(f"config.json: {describe_validation_error(exc)}") from None


def describe_validation_error(exc: ValidationError) -> str:
    """One line per problem, each naming its field: ``moe.num_experts: Input should be greater than 0``."""
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'model'}: {err['msg'].removeprefix('Value error, ')}"
        for err in exc.errors()
    )


def load_config_file(path: str | Path, model_id: str | None = None) -> ModelSpec:
    """A :class:`ModelSpec` from a ``config.json`` on disk (at most 1 MB)."""
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise PlannerError(f"{file.name}: {size:,} bytes is larger than a config.json can be (1 MB)")
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlannerError(f"cannot read {file}: {exc.strerror or exc}") from None
    return spec_from_hf_config(parse_config_text(text), model_id or f"config:{file.name}")


def parse_config_text(text: str) -> dict[str, Any]:
    """Parse config.json text, with a clear message on malformed JSON."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlannerError(
            f"config.json is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    if not isinstance(data, dict):
        raise PlannerError("config.json: expected a JSON object at the top level")
    return data
