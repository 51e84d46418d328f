"""SGLang's start-up lines read back (``fit --log``, the Memory page's pasted log): the KV pool
('KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB', ``srt/model_executor/model_runner.py``), the
scheduler's ``max_total_num_tokens`` and ``context_len``, the weights' ``mem usage`` and ``mem_fraction_static``."""

from __future__ import annotations

from planner.engines.logscan import Lines, find_failure, number, pattern

# -- the start-up log: 'KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB' (model_runner.py) --
_SG_POOL = pattern(r"KV Cache is allocated\. #tokens: NUM, K size: NUM GB, V size: NUM GB")
_SG_MLA_POOL = pattern(r"KV Cache is allocated\. #tokens: NUM, KV size: NUM GB")
_SG_TOTAL = pattern(r"max_total_num_tokens=NUM")
_SG_WEIGHTS = pattern(r"mem usage=NUM GB")
_SG_CONTEXT = pattern(r"context_len=NUM")
_SG_FRACTION = pattern(r"mem[-_]fraction[-_]static[= ]{1,3}NUM")


def parse_sglang(lines: Lines) -> dict[str, object] | None:
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
