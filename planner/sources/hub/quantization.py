"""The checkpoint's quantization, read from ``config.json`` ``quantization_config`` as data.

Methods and their fields follow what each quantizer writes into ``config.json``: ``quant_method`` and
``bits`` / ``group_size`` (AutoGPTQ, AutoAWQ: ``w_bit`` / ``q_group_size``), ``config_groups.*.weights``
(llm-compressor's compressed-tensors), ``quant_algo`` (NVIDIA ModelOpt), ``load_in_8bit`` (bitsandbytes).
The precision names come from :func:`planner.sources.config.quantization_precision`, shared with config uploads.
``quant_method`` and ``config_groups`` decide the precision, so a wrong type there is a
:class:`HubResponseError` naming the field; ``bits`` and ``group_size`` are shown only, so an implausible value
is shown as unknown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast, get_args

from planner.core.precision import WeightPrecision
from planner.sources.config import quantization_precision
from planner.sources.hub.checks import mapping, short_text
from planner.sources.hub.results import QuantizationInfo

__all__ = ["detect_quantization", "precision_name"]


def precision_name(name: str | None) -> WeightPrecision | None:
    """``name`` if it is one of the planner's weight precisions, else None."""
    return cast("WeightPrecision", name) if name in get_args(WeightPrecision) else None


def _fallback_precision(method: str, quant: Mapping[str, Any]) -> str | None:
    """Precisions ``quantization_precision`` leaves out: FP8 and INT8 variants named by their method."""
    fp8_modelopt = method in ("modelopt", "nvfp4") and "FP8" in str(quant.get("quant_algo", "")).upper()
    if method in ("fbgemm_fp8", "fp8_e4m3", "ptpc_fp8") or fp8_modelopt:
        return "fp8"
    if method in ("eetq", "int8"):
        return "int8"
    return None


def _bits(method: str, quant: Mapping[str, Any], source: str) -> Any:
    bits = quant.get("bits") or quant.get("w_bit") or quant.get("num_bits")
    groups = mapping(quant.get("config_groups"), "quantization_config.config_groups", source) or {}
    if bits is None and method == "compressed-tensors":
        for group in groups.values():
            if isinstance(group, dict) and isinstance(group.get("weights"), dict):
                bits = group["weights"].get("num_bits")
                break
    if bits is None and method == "bitsandbytes":
        bits = 8 if quant.get("load_in_8bit") else 4
    return bits


def _plain_int(value: Any, low: int, high: int) -> int | None:
    """``value`` if it is an int in ``[low, high]``, else None (unknown)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high else None


def _method(quant: Mapping[str, Any], source: str) -> str:
    name = "quant_method" if quant.get("quant_method") else "quant_type"
    raw = quant.get(name) or "unknown"
    return short_text(raw, f"quantization_config.{name}", source, limit=64).lower()


def detect_quantization(
    config: Mapping[str, Any], source: str = "config.json quantization_config"
) -> QuantizationInfo | None:
    """The checkpoint's quantization and the planner's precision name for it (AWQ, GPTQ, FP8, MXFP4, …)."""
    quant = config.get("quantization_config")
    if not isinstance(quant, dict):
        return None
    method = _method(quant, source)
    bits = _bits(method, quant, source)
    precision = quantization_precision({"quantization_config": quant}) or _fallback_precision(method, quant)
    group_size = quant.get("group_size") or quant.get("q_group_size")
    return QuantizationInfo(
        method=method,
        precision=precision_name(precision),
        bits=_plain_int(bits, 1, 64),
        group_size=_plain_int(group_size, -1, 2**31),  # -1: one group per row (GPTQ)
        source=source,
    )
