"""The weight precision a checkpoint's ``quantization_config`` implies: GPTQ, AWQ, FP8, MXFP4, NVFP4 (ModelOpt
layouts), bitsandbytes, AutoRound and compressed-tensors (llm-compressor) configs, read as data.

A config of the wrong shape (``config_groups`` as a list, a number where a table is expected) is read as "not
recognised" (``None``), never as an exception: a hostile or odd repository cannot take the import down.
"""

from __future__ import annotations

from typing import Any


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _names(value: Any) -> str:
    return " ".join(str(item) for item in value) if isinstance(value, list) else ""


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
    if method in ("modelopt", "nvfp4"):
        return _modelopt_precision(quant)
    if method == "bitsandbytes":
        return "int8" if quant.get("load_in_8bit") else "int4"
    if method in ("auto-round", "autoround"):  # Intel AutoRound exports (auto_round / auto_gptq packing)
        return (
            _autoround_precision(quant, _routed_experts(config))
            if bits == 4 and quant.get("group_size", 128) == 128
            else None
        )
    if method == "compressed-tensors":
        return _compressed_tensors_precision(quant)
    return None


def _routed_experts(config: dict[str, Any]) -> bool:
    """Whether the model (or its text model) has routed experts (config.json ``num_experts`` / ``n_routed_experts`` /
    ``num_local_experts``)."""
    keys = ("num_experts", "n_routed_experts", "num_local_experts")
    return any(config.get(k) or _table(config.get("text_config")).get(k) for k in keys)


def _autoround_precision(quant: dict[str, Any], experts: bool) -> str:
    """An INT4 g128 AutoRound export: Intel's ``int4-mixed`` MoE layout when the model has routed experts and the
    per-layer ``extra_config`` puts layers at 8 bits (vLLM 0.22.0 ``quantization/inc.py:141-178`` reads each layer's
    ``bits`` there; planner.core.mixed_formats), else every linear layer at 4.

    >>> _autoround_precision({"extra_config": {"model.layers.0.self_attn.q_proj": {"bits": 8}}}, True)
    'int4-mixed-autoround'
    """
    layers = [_table(layer) for layer in _table(quant.get("extra_config")).values()]
    return "int4-mixed-autoround" if experts and any(layer.get("bits") == 8 for layer in layers) else "int4-autoround"


def _compressed_tensors_precision(quant: dict[str, Any]) -> str | None:
    """llm-compressor's checkpoints: the first weight group's bits, type and grouping.

    >>> group = {"weights": {"num_bits": 4, "type": "int", "symmetric": False, "group_size": 32}}
    >>> _compressed_tensors_precision({"config_groups": {"group_0": group}, "ignore": ["lm_head"]})
    'int4-g32'
    """
    ignored = _names(quant.get("ignore"))
    groups = [_table(group) for group in _table(quant.get("config_groups")).values()]
    vocab = {name for group in groups for name in _int8_vocabulary(group)}
    body = [group for group in groups if not _int8_vocabulary(group)]
    if vocab and [_table(g.get("weights")).get("num_bits") for g in body] == [4]:
        return "int4-int8vocab" if vocab == {"lm_head", "embed_tokens"} else "int4-int8head"
    for group in body:
        weights = _table(group.get("weights"))
        num_bits, kind = weights.get("num_bits"), weights.get("type")
        if num_bits == 8:
            return "fp8" if kind == "float" else "int8"
        if num_bits == 4 and kind != "float" and "self_attn" in ignored and "shared_experts" in ignored:
            # Kimi-K2-Thinking / K2.5 / K2.6: W4A16 pack-quantized, group 32, symmetric, experts only
            sym = weights.get("symmetric", True) and weights.get("group_size") == 32
            return "int4-experts" if sym else None
        if num_bits == 4 and kind != "float" and weights.get("group_size") == 32 and weights.get("symmetric") is False:
            return "int4-g32"  # the AWQ-INT4 exports: asymmetric, group 32 (planner.core.precision)
        if num_bits == 4:
            return "nvfp4" if kind == "float" else "int4-gptq"
    return None


def _int8_vocabulary(group: dict[str, Any]) -> set[str]:
    """The vocabulary matrices (``lm_head``, ``embed_tokens``) a weight group targets in int8: the groups syv-ai's
    requantization scripts add beside a W4A16 body (planner.core.vocab_formats)."""
    weights = _table(group.get("weights"))
    if weights.get("num_bits") != 8 or weights.get("type") == "float":
        return set()
    targets = _names(group.get("targets"))
    return {name for name in ("lm_head", "embed_tokens") if name in targets}


def _modelopt_precision(quant: dict[str, Any]) -> str | None:
    """NVIDIA ModelOpt checkpoints (``quant_method`` modelopt): which tensors NVFP4 covers.

    ``quant_algo`` NVFP4 with ``ignore`` / ``exclude_modules`` naming the attention (``self_attn``,
    ``linear_attn``) keeps attention in BF16; naming the shared experts too leaves only the routed experts in
    NVFP4. ``MIXED_PRECISION`` with FP8 attention and NVFP4 feed-forward layers in ``quantized_layers`` is the
    NVFP4 + FP8-attention mix. Anything else is not recognised (None).
    """
    algo = str(quant.get("quant_algo", "")).upper()
    ignored = _names(quant.get("ignore") or quant.get("exclude_modules"))
    if algo == "NVFP4":
        if "shared_expert" in ignored:
            return "nvfp4-experts"
        if "self_attn" in ignored or "linear_attn" in ignored:
            return "nvfp4-mlp"
        return "nvfp4"
    if algo == "MIXED_PRECISION":
        layers = _table(quant.get("quantized_layers"))
        algos = {
            ("attn" if "attn" in name else "mlp"): str(entry.get("quant_algo", "")).upper()
            for name, entry in layers.items()
            if isinstance(entry, dict)
        }
        if algos.get("attn") == "FP8" and "NVFP4" in algos.get("mlp", ""):
            return "nvfp4-fp8attn"
    return None
