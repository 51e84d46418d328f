"""TensorRT-LLM's start-up lines the calibration reads: ``Using N tokens in paged KV cache`` and ``[MemUsageChange]
Allocated X GiB for max tokens in paged KV cache (N)`` (:meth:`planner.engines.trtllm.TrtllmEngine.parse_log`)."""

from __future__ import annotations

from planner.engines.logscan import Lines, number, pattern

_TRT_TOKENS = pattern(r"Using NUM tokens in paged KV cache")
_TRT_ALLOCATED = pattern(r"Allocated NUM GiB for max tokens in paged KV cache \(NUM\)")


def parse_trtllm(lines: Lines) -> dict[str, object] | None:
    tokens = lines.number("tokens in paged KV cache", _TRT_TOKENS, "tokens in paged KV cache")
    allocated = lines.last("for max tokens in paged KV cache", _TRT_ALLOCATED)
    if tokens is None and allocated is None:
        return None
    fields: dict[str, object] = {}
    if allocated:
        fields.update(
            kv_cache_gib=number(allocated.group(1), "paged KV cache GiB"),
            kv_cache_tokens=int(number(allocated.group(2), "paged KV cache tokens")),
        )
    if tokens is not None:
        fields["kv_cache_tokens"] = int(tokens)
    return {"format": "trtllm", **fields}
