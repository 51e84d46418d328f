"""Why nothing serves a workload whose KV cache alone is beyond every set-up ranked: the advice had named "the first"
rejection, a single 24 GB card in BF16 ("weights and working memory exceed 22.1 GiB per GPU by 739.31 GiB") for
Llama-3.1-405B and 5,000 conversations of 32,768 tokens, where the binding fact is that their KV cache needs 85 TB
(an outside review, 2026-12-05).

The cache is each conversation's bytes at the context (:func:`planner.core.kv.kv_bytes_per_sequence`: window caps
and fixed states counted) in the smallest KV dtype the ranking tried, times the target; the largest set-up is the
most GPUs of the GPU with the most memory (:attr:`GpuSpec.memory_bytes`), before any weights are loaded. A lower bound
on the servers it takes: the cache alone, over that memory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from planner.core.gpu import GpuSpec
from planner.core.kv import kv_bytes_per_sequence
from planner.core.kv_formats import kv_format
from planner.core.model import ModelSpec


def _per_token(first: int, whole: int, context: int) -> str:
    """The bytes a token that make the total: the first token's where every layer grows with the context, else the
    mean over the conversation (windowed layers hold their window, state layers a fixed state: the first token's
    figure times the tokens would overstate the need; gpt-oss-120b in FP8, 36,864 a token at first, 18,504 on average
    over 32,768 tokens).

    >>> _per_token(258_048, 258_048 * 32_768, 32_768)
    '258,048 bytes a token'
    >>> _per_token(36_864, 606_339_072, 32_768)
    '18,504 bytes a token on average over 32,768 tokens, its sliding-window and state layers capped'
    """
    if whole == first * context:
        return f"{first:,} bytes a token"
    mean = round(whole / context)
    return f"{mean:,} bytes a token on average over {context:,} tokens, its sliding-window and state layers capped"


def beyond_reach(
    model: ModelSpec,
    context: int,
    target: int,
    kv_dtypes: Sequence[str],
    gpus: Sequence[GpuSpec],
    counts: Sequence[int],
) -> str | None:
    """Where ``target`` conversations of ``context`` tokens need more KV cache than all the memory of the largest
    set-up ranked, that and the fewest such servers it takes; ``None`` otherwise (or with no GPU or KV dtype).

    >>> from model_catalog import get_gpu, get_model
    >>> model, b300 = get_model("meta-llama/Llama-3.1-405B").spec, get_gpu("b300-sxm")
    >>> words = beyond_reach(model, 32_768, 5_000, ["bf16", "fp8"], [b300], [1, 2, 4, 8])
    >>> print(words)  # doctest: +NORMALIZE_WHITESPACE
    their KV cache alone needs 42.3 TB in FP8 (258,048 bytes a token), more than all the 2.3 TB of memory of the
    largest set-up ranked (8 x B300 (Blackwell Ultra, HGX B300)): split the users over at least 19 such servers
    >>> beyond_reach(model, 32_768, 50, ["fp8"], [b300], [8]) is None
    True
    """
    if not gpus or not kv_dtypes or not counts or target < 1:
        return None
    smallest = min(kv_dtypes, key=lambda kv: kv_format(kv).bits_per_value)
    per_token, per_conversation = (
        kv_bytes_per_sequence(model, smallest, 1),
        kv_bytes_per_sequence(model, smallest, context),
    )
    need = per_conversation * target
    gpu, count = max(gpus, key=lambda g: g.memory_bytes), max(counts)
    have = gpu.memory_bytes * count
    if need <= have:
        return None
    bytes_a_token = _per_token(per_token, per_conversation, context)
    return (
        f"their KV cache alone needs {need / 1e12:,.1f} TB in {kv_format(smallest).label} ({bytes_a_token}), more "
        f"than all the {have / 1e12:,.1f} TB of memory of the largest set-up ranked ({count} x {gpu.name}): "
        f"split the users over at least {math.ceil(need / have):,} such servers"
    )
