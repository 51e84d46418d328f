"""SGLang, TensorRT-LLM and llama.cpp start-up lines: the fields of :class:`planner.sources.logs.ParsedLog` each
prints (``None`` when a log is not theirs)."""

from __future__ import annotations

from planner.core.units import GiB, MiB
from planner.sources.logscan import Lines, find_failure, number, pattern

Fields = dict[str, object]

_SG_POOL = pattern(r"KV Cache is allocated\. #tokens: NUM, K size: NUM GB, V size: NUM GB")
_SG_MLA_POOL = pattern(r"KV Cache is allocated\. #tokens: NUM, KV size: NUM GB")
_SG_TOTAL = pattern(r"max_total_num_tokens=NUM")
_SG_WEIGHTS = pattern(r"mem usage=NUM GB")
_SG_CONTEXT = pattern(r"context_len=NUM")
_SG_FRACTION = pattern(r"mem[-_]fraction[-_]static[= ]{1,3}NUM")


def parse_sglang(lines: Lines) -> Fields | None:
    fields: dict[str, object] = {}
    pool = lines.last("KV Cache is allocated", _SG_POOL)
    mla = lines.last("KV Cache is allocated", _SG_MLA_POOL)
    if pool:
        k, v = number(pool.group(2), "K size"), number(pool.group(3), "V size")
        fields.update(kv_cache_tokens=int(number(pool.group(1), "#tokens")), kv_cache_gib=k + v)
    elif mla:
        fields.update(kv_cache_tokens=int(number(mla.group(1), "#tokens")), kv_cache_gib=number(mla.group(2), "KV"))
    total = lines.number("max_total_num_tokens", _SG_TOTAL, "max_total_num_tokens")
    if total is not None:
        fields.setdefault("kv_cache_tokens", int(total))
    weights = lines.number("Load weight end", _SG_WEIGHTS, "mem usage")
    if weights is not None:
        fields["weights_gib"] = weights
    context = lines.number("context_len", _SG_CONTEXT, "context_len")
    if context is not None:
        fields["max_model_len"] = int(context)
    fraction = lines.number("fraction", _SG_FRACTION, "mem_fraction_static")
    if fraction is not None:
        fields["gpu_memory_utilization"] = fraction
    if "kv_cache_tokens" not in fields:
        return None
    failure = find_failure(lines)
    if failure is not None:
        fields.update(fails=True, failure_kind=failure[0], failure=failure[1])
    tokens = fields["kv_cache_tokens"]
    if isinstance(tokens, int) and context:
        fields.update(max_concurrency=tokens / context, max_concurrency_at_tokens=int(context))
    return {"format": "sglang", **fields}


_TRT_TOKENS = pattern(r"Using NUM tokens in paged KV cache")
_TRT_ALLOCATED = pattern(r"Allocated NUM GiB for max tokens in paged KV cache \(NUM\)")


def parse_trtllm(lines: Lines) -> Fields | None:
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


_LC_KV = pattern(r"CUDA0 KV buffer size = {0,20}NUM MiB")
_LC_SELF = pattern(r"KV self size {0,20}= {0,20}NUM MiB")
_LC_WEIGHTS = pattern(r"CUDA0 (?:model )?buffer size = {0,20}NUM MiB")
_LC_COMPUTE = pattern(r"CUDA0 compute buffer size = {0,20}NUM MiB")
_LC_CTX = pattern(r"n_ctx {0,20}= {0,20}NUM")


def parse_llamacpp(lines: Lines) -> Fields | None:
    kv = lines.number("KV buffer size", _LC_KV, "KV buffer size")
    if kv is None:
        kv = lines.number("KV self size", _LC_SELF, "KV self size")
    if kv is None:
        return None
    fields: dict[str, object] = {"kv_cache_gib": kv * MiB / GiB}
    weights = lines.number("buffer size", _LC_WEIGHTS, "model buffer size")
    if weights is not None:
        fields["weights_gib"] = weights * MiB / GiB
    compute = lines.number("compute buffer size", _LC_COMPUTE, "compute buffer size")
    if compute is not None:
        fields["compute_buffer_gib"] = compute * MiB / GiB
    n_ctx = lines.number("n_ctx", _LC_CTX, "n_ctx")
    if n_ctx is not None:
        fields.update(kv_cache_tokens=int(n_ctx), max_model_len=int(n_ctx))
    return {"format": "llamacpp", **fields}
