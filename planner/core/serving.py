"""The precisions a model is served in when none is asked for: its checkpoint's weights and its activation dtype
for the KV cache (vLLM ``--dtype auto``, ``--kv-cache-dtype auto``)."""

from __future__ import annotations

from planner.core.model import ModelSpec
from planner.core.overhead import OverheadModelBase
from planner.core.platform import DevicePlatform


def serving_weights(model: ModelSpec) -> str:
    """The weight precision a model is served in by default: its checkpoint's, except that FP32 checkpoints
    (Gemma 2) are served in 16 bits, as vLLM ``--dtype auto`` casts float32 configs down (``_get_and_verify_dtype``)."""
    return "bf16" if model.native_dtype == "fp32" else model.native_dtype


def serving_kv_dtype(model: ModelSpec) -> str:
    """The KV-cache dtype by default: the activation dtype, FP16 for FP16 checkpoints, BF16 otherwise."""
    return "fp16" if model.native_dtype == "fp16" else "bf16"


def engine_kv_dtype(model: ModelSpec, overhead: OverheadModelBase, platform: DevicePlatform | None = None) -> str:
    """The KV-cache dtype an engine caches ``model`` in on ``platform`` when none is asked: its own default
    (:meth:`OverheadModelBase.kv_dtype_for`: llama.cpp's f16, ``--cache-type-k/v`` in common/common.h; an engine's
    own for some models on some devices), else :func:`serving_kv_dtype` (vLLM ``--kv-cache-dtype auto``)."""
    return overhead.kv_dtype_for(model, platform) or serving_kv_dtype(model)
