"""When nothing is left, what decided it: the set-ups that serve the workload (they fit and hold the target) but
that one of the buyer's own conditions left out (a speed target, the budget, a missing price), each condition with
how many it left out and the set-up closest to passing it. A buyer told "176 over budget; the cheapest is $27,400"
knows what to change; "305 does not fit, 176 over budget" mostly counts set-ups too small for the model.

>>> spend_text(27_400.0, "purchase"), spend_text(9_125.0, "cloud")
('$27,400', '$9,125 per month')
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from planner.advisor.costs import HOURS_PER_MONTH
from planner.advisor.options import FilterReason, NearMiss, Option
from planner.advisor.workload import Workload

ORDER: tuple[FilterReason, ...] = ("over-budget", "latency-target-missed", "unknown-price")


def spend(option: Option, workload: Workload) -> float:
    """What the budget is compared with (:func:`planner.advisor.ranking.filter_reason`): the purchase price (what
    the buyer pays; the CLI's and the page's help say so: power over the life is the TCO, ranked by, not budgeted),
    a month of a rental."""
    if workload.pricing == "purchase":
        return option.purchase_usd or 0.0
    return (option.cost or 0.0) * HOURS_PER_MONTH


def spend_text(value: float, pricing: str) -> str:
    return f"${value:,.0f}" + ("" if pricing == "purchase" else " per month")


def shortfall(option: Option, workload: Workload) -> float:
    """How far ``option`` is from the speed targets: the larger of (its first-token time / the target) and (the
    target tokens/s per user / its own); 1 or less meets both."""
    ratios = [1.0]
    ttft, floor = workload.max_time_to_first_token_s, workload.min_tokens_per_s_per_user
    if ttft is not None and option.prefill_seconds is not None:
        ratios.append(option.prefill_seconds / ttft)
    if floor is not None and option.decode_tokens_per_s_per_user is not None:
        ratios.append(floor / max(option.decode_tokens_per_s_per_user, 1e-9))
    return max(ratios)


def near_misses(filtered: Sequence[tuple[FilterReason, Option]], workload: Workload) -> tuple[NearMiss, ...]:
    """Per condition, how many set-ups it left out and the closest: the cheapest over the budget, the fastest
    (smallest :func:`shortfall`) under a speed target, the one holding most among the unpriced. The condition that
    left out most comes first."""
    by_reason: dict[FilterReason, list[Option]] = defaultdict(list)
    for reason, option in filtered:
        by_reason[reason].append(option)
    closest = {  # of two equally close, the one without a quality caveat (4-bit weights) is named
        "over-budget": lambda os: min(os, key=lambda o: (spend(o, workload), o.quality_caveat is not None)),
        "latency-target-missed": lambda os: min(
            os, key=lambda o: (shortfall(o, workload), o.quality_caveat is not None)
        ),
        "unknown-price": lambda os: max(os, key=lambda o: (o.conversations, o.quality_caveat is None)),
    }
    found = [
        NearMiss(reason=reason, count=len(by_reason[reason]), closest=closest[reason](by_reason[reason]))
        for reason in ORDER
        if by_reason[reason]
    ]
    return tuple(sorted(found, key=lambda m: -m.count))


def _speed_targets(workload: Workload) -> str:
    targets = []
    if workload.min_tokens_per_s_per_user is not None:
        targets.append(f"{workload.min_tokens_per_s_per_user:g} tokens/s per user")
    if workload.max_time_to_first_token_s is not None:
        targets.append(f"{workload.max_time_to_first_token_s:g} s to the first token")
    return " and ".join(targets)


def _rate(tokens_per_s: float) -> str:
    """A speed that misses a floor, rounded down (9.98 tokens/s is not "10.0" against a floor of 10).

    >>> _rate(9.98), _rate(12.0)
    ('9.9 tokens/s per user', '12.0 tokens/s per user')
    """
    return f"{math.floor(tokens_per_s * 10) / 10:.1f} tokens/s per user"


def _wait(seconds: float) -> str:
    """A first-token time that misses a ceiling, rounded up.

    >>> _wait(6.001), _wait(73.74)
    ('6.01 s to the first token', '73.74 s to the first token')
    """
    return f"{math.ceil(round(seconds * 100, 6)) / 100:.2f} s to the first token"


def _speed_of(option: Option) -> str:
    figures = []
    if option.decode_tokens_per_s_per_user is not None:
        figures.append(_rate(option.decode_tokens_per_s_per_user))
    if option.prefill_seconds is not None:
        figures.append(_wait(option.prefill_seconds))
    return ", ".join(figures) or "speed not estimated"


def _targets_at(option: Option, workload: Workload) -> str:
    """The buyer's own speed targets set at ``option``'s figures: only the targets given (a tokens/s floor is not
    answered with a first-token time nobody asked for)."""
    targets = []
    if workload.min_tokens_per_s_per_user is not None and option.decode_tokens_per_s_per_user is not None:
        targets.append(_rate(option.decode_tokens_per_s_per_user))
    if workload.max_time_to_first_token_s is not None and option.prefill_seconds is not None:
        targets.append(_wait(option.prefill_seconds))
    return " and ".join(targets) or _speed_of(option)


# Each condition in a few words (a headline's "199 more have no dated price ..."); :func:`clause` says it in full
CONDITION_WORDS: dict[FilterReason, str] = {
    "over-budget": "cost more than the budget",
    "latency-target-missed": "miss the speed target",
    "unknown-price": "have no dated price to check against the budget",
}


def short_clause(miss: NearMiss) -> str:
    """What one condition left out, in a few words (:data:`CONDITION_WORDS`)."""
    return CONDITION_WORDS[miss.reason]


def clause(miss: NearMiss, workload: Workload) -> str:
    """What one condition left out, in a clause: the count, the condition, the closest set-up and its figure."""
    o = miss.closest
    if miss.reason == "over-budget":
        budget = spend_text(workload.budget_usd or 0.0, workload.pricing)
        price = spend_text(spend(o, workload), workload.pricing)
        return f"cost more than the {budget} budget (the cheapest, {o.label}, {price})"
    if miss.reason == "latency-target-missed":
        return f"miss the speed target of {_speed_targets(workload)} (the closest, {o.label}: {_speed_of(o)})"
    return f"{CONDITION_WORDS['unknown-price']} (among them {o.label})"


def remedy(miss: NearMiss, workload: Workload) -> str:
    """What would let the closest set-up through."""
    o = miss.closest
    if miss.reason == "over-budget":
        verb = "buys" if workload.pricing == "purchase" else "rents"
        return f"a budget of {spend_text(spend(o, workload), workload.pricing)} {verb} {o.label}"
    if miss.reason == "latency-target-missed":
        admits = f"a speed target of {_targets_at(o, workload)} admits {o.label}"
        budget = workload.budget_usd
        if budget is not None and o.cost is None:  # the other condition still stands
            return f"{admits}, which has no dated price to check against the budget"
        if budget is not None and spend(o, workload) > budget:
            return f"{admits}, which costs {spend_text(spend(o, workload), workload.pricing)}: over the budget too"
        return admits
    return "without a budget the unpriced set-ups are shown, marked price unknown"
