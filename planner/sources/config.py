"""Read a Hugging Face ``config.json`` (a dict) into a :class:`ModelSpec`.

Nothing a repository serves is executed: the config is data, read field by field, and every count is checked
(a whole, finite, non-negative number within :mod:`planner.bounds.limits`) before anything is built from it. Family
differences that the config does not spell out come from the ``transformers`` modeling files
(:mod:`planner.sources.families`); quantization from :mod:`planner.sources.quant`. Malformed input raises
:class:`PlannerError` naming the field.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from planner.bounds.errors import BeyondLimitsError, PlannerError, describe_validation_error
from planner.bounds.files import read_regular_file
from planner.bounds.limits import DEFAULT_FIELD_LIMIT, FIELD_LIMITS, MAX_CONFIG_BYTES, MAX_JSON_DEPTH, MAX_ROPE_FACTOR
from planner.bounds.safe_json import load_json
from planner.core.model import ModelSpec
from planner.core.params import check_parameter_count
from planner.core.precision import TORCH_DTYPE_NAMES
from planner.sources.families import (
    FALCON_FAMILIES,
    GEMMA3_FAMILIES,
    GEMMA4_FAMILIES,
    LLAMA4_FAMILIES,
    MULTIMODAL_TEXT_KEYS,
    PARTIAL_ROTARY_DEFAULTS,
    QWEN3_5_FAMILIES,
    SCORE_BIAS_FAMILIES,
    family_fields,
    layer_types,
    text_config_key,
    with_family_defaults,
)
from planner.sources.quant import quantization_precision
from planner.sources.vision import vision_tower

__all__ = [
    "MAX_CONFIG_BYTES",
    "describe_validation_error",
    "load_config_file",
    "parse_config_text",
    "quantization_precision",
    "spec_from_hf_config",
    "text_config_key",
    "with_family_defaults",
]


class Reader:
    """Typed, bounded access to a config's fields: a count is a whole, finite number in its range, or an error
    naming the field; a flag is a boolean; anything else is refused, not guessed."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def raw(self, *names: str) -> Any:
        return next((self.data[n] for n in names if self.data.get(n) is not None), None)

    def count(self, *names: str, default: int | None = None) -> int | None:
        """The first of ``names`` present, as a checked count."""
        for name in names:
            value = self.data.get(name)
            if value is not None:
                return _count(name, value)
        return default

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.data.get(name, default)
        return value if isinstance(value, bool) else bool(value) if isinstance(value, int) else default


def _count(name: str, value: Any) -> int:
    limit = FIELD_LIMITS.get(name, DEFAULT_FIELD_LIMIT)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PlannerError(f"config.json: {name}: expected a number, got {type(value).__name__}")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise BeyondLimitsError(f"config.json: {name}: expected a whole, finite number")
    if not 0 <= value <= limit:
        # the digits counted from the bit length: formatting a huge int as a float overflows past 10^308, and as
        # text is refused past 4,300 digits (sys.int_info); a dict need not come from the bounded JSON loader
        magnitude = abs(int(value))
        digits = int(magnitude.bit_length() * math.log10(2)) + 1
        digits -= 10 ** (digits - 1) > magnitude  # the estimate is one too many just below a power of ten
        shown = f"{value:,}" if abs(value) < 10**15 else f"a number with {digits:,} digits"
        raise BeyondLimitsError(f"config.json: {name} is {shown}; at most {limit:,} (more than any real model)")
    return int(value)


def _real(name: str, value: Any, low: float, high: float, *, low_open: bool = False) -> float:
    """A finite number in [low, high] (``(low, high]`` with ``low_open``), or an error naming the field."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PlannerError(f"config.json: {name}: expected a number, got {type(value).__name__}")
    if not math.isfinite(value) or value > high or value < low or (low_open and value == low):
        shown = f"{value:g}" if math.isfinite(value) and abs(value) < 10**15 else "not a bounded number"
        bound = f"{'above' if low_open else 'at least'} {low:g} and at most {high:g}"
        raise BeyondLimitsError(f"config.json: {name} is {shown}; expected {bound}")
    return float(value)


def _rope(r: Reader, model_type: str) -> dict[str, Any]:
    """What sizes vLLM's RoPE cos/sin caches (planner.engines.vllm.rope): the rotated share of head_dim, a linear or
    dynamic scaling, MRoPE sections, and whether sliding layers have a RoPE of their own. Read as vLLM v0.19.0
    reads them: ``patch_rope_parameters`` (transformers_utils/config.py lines 377-426) turns ``rope_scaling`` into
    ``rope_parameters`` and copies ``partial_rotary_factor`` / ``rotary_pct`` / ``rotary_emb_fraction`` into it;
    transformers v5 configs nest one ``rope_parameters`` per layer type (Gemma 3 and 4)."""
    params = r.raw("rope_parameters", "rope_scaling")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise PlannerError(f"config.json: rope_scaling: expected an object, got {type(params).__name__}")
    if params and all(isinstance(v, dict) for v in params.values()):  # {"full_attention": {...}, ...}
        full = params.get("full_attention") or {}
        local = params.get("sliding_attention")
        sliding_rope = local is not None and local != full
    else:
        full = params
        # gemma3.py lines 176-179: local layers get_rope(rope_type "default", rope_theta=rope_local_base_freq)
        sliding_rope = model_type in GEMMA3_FAMILIES
    out: dict[str, Any] = {"sliding_rope": sliding_rope, "mrope": "mrope_section" in full}
    kind = full.get("rope_type") or full.get("type")
    if kind in ("linear", "dynamic") and not (kind == "dynamic" and "alpha" in full):
        factor = _real("rope_scaling.factor", full.get("factor"), 1, MAX_ROPE_FACTOR)
        out["rope_scaling"] = {"rope_type": kind, "factor": factor}
    out["partial_rotary_factor"] = _partial_rotary_factor(r, model_type, full)
    return out


def _partial_rotary_factor(r: Reader, model_type: str, full: dict[str, Any]) -> float:
    """The top-level names first (vLLM copies them over ``rope_parameters``), then ``rope_parameters``', then
    MiniMax's ``rotary_dim / head_dim`` (minimax_m2.py line 204), then the family's default."""
    if full.get("rope_type") == "proportional":  # Gemma 4 global layers: the cache spans head_dim (gemma4_rope.py)
        return 1.0
    value = r.raw("partial_rotary_factor", "rotary_pct", "rotary_emb_fraction")
    if value is None:
        value = full.get("partial_rotary_factor")
    if value is None and model_type.startswith("minimax") and r.raw("rotary_dim") is not None:
        rotary = r.count("rotary_dim") or 0
        heads = r.count("num_attention_heads") or 1
        head_dim = r.count("head_dim") or (r.count("hidden_size") or 0) // heads
        if not 0 < rotary <= head_dim:
            raise BeyondLimitsError(
                f"config.json: rotary_dim ({rotary:,}) must be positive and at most head_dim ({head_dim:,})"
            )
        value = rotary / head_dim
    if value is None:
        value = PARTIAL_ROTARY_DEFAULTS.get(model_type, 1.0)
    return _real("partial_rotary_factor", value, 0, 1, low_open=True)


def _base(r: Reader, outer: Reader, model_id: str, model_type: str, layers: int) -> dict[str, Any]:
    """The dense shape: hidden size, heads, MLP width, vocabulary, context."""
    kv_heads = r.count("num_key_value_heads", "n_head_kv", "num_kv_heads")
    falcon = model_type in FALCON_FAMILIES
    if falcon and not r.flag("new_decoder_architecture") and r.flag("multi_query", True):
        kv_heads = 1  # FalconAttention: multi_query means one KV head whatever num_kv_heads says
    tie = outer.raw("tie_word_embeddings")
    return {
        "id": model_id,
        "model_type": model_type,
        "hidden_size": r.count("hidden_size", "n_embd", "d_model"),
        "num_hidden_layers": layers,
        "num_attention_heads": r.count("num_attention_heads", "n_head"),
        "num_key_value_heads": kv_heads,
        "head_dim": r.count("head_dim"),
        "intermediate_size": r.count("intermediate_size", "ffn_hidden_size"),
        "vocab_size": r.count("vocab_size"),
        "tie_word_embeddings": bool(tie) if tie is not None else r.flag("tie_word_embeddings"),
        "max_position_embeddings": r.count("max_position_embeddings", "n_positions", "seq_length", default=4096),
        "num_parameters": r.count("num_parameters") or None,
    }


def _gemma4(r: Reader) -> dict[str, Any]:
    """Gemma4TextAttention / Gemma4TextDecoderLayer / Gemma4TextModel."""
    k_eq_v = r.flag("attention_k_eq_v")
    return {
        "global_head_dim": r.count("global_head_dim"),
        "num_global_key_value_heads": r.count("num_global_key_value_heads") if k_eq_v else None,
        "attention_k_eq_v": k_eq_v,
        "num_kv_shared_layers": r.count("num_kv_shared_layers") or 0,
        "double_wide_mlp_on_shared_kv": r.flag("use_double_wide_mlp"),
        "hidden_size_per_layer_input": r.count("hidden_size_per_layer_input") or 0,
        "vocab_size_per_layer_input": r.count("vocab_size_per_layer_input"),
        "layer_scalar": True,
        "mm_prefix_lm": r.raw("use_bidirectional_attention") == "vision",
    }


def _layout(r: Reader, model_type: str, layers: int) -> dict[str, Any]:
    linear_hybrid = model_type == "qwen3_next" or model_type in QWEN3_5_FAMILIES
    period = r.count("full_attention_interval" if linear_hybrid else "sliding_window_pattern")
    types = layer_types(r.data, model_type, layers, period or None)
    if not types:
        return {}
    out: dict[str, Any] = {"layer_types": types}
    if "sliding" in types:
        out["sliding_window"] = r.count("sliding_window") or 4096
    if "chunked" in types:
        out["attention_chunk_size"] = r.count("attention_chunk_size")
    return out


def _moe(r: Reader, model_type: str, spec: dict[str, Any]) -> dict[str, Any] | None:
    experts = r.count("num_local_experts", "n_routed_experts", "num_experts")
    if not experts:
        return None
    width = r.count("intermediate_size") if model_type in LLAMA4_FAMILIES else None
    moe: dict[str, Any] = {
        "num_experts": experts,
        "num_experts_per_tok": r.count("num_experts_per_tok", "experts_per_token", "top_k_experts", default=2),
        "moe_intermediate_size": width or r.count("moe_intermediate_size", "intermediate_size"),
        "num_shared_experts": r.count("n_shared_experts", "num_shared_experts", default=0),
        "first_k_dense_replace": r.count("first_k_dense_replace") or 0,
    }
    shared = r.count("shared_expert_intermediate_size")
    if shared:
        moe.update(num_shared_experts=1, shared_expert_intermediate_size=shared)
        moe["shared_expert_gate"] = model_type.startswith("qwen")
    if model_type == "nemotron_h" and r.count("moe_shared_expert_intermediate_size"):
        moe["shared_expert_intermediate_size"] = r.count("moe_shared_expert_intermediate_size")
    if model_type in GEMMA4_FAMILIES:  # enable_moe_block: the dense MLP runs beside the experts
        moe["parallel_dense_mlp"] = True
    if model_type in LLAMA4_FAMILIES:
        period = r.count("interleave_moe_layer_step") or 1
        moe.update(num_shared_experts=1, moe_layer_period=period, moe_layer_offset=period - 1)
        spec["intermediate_size"] = r.count("intermediate_size_mlp") or spec["intermediate_size"]
    if model_type == "gpt_oss":
        moe.update(router_bias=True, expert_bias=True)
    if model_type in SCORE_BIAS_FAMILIES or (model_type == "minimax_m2" and r.flag("use_routing_bias")):
        moe["score_correction_bias"] = True
    if model_type == "jamba":
        moe["moe_layer_period"] = r.count("expert_layer_period") or 2
        moe["moe_layer_offset"] = r.count("expert_layer_offset") or 1
    return moe


def _mla(r: Reader, model_type: str) -> dict[str, Any]:
    """Multi-head latent attention (DeepSeek-V2/V3, Kimi K2, GLM-5) and its MTP and indexer."""
    if not r.count("kv_lora_rank"):
        if model_type == "glm4_moe" and r.count("num_nextn_predict_layers"):
            # Glm4MoeMTP layers (model.layers.<num_hidden_layers>), with their own embedding and head copies as
            # GLM-4.5 and GLM-4.7 store them (GLM-4.6 does not: set mtp_shares_embeddings for it).
            return {"num_nextn_predict_layers": r.count("num_nextn_predict_layers")}
        return {}
    out: dict[str, Any] = {
        "mla": {
            "kv_lora_rank": r.count("kv_lora_rank"),
            "q_lora_rank": r.count("q_lora_rank") or None,
            "qk_nope_head_dim": r.count("qk_nope_head_dim"),
            "qk_rope_head_dim": r.count("qk_rope_head_dim"),
            "v_head_dim": r.count("v_head_dim"),
        },
        "num_nextn_predict_layers": r.count("num_nextn_predict_layers") or 0,
        "head_dim": None,
    }
    if model_type == "glm_moe_dsa":  # GLM-5's MTP layer stores no embedding / head copies (its Hub total)
        out["mtp_shares_embeddings"] = True
    if r.count("index_n_heads") and r.count("index_head_dim"):  # DeepSeek-V3.2 / GLM-5 sparse attention
        out["indexer"] = {
            "index_n_heads": r.count("index_n_heads"),
            "index_head_dim": r.count("index_head_dim"),
            "index_topk": r.count("index_topk"),
        }
    return out


def _linear(r: Reader, model_type: str) -> dict[str, Any] | None:
    """Linear-attention / state-space mixers: Gated DeltaNet (Qwen3-Next, Qwen3.5) or Mamba-2."""
    if model_type == "qwen3_next" or model_type in QWEN3_5_FAMILIES:
        return {
            "kind": "gated_deltanet",
            "linear_num_key_heads": r.count("linear_num_key_heads"),
            "linear_num_value_heads": r.count("linear_num_value_heads"),
            "linear_key_head_dim": r.count("linear_key_head_dim"),
            "linear_value_head_dim": r.count("linear_value_head_dim"),
            "linear_conv_kernel_dim": r.count("linear_conv_kernel_dim") or 4,
        }
    nemotron = model_type == "nemotron_h"  # NemotronHMamba2Mixer names its fields differently
    if not nemotron and not (r.count("mamba_n_heads") or r.count("mamba_d_state")):
        return None
    names = ("mamba_num_heads", "mamba_head_dim", "ssm_state_size", "n_groups", "conv_kernel", "use_conv_bias")
    if not nemotron:
        names = ("mamba_n_heads", "mamba_d_head", "mamba_d_state", "mamba_n_groups", "mamba_d_conv", "mamba_conv_bias")
    return {
        "kind": "mamba2",
        "mamba_n_heads": r.count(names[0]),
        "mamba_d_head": r.count(names[1]),
        "mamba_d_state": r.count(names[2]),
        "mamba_n_groups": r.count(names[3]) or 1,
        "mamba_d_conv": r.count(names[4]) or 4,
        "mamba_conv_bias": r.flag(names[5], True),
        "mamba_proj_bias": r.flag("use_bias" if nemotron else "mamba_proj_bias"),
        "mamba_chunk_size": r.count("mamba_chunk_size", "chunk_size") or None,
    }


def _text_section(config: dict[str, Any]) -> tuple[Reader, Reader]:
    """(the language model's fields, the outer config's): a multimodal config's ``text_config`` wins."""
    config, _ = with_family_defaults(config)
    key = text_config_key(config)
    text = config
    if key is not None:
        text = {**{k: v for k, v in config.items() if k not in MULTIMODAL_TEXT_KEYS}, **config[key]}
    return Reader(text), Reader(config)


def spec_from_hf_config(config: dict[str, Any], model_id: str = "custom/config") -> ModelSpec:
    """A :class:`ModelSpec` from a ``config.json`` dict (multimodal configs: their ``text_config``)."""
    if not isinstance(config, dict):
        raise PlannerError("config.json: expected a JSON object at the top level")
    r, outer = _text_section(config)
    model_type = str(r.raw("model_type") or "custom")[:64]
    layers = r.count("num_hidden_layers", "n_layer", "num_layers")
    if not layers:
        raise PlannerError("num_hidden_layers: missing or not a number in config.json")
    spec = _base(r, outer, model_id, model_type, layers)
    spec.update(family_fields(r.data, model_type, spec))
    if model_type in QWEN3_5_FAMILIES and r.count("mtp_num_hidden_layers"):
        # Qwen3_5MultiTokenPredictor (vLLM qwen3_5_mtp.py): fc, three norms and full-attention decoder layers,
        # sharing the main embedding and lm_head.
        spec.update(num_nextn_predict_layers=r.count("mtp_num_hidden_layers"), mtp_shares_embeddings=True)
    if model_type in GEMMA4_FAMILIES:
        spec.update(_gemma4(r))
    spec["audio_input"] = outer.raw("audio_config") is not None  # an audio tower beside the text decoder
    spec.update(_layout(r, model_type, layers))
    if spec.get("rope", True):
        spec.update(_rope(r, model_type))
    spec["moe"] = _moe(r, model_type, spec)
    spec.update(_mla(r, model_type))
    spec["linear_attention"] = _linear(r, model_type)
    dtype = str(outer.raw("torch_dtype", "dtype") or r.raw("torch_dtype", "dtype") or "bfloat16")
    spec["native_dtype"] = quantization_precision(outer.data) or TORCH_DTYPE_NAMES.get(dtype, "bf16")
    try:
        model = ModelSpec.model_validate({k: v for k, v in spec.items() if v is not None})
    except ValidationError as exc:
        raise PlannerError(f"config.json: {describe_validation_error(exc)}") from None
    try:
        check_parameter_count(model)
    except PlannerError as exc:
        raise PlannerError(f"config.json: {exc}") from None
    return model


def read_config_bytes(path: str | Path) -> bytes:
    """At most :data:`MAX_CONFIG_BYTES` of a regular file: no device (``/dev/zero``), FIFO or directory, and
    nothing read past the bound."""
    return read_regular_file(path, MAX_CONFIG_BYTES, "a config.json")


def spec_from_config_alone(config: dict[str, Any], model_id: str) -> ModelSpec:
    """:func:`spec_from_hf_config` for a ``config.json`` with nothing else (a file, an upload: no checkpoint to
    count), with the vision tower its ``vision_config`` describes when the family is known
    (:func:`planner.sources.vision.vision_tower`), loaded with the model as the catalog's multimodal models are."""
    spec = spec_from_hf_config(config, model_id)
    try:
        tower = vision_tower(config)
    except ValueError as exc:
        raise PlannerError(f"config.json: {exc}") from None
    if tower is None:
        return spec
    return spec.model_copy(update={"attached_modules": (*spec.attached_modules, tower)})


def load_config_file(path: str | Path, model_id: str | None = None) -> ModelSpec:
    """A :class:`ModelSpec` from a ``config.json`` on disk (a regular file of at most 1 MB)."""
    data = read_config_bytes(path)
    return spec_from_config_alone(parse_config_text(data), model_id or f"config:{Path(path).name}")


def parse_config_text(text: str | bytes) -> dict[str, Any]:
    """Parse config.json text (UTF-8, bounded size and nesting, no NaN/Infinity, no huge integer literals),
    with a clear message on anything else."""
    data = load_json(text, what="config.json", max_bytes=MAX_CONFIG_BYTES, max_depth=MAX_JSON_DEPTH)
    if not isinstance(data, dict):
        raise PlannerError("config.json: expected a JSON object at the top level")
    return data
