"""SGLang's start-up lines read back (``fit --log``, the Memory page's pasted log): the KV pool
('KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB', ``srt/model_executor/model_runner.py``), the
scheduler's ``max_total_num_tokens`` and ``context_len``, the weights' ``mem usage`` and ``mem_fraction_static``."""

from __future__ import annotations

from planner.engines.logscan import Lines, find_failure, number, pattern

# -- the start-up log: 'KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB' (model_runner.py); from 0.5.13
# with the dtype first ('KV Cache is allocated. dtype: torch.bfloat16, #tokens: ...', mem_cache/memory_pool.py) --
_DTYPE = r"(?:dtype: [\w.]+, )?"
_SG_POOL = pattern(rf"KV Cache is allocated\. {_DTYPE}#tokens: NUM, K size: NUM GB, V size: NUM GB")
_SG_MLA_POOL = pattern(rf"KV Cache is allocated\. {_DTYPE}#tokens: NUM, KV size: NUM GB")
_SG_TOTAL = pattern(r"max_total_num_tokens=NUM")
# -- the windowed layers' pool apart (0.5.8 on, planner.engines.sglang_pool): 'Use sliding window memory pool.
# full_layer_tokens=N, swa_layer_tokens=M', then one 'KV Cache is allocated' line a pool (labelled 'Full' / 'SWA' in
# some releases); the full pool's tokens are the scheduler's --
_SG_SPLIT = pattern(r"[Ss]liding window memory pool\. full_layer_tokens=NUM, swa_layer_tokens=NUM")
_SG_WEIGHTS = pattern(r"mem usage=NUM GB")
_SG_CONTEXT = pattern(r"context_len=NUM")
_SG_FRACTION = pattern(r"mem[-_]fraction[-_]static[= ]{1,3}NUM")


# The single figures, each read off its own line: (field, the line's anchor, its pattern, the figure's name, whole)
_FIGURES = (
    ("weights_gib", "Load weight end", _SG_WEIGHTS, "mem usage", False),
    ("max_model_len", "context_len", _SG_CONTEXT, "context_len", True),
    ("gpu_memory_utilization", "fraction", _SG_FRACTION, "mem_fraction_static", False),
)


def parse_sglang(lines: Lines) -> dict[str, object] | None:
    """The pool's tokens and size, the figures of :data:`_FIGURES` and the failure, if any; ``None`` without a
    pool line."""
    fields: dict[str, object] = {}
    pool = lines.last("KV Cache is allocated", _SG_POOL)
    mla = lines.last("KV Cache is allocated", _SG_MLA_POOL)
    split = lines.last("memory pool", _SG_SPLIT)
    if split:
        fields.update(_split_pools(lines, int(number(split.group(1), "full")), int(number(split.group(2), "swa"))))
    elif pool:
        k, v = number(pool.group(2), "K size"), number(pool.group(3), "V size")
        fields.update(kv_cache_tokens=int(number(pool.group(1), "#tokens")), kv_cache_gib=k + v)
    elif mla:
        fields.update(kv_cache_tokens=int(number(mla.group(1), "#tokens")), kv_cache_gib=number(mla.group(2), "KV"))
    total = lines.number("max_total_num_tokens", _SG_TOTAL, "max_total_num_tokens")
    if total is not None:
        fields.setdefault("kv_cache_tokens", int(total))
    for field, anchor, found, name, whole in _FIGURES:
        value = lines.number(anchor, found, name)
        if value is not None:
            fields[field] = int(value) if whole else value
    if "kv_cache_tokens" not in fields:
        return None
    failure = find_failure(lines)
    if failure is not None:
        fields.update(fails=True, failure_kind=failure[0], failure=failure[1])
    tokens, context = fields["kv_cache_tokens"], fields.get("max_model_len")
    if isinstance(tokens, int) and isinstance(context, int) and context:
        fields.update(max_concurrency=tokens / context, max_concurrency_at_tokens=context)
    return {"format": "sglang", **fields}


def _split_pools(lines: Lines, full: int, swa: int) -> dict[str, object]:
    """A split pool's figures: the full pool's tokens, and both pools' size (their last 'KV Cache is allocated'
    lines, told apart by their token counts)."""
    sizes: dict[int, float] = {}
    for found in lines.matches("KV Cache is allocated", _SG_POOL):
        size = number(found.group(2), "K size") + number(found.group(3), "V size")
        sizes.setdefault(int(number(found.group(1), "#tokens")), size)  # the last line of each count
    fields: dict[str, object] = {"kv_cache_tokens": full}
    if full != swa and full in sizes and swa in sizes:  # equal counts (a ratio of 1) cannot be told apart
        fields["kv_cache_gib"] = sizes[full] + sizes[swa]
    return fields
