"""What to tell the buyer: the recommendation paragraph, and the overflow risk of one option."""

from __future__ import annotations

from collections import Counter
from typing import Literal

from planner.advisor.options import Option, Ranking
from planner.advisor.overflow import OverflowReport, overflow_report
from planner.advisor.support import ENGINE_LABELS
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


Verdict = Literal["met", "unverified", "none"]


def verdict(ranking: Ranking) -> Verdict:
    """``met``: the best set-up holds the target on hardware an engine runs, with its speed estimated from the
    memory and compute bounds (and any speed target checked); ``unverified``: it fits, but its speed could not
    be estimated (no compute figure); ``none``: nothing serves the workload."""
    best = ranking.best
    if best is None:
        return "none"
    return "met" if best.compute_known and best.decode_tokens_per_s_per_user is not None else "unverified"


def runner_up(ranking: Ranking) -> Option | None:
    """The best set-up on a different vendor or form factor than the recommendation (with a known speed first)."""
    best = ranking.best
    if best is None:
        return None
    for option in ranking.options[1:]:
        if option.purchase_kind != best.purchase_kind or option.vendor != best.vendor:
            return option
    return None


def assumptions_line(ranking: Ranking, option: Option) -> str:
    """The assumptions behind an option's figures, in one line: engine, batch, bandwidth share, memory."""
    engine = ENGINE_LABELS.get(option.engine, option.engine)
    return (
        f"Assumes: {engine} with {option.compute_path} matmuls; {option.batch_per_replica} conversations decoding "
        f"together per replica; {option.bandwidth_efficiency:.0%} of the memory bandwidth reached; "
        f"{option.memory_bytes_per_gpu / 2**30:,.0f} GiB planned per GPU; each conversation sized at its "
        f"{ranking.workload.plan_at} length."
    )


def _speed_text(best: Option) -> str:
    if best.decode_tokens_per_s_per_user is None:
        return (
            " Its speed is not estimated: the catalog has no compute figure for its arithmetic, so it is listed "
            "last (the memory bound alone would overstate it)."
        )
    slow = best.decode_tokens_per_s_per_user < DEFAULT_TOKENS_PER_S_PER_USER
    text = (
        f" Each user should see roughly {best.decode_tokens_per_s_per_user:.0f} tokens per second "
        f"({best.decode_bound}-bound at {best.batch_per_replica} conversations per replica)"
    )
    text += " (slower than reading speed)" if slow else ""
    if best.prefill_seconds is not None:
        text += f" and the first token after about {best.prefill_seconds:.2g} s for a typical prompt"
    return text + "."


def _cost_text(best: Option, cloud: bool) -> str:
    if best.cost is None:
        return " Its price is not in the catalog (rent-only), so cost could not be compared."
    if cloud:
        text = (
            f" It costs about {_money(best.usd_per_hour or 0)} per hour ({_money((best.usd_per_hour or 0) * 730)} a "
            f"month; {best.price_basis.removeprefix('cloud: ').split(' (')[0]})"
        )
    else:
        text = f" The GPUs cost about {_money(best.purchase_usd or 0)} (catalog prices, GPUs only)"
    if best.usd_per_million_output_tokens is not None:
        return text + f", about {_money(best.usd_per_million_output_tokens)} per million output tokens at that load."
    return text + "."


def recommendation(ranking: Ranking) -> str:
    """One paragraph a manager can read: what to buy and how it is sold, the engine, what it holds, how fast
    (memory or compute bound), what it costs, the runner-up on other hardware, the quality caveat and the
    assumptions."""
    w = ranking.workload
    target, context = ranking.target_concurrency, ranking.context_tokens
    best = ranking.best
    if best is None:
        counts = ranking.rejection_counts()
        common = ", ".join(f"{n:,} {reason.replace('-', ' ')}" for reason, n in Counter(counts).most_common(3))
        return (
            f"No set-up in the catalog serves {target:,} conversations of {context:,} tokens with "
            f"{ranking.model_id} under these conditions ({common}). Allow more GPUs, a lower weight precision or "
            "an FP8 KV cache, a shorter context, a larger budget, or split the users over several deployments."
        )
    cloud = w.pricing == "cloud"
    verb = "Rent" if cloud else "Buy"
    what = best.label if cloud else f"{best.purchase_unit} and run {best.label}"
    engine = ENGINE_LABELS.get(best.engine, best.engine)
    alt = runner_up(ranking)
    alternative = ""
    if alt is not None:
        alt_cost = "" if alt.cost is None else f" at {_money(alt.cost)}{' per hour' if cloud else ''}"
        alt_speed = (
            f", {alt.decode_tokens_per_s_per_user:.0f} tokens/s per user"
            if alt.decode_tokens_per_s_per_user is not None
            else ", speed not estimated"
        )
        alternative = f" Runner-up on other hardware: {alt.label} with {ENGINE_LABELS.get(alt.engine, alt.engine)}"
        alternative += f"{alt_cost}{alt_speed}."
    caveat = f" Quality: {best.quality_caveat}." if best.quality_caveat else ""
    return (
        f"{verb} {what}, served with {engine}. It holds {best.concurrency:,.0f} conversations of {context:,} tokens "
        f"at once against a target of {target:,} ({best.headroom:+.0%} headroom).{_speed_text(best)}"
        f"{_cost_text(best, cloud)}{alternative}{caveat} {assumptions_line(ranking, best)} Sizing each conversation "
        f"at its {w.plan_at} length leaves margin for long conversations; when the cache does fill, vLLM and "
        "SGLang pause and re-queue a request rather than fail."
    )
