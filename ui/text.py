"""Words and numbers for people: the verdict a manager can paste into an email, and unit formatting.

Pure functions of planner results; every memory figure names its unit (GiB = 2^30 bytes, GB = 10^9).
"""

from __future__ import annotations

import math

from planner.gpu import GpuSpec
from planner.plan import PlanResult
from planner.units import format_bytes, format_tokens


def context_label(tokens: int) -> str:
    """``32768 -> '32k'``, ``8192 -> '8k'``, ``5000 -> '5,000'`` (k = 1,024 tokens, as context sizes are quoted)."""
    if tokens >= 1024 and tokens % 1024 == 0:
        return f"{tokens // 1024}k"
    return f"{tokens:,}"


def mem(n_bytes: float, unit: str) -> str:
    """A memory figure in the chosen unit, one decimal for readability: ``'74.2 GiB'``."""
    return format_bytes(n_bytes, unit, digits=1 if abs(n_bytes) >= 10 * 2**30 else 2)


def setup_label(result: PlanResult, gpu: GpuSpec | None) -> str:
    """``'2 × H100 SXM5 80GB'``."""
    name = gpu.name if gpu is not None else f"{result.per_gpu.gpu_memory_bytes / 1e9:g} GB GPU"
    return f"{result.gpu_count} × {name}"


def conversations(result: PlanResult) -> int:
    """Whole conversations of the chosen context the deployment holds at once (paged allocation)."""
    return max(0, math.floor(result.max_concurrency + 1e-9))


def verdict(result: PlanResult, model_name: str, gpu: GpuSpec | None, unit: str, users: int | None = None) -> str:
    """One plain sentence (two when a target is given), with the numbers on the page."""
    where = setup_label(result, gpu)
    precision = result.weights.upper()
    context = context_label(result.context_tokens)
    if result.fit_status == "weights-do-not-fit":
        short = -result.per_gpu.headroom_bytes
        return (
            f"{model_name} in {precision} does not fit on {where}: weights and working memory need "
            f"{mem(short, unit)} more per GPU than the {mem(result.per_gpu.gpu_memory_bytes, unit)} each GPU has."
        )
    tokens = format_tokens(result.kv_budget_tokens)
    if result.fit_status == "no-room-for-one-sequence":
        return (
            f"{model_name} in {precision} loads on {where}, but its {tokens} tokens of KV cache cannot hold "
            f"one conversation of {context} tokens."
        )
    count = conversations(result)
    text = (
        f"{model_name} in {precision} on {where} holds {tokens} tokens of KV cache: "
        f"{count:,} concurrent conversation{'s' if count != 1 else ''} of {context} tokens."
    )
    if users:
        if count >= users:
            text += f" That covers the target of {users:,} users with {count - users:,} to spare."
        else:
            text += f" That is {users - count:,} short of the target of {users:,} users."
    return text
