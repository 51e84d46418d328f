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


def _closest(reason: FilterReason, options: Sequence[Option], workload: Workload) -> Option:
    """The set-up closest to passing ``reason``: the cheapest over the budget, the fastest (smallest
    :func:`shortfall`) under a speed target, the one holding most among the unpriced; of two equally close, the one
    without a quality caveat."""
    if reason == "over-budget":
        return min(options, key=lambda o: (spend(o, workload), o.quality_caveat is not None))
    if reason == "latency-target-missed":
        return min(options, key=lambda o: (shortfall(o, workload), o.quality_caveat is not None))
    return max(options, key=lambda o: (o.conversations, o.quality_caveat is None))


def _closer(reason: FilterReason, a: Option, b: Option, workload: Workload) -> bool:
    """Whether ``a`` is strictly closer than ``b`` to passing ``reason`` (a missing price: neither is)."""
    if reason == "over-budget":
        return spend(a, workload) < spend(b, workload)
    return reason == "latency-target-missed" and shortfall(a, workload) < shortfall(b, workload)


def near_misses(
    filtered: Sequence[tuple[FilterReason, Option]],
    workload: Workload,
    four_bit: Sequence[tuple[FilterReason, Option]] = (),
) -> tuple[NearMiss, ...]:
    """Per condition, how many set-ups it left out (``filtered`` at the default precisions and ``four_bit``, the 4-bit
    fallback's) and the closest (:func:`_closest`) at the default precisions, with the closest 4-bit one where it
    is closer: the budget to raise to is that of a set-up at the model's own precision or 8 bits (a buyer's review,
    2026-12-06: "a budget of $11,996 buys 4 x Arc Pro B60, int4-awq weights" where two RTX A5000s in FP8 hold the
    workload for $14,500); a 4-bit one only where no other serves. The condition that left out most comes first."""
    by_reason: dict[FilterReason, list[Option]] = defaultdict(list)
    four_by_reason: dict[FilterReason, list[Option]] = defaultdict(list)
    for reason, option in filtered:
        by_reason[reason].append(option)
    for reason, option in four_bit:
        four_by_reason[reason].append(option)
    found = []
    for reason in ORDER:
        mine, fours = by_reason[reason], four_by_reason[reason]
        if not mine and not fours:
            continue
        closest = _closest(reason, mine or fours, workload)
        four = _closest(reason, fours, workload) if fours else None
        if four is not None and mine and not _closer(reason, four, closest, workload):
            four = None
        found.append(NearMiss(reason=reason, count=len(mine) + len(fours), closest=closest, four_bit=four))
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


def four_bit_caveats(o: Option) -> str:
    """What a 4-bit set-up named as a near miss carries: its quality caveat, then what undermines it."""
    return "; ".join(c for c in (o.quality_caveat, *o.undermining) if c)


def _named(o: Option, miss: NearMiss, caveats: bool = False) -> str:
    """A set-up as the text names it: its label, said to be 4-bit (with its caveats, asked) where it is the 4-bit
    fallback's."""
    if miss.four_bit is None or o != miss.four_bit:
        return o.label
    return f"a 4-bit set-up, {o.label}" + (f" (caveats: {four_bit_caveats(o)})" if caveats else "")


def clause(miss: NearMiss, workload: Workload) -> str:
    """What one condition left out, in a clause: the count, the condition, the closest set-up and its figure (and
    the closest 4-bit one's, where it is closer)."""
    o, four = miss.closest, miss.four_bit
    beside = four is not None and four != o  # a 4-bit set-up closer than the closest at the default precisions
    if miss.reason == "over-budget":
        budget = spend_text(workload.budget_usd or 0.0, workload.pricing)
        price = spend_text(spend(o, workload), workload.pricing)
        if four is not None and beside:
            cheaper = spend_text(spend(four, workload), workload.pricing)
            return (
                f"cost more than the {budget} budget (the cheapest without 4-bit weights, {o.label}, {price}; with "
                f"them, {four.label}, {cheaper})"
            )
        return f"cost more than the {budget} budget (the cheapest, {_named(o, miss)}, {price})"
    if miss.reason == "latency-target-missed":
        closest = f"the closest, {_named(o, miss)}: {_speed_of(o)}"
        if four is not None and beside:
            closest = (
                f"the closest without 4-bit weights, {o.label}: {_speed_of(o)}; with them, {four.label}: "
                f"{_speed_of(four)}"
            )
        return f"miss the speed target of {_speed_targets(workload)} ({closest})"
    return f"{CONDITION_WORDS['unknown-price']} (among them {_named(o, miss)})"


def remedy(miss: NearMiss, workload: Workload) -> str:
    """What would let the closest set-up through; where a 4-bit set-up is closer, what would let it through too,
    named as 4-bit with its caveats."""
    text = _remedy(miss.closest, miss, workload)
    four = miss.four_bit
    if four is not None and four != miss.closest and miss.reason != "unknown-price":
        text += f"; {_remedy(four, miss, workload)}"
    return text


def _remedy(o: Option, miss: NearMiss, workload: Workload) -> str:
    named = _named(o, miss, caveats=True)
    if miss.reason == "over-budget":
        verb = "buys" if workload.pricing == "purchase" else "rents"
        return f"a budget of {spend_text(spend(o, workload), workload.pricing)} {verb} {named}"
    if miss.reason == "latency-target-missed":
        admits = f"a speed target of {_targets_at(o, workload)} admits {named}"
        budget = workload.budget_usd
        if budget is not None and o.cost is None:  # the other condition still stands
            return f"{admits}, which has no dated price to check against the budget"
        if budget is not None and spend(o, workload) > budget:
            return f"{admits}, which costs {spend_text(spend(o, workload), workload.pricing)}: over the budget too"
        return admits
    return "without a budget the unpriced set-ups are shown, marked price unknown"
