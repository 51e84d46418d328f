"""Number formats of the KV cache, as bits per stored value with their scales (one name per format, the same in
the command line, the URL and the dashboard). Which engine stores which format is the engine's to say
(:mod:`planner.engines`); this table says what each format costs.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from planner.bounds.errors import PlannerError

KvDtype = Literal["fp32", "bf16", "fp16", "fp8", "fp8_e4m3", "fp8_e5m2", "int8", "int4"]


class KvFormat(BaseModel, frozen=True, extra="forbid"):
    """A KV-cache storage format: bits per cached value, scale overhead included."""

    name: str
    label: str
    bits_per_value: Annotated[float, Field(gt=0, le=32)]
    quality_note: str
    source: str


KV_FORMATS: dict[str, KvFormat] = {
    f.name: f
    for f in [
        KvFormat(
            name="fp32",
            label="FP32",
            bits_per_value=32,
            quality_note="No benefit for serving.",
            source="vLLM --kv-cache-dtype float32 (4 bytes, kv_cache_interface.py dtype size).",
        ),
        KvFormat(
            name="bf16",
            label="BF16",
            bits_per_value=16,
            quality_note="The default: the model's own dtype.",
            source="vLLM --kv-cache-dtype auto on a BF16 model: 2 bytes per value.",
        ),
        KvFormat(
            name="fp16",
            label="FP16",
            bits_per_value=16,
            quality_note="Same size as BF16.",
            source="2 bytes per value (The Memory Math of Serving a Model formula with fp16).",
        ),
        KvFormat(
            name="fp8",
            label="FP8",
            bits_per_value=8,
            quality_note="Halves the cache with negligible loss on most models (The Memory Math of Serving a Model).",
            source="vLLM --kv-cache-dtype fp8 (e4m3 on CUDA): 1 byte per value, per-tensor scales only.",
        ),
        KvFormat(
            name="fp8_e4m3",
            label="FP8 e4m3",
            bits_per_value=8,
            quality_note="As fp8; more mantissa.",
            source="vLLM --kv-cache-dtype fp8_e4m3: 1 byte per value.",
        ),
        KvFormat(
            name="fp8_e5m2",
            label="FP8 e5m2",
            bits_per_value=8,
            quality_note="As fp8; more range, less precision.",
            source="vLLM --kv-cache-dtype fp8_e5m2: 1 byte per value.",
        ),
        KvFormat(
            name="int8",
            label="INT8 (q8_0)",
            bits_per_value=8.5,
            quality_note="Near-lossless (llama.cpp q8_0 cache).",
            source="llama.cpp --cache-type-k/v q8_0: 34 bytes per 32 values = 8.5 bits (ggml block_q8_0).",
        ),
        KvFormat(
            name="int4",
            label="INT4 (q4_0)",
            bits_per_value=4.5,
            quality_note="Measurable loss on long contexts; llama.cpp q4_0 cache.",
            source="llama.cpp --cache-type-k/v q4_0: 18 bytes per 32 values = 4.5 bits (ggml block_q4_0).",
        ),
    ]
}


def kv_format(name: str) -> KvFormat:
    """The KV-cache format called ``name`` (``bf16``, ``fp8``, ``int4``, …).

    >>> kv_format("fp8").bits_per_value, kv_format("int8").bits_per_value
    (8.0, 8.5)
    >>> kv_format("fp4")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    planner.bounds.errors.PlannerError: kv_dtype: unknown KV cache dtype 'fp4'; choose one of fp32, bf16, ...
    """
    try:
        return KV_FORMATS[name]
    except KeyError:
        raise PlannerError(
            f"kv_dtype: unknown KV cache dtype {name!r}; choose one of {', '.join(KV_FORMATS)}"
        ) from None
