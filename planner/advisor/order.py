"""The order the advisor ranks its options in (:func:`sort_options`): what counts compute first, then what no
caveat undermines, then the cheapest, with ties broken by what the reader sees."""

from __future__ import annotations

import math
from collections.abc import Callable

from planner.advisor.options import Option, SortKey

PRICE_PRECISION_USD = 100  # catalog prices are approximate to hundreds of dollars (HF's MSRPs, street prices)


def _sort_value(option: Option, sort_by: SortKey) -> float | None:
    if sort_by == "cost":
        return option.cost
    if sort_by == "cost_per_conversation":
        return option.usd_per_conversation
    return option.usd_per_million_output_tokens


def reply_seconds(option: Option, output_tokens: int) -> float:
    """How long a user waits for a reply of ``output_tokens`` tokens, from the figures as the page shows them: the
    first token (tenths of a second), then the rest at the whole tokens/s per user (``inf`` without a speed); a
    difference below what is shown is inside the speed model's error and invisible to the reader.

    >>> from types import SimpleNamespace as O
    >>> reply_seconds(O(prefill_seconds=26.15, decode_tokens_per_s_per_user=17.0), 300)  # doctest: +ELLIPSIS
    43.74...
    >>> reply_seconds(O(prefill_seconds=10.21, decode_tokens_per_s_per_user=16.0), 300)
    28.95
    """
    speed, first = option.decode_tokens_per_s_per_user, option.prefill_seconds
    if speed is None or round(speed) <= 0 or first is None:
        return math.inf
    return round(first, 1) + output_tokens / round(speed)


def sort_options(options: list[Option], sort_by: SortKey, output_tokens: int = 300) -> list[Option]:
    """Options whose speed counts compute first (a GPU without a compute figure is ranked last), then those no
    caveat undermines, then priced ones, then those with fewer undermining caveats, then cheapest by ``sort_by`` (a
    purchase's cost to the nearest :data:`PRICE_PRECISION_USD`: two $5,000 Macs $32 of power apart cost the same;
    an unpriced option by its GPU count, fewest first: eight unpriced H100s had outranked one for 8 users);
    ties: the reply a user waits for sooner (:func:`reply_seconds`: the first token, then ``output_tokens`` at the
    speed per user, as shown, in whole seconds: 17 tokens/s after a 26 s first token had outranked 16 after 10 s, an
    expert review; 15.26 s against 15.29 is no difference), more headroom, fewer GPUs, the label."""

    def group(o: Option) -> tuple[bool, bool, bool, int]:
        return (not o.compute_known, bool(o.undermining), _sort_value(o, sort_by) is None, len(o.undermining))

    def tie(o: Option) -> tuple[float, float, int, str]:
        reply = reply_seconds(o, output_tokens)
        return (round(reply) if math.isfinite(reply) else math.inf, -o.headroom, o.gpu_count, o.label)

    def value(o: Option) -> float:  # an unpriced option by its GPU count: the fewest first, as a price would
        found = _sort_value(o, sort_by)
        return float(o.gpu_count) if found is None else found

    ordered = sorted(options, key=lambda o: (*group(o), value(o), *tie(o)))
    if sort_by != "cost":
        return ordered
    return _ties_by_speed(ordered, group, tie)


def _ties_by_speed(
    ordered: list[Option], group: Callable[[Option], tuple[object, ...]], tie: Callable[[Option], tuple[object, ...]]
) -> list[Option]:
    """Runs of purchases in one caveat group within :data:`PRICE_PRECISION_USD` of the run's cheapest, re-ordered
    by the tie-break (the sooner reply first): two $5,000 Macs $33 of power apart cost the same, wherever the
    hundreds fall."""
    out: list[Option] = []
    run: list[Option] = []
    for o in ordered:
        priced = o.cost is not None and o.price_basis.startswith("purchase")
        if (
            run
            and priced
            and group(o) == group(run[0])
            and (o.cost or 0.0) - (run[0].cost or 0.0) <= PRICE_PRECISION_USD
        ):
            run.append(o)
            continue
        out += sorted(run, key=tie)
        run = [o] if priced else []
        if not priced:
            out.append(o)
    return out + sorted(run, key=tie)
