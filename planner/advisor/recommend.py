"""What to tell the buyer: the recommendation paragraph, and the overflow risk of one option."""

from __future__ import annotations

from collections import Counter

from planner.advisor.options import Option, Ranking
from planner.advisor.overflow import OverflowReport, overflow_report
from planner.advisor.workload import DEFAULT_TOKENS_PER_S_PER_USER, Workload


def overflow_for(option: Option, workload: Workload) -> OverflowReport:
    """Average or maximum for one option: its pool per replica, the target conversations, the distribution."""
    return overflow_report(
        option.kv_budget_tokens_per_replica,
        option.target_concurrency,
        workload.context,
        option.replicas,
        workload.shared_prefix_tokens,
    )


def _money(value: float) -> str:
    return f"${value:,.0f}" if value >= 100 else f"${value:,.2f}"


def recommendation(ranking: Ranking) -> str:
    """One paragraph a manager can read: what to buy, what it holds, how fast, what it costs, what to watch."""
    w = ranking.workload
    target, context = ranking.target_concurrency, ranking.context_tokens
    if not ranking.options:
        counts = ranking.rejection_counts()
        common = ", ".join(f"{n:,} {reason.replace('-', ' ')}" for reason, n in Counter(counts).most_common(3))
        return (
            f"No set-up in the catalog serves {target:,} conversations of {context:,} tokens with "
            f"{ranking.model_id} under these conditions ({common}). Allow more GPUs, a lower weight precision or "
            "an FP8 KV cache, a shorter context, a larger budget, or split the users over several deployments."
        )
    best = ranking.options[0]
    cloud = w.pricing == "cloud"
    if best.cost is None:
        cost_text = "Its price is not in the catalog, so cost could not be compared."
    elif cloud:
        cost_text = (
            f"It costs about {_money(best.usd_per_hour or 0)} per hour ({_money((best.usd_per_hour or 0) * 730)} a "
            f"month; {best.price_basis.removeprefix('cloud: ').split(' (')[0]})"
        )
    else:
        cost_text = f"The GPUs cost about {_money(best.purchase_usd or 0)} (catalog prices, GPUs only)"
    if best.cost is not None and best.usd_per_million_output_tokens is not None:
        cost_text += f", about {_money(best.usd_per_million_output_tokens)} per million output tokens at that load."
    elif best.cost is not None:
        cost_text += "."
    speed = ""
    if best.decode_tokens_per_s_per_user is not None:
        slow = best.decode_tokens_per_s_per_user < DEFAULT_TOKENS_PER_S_PER_USER
        speed = f" Each user should see roughly {best.decode_tokens_per_s_per_user:.0f} tokens per second"
        speed += " (slower than reading speed)" if slow else ""
        if best.prefill_seconds is not None:
            speed += f" and the first token after about {best.prefill_seconds:.2g} s for a typical prompt"
        speed += " (estimates, about ±10 % on NVIDIA GPUs)."
    alternative = ""
    others = sorted(
        (o for o in ranking.options[1:] if o.gpu_id != best.gpu_id),
        key=lambda o: o.cost is None and best.cost is not None,
    )
    if others:
        alt = others[0]
        alt_cost = "" if alt.cost is None else f" at {_money(alt.cost)}{' per hour' if cloud else ''}"
        alternative = f" The best set-up on other hardware is {alt.label}{alt_cost}."
    caveat = (
        " Sizing each conversation at its "
        f"{w.plan_at} length leaves margin for long conversations; when the cache does fill, vLLM and SGLang pause "
        "and re-queue a request rather than fail."
    )
    apple = (
        " It is Apple silicon: it runs llama.cpp or MLX rather than a datacenter engine, and its speed estimate "
        "is optimistic."
        if best.gpu_id.startswith("apple")
        else ""
    )
    verb = "Rent" if cloud else "Buy"
    return (
        f"{verb} {best.label}.{apple} It holds {best.concurrency:,.0f} conversations of {context:,} tokens at once "
        f"against a target of {target:,} ({best.headroom:+.0%} headroom). {cost_text}{speed}{alternative}{caveat}"
    )
