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


def sort_options(options: list[Option], sort_by: SortKey) -> list[Option]:
    """Options whose speed counts compute first (a GPU without a compute figure is ranked last), then those no
    caveat undermines, then priced ones, then those with fewer undermining caveats, then cheapest by ``sort_by`` (a
    purchase's cost to the nearest :data:`PRICE_PRECISION_USD`: two $5,000 Macs $32 of power apart cost the same;
    an unpriced option by its GPU count, fewest first: eight unpriced H100s had outranked one for 8 users);
    ties: faster per user as the page shows it (whole tokens/s: a difference below that is inside the speed model's
    error and invisible to the reader), more headroom, the first token sooner as shown (tenths of a second), fewer
    GPUs, the label."""

    def group(o: Option) -> tuple[bool, bool, bool, int]:
        return (not o.compute_known, bool(o.undermining), _sort_value(o, sort_by) is None, len(o.undermining))

    def tie(o: Option) -> tuple[float, float, float, int, str]:
        speed = -float(round(o.decode_tokens_per_s_per_user or 0.0))
        first = round(o.prefill_seconds, 1) if o.prefill_seconds is not None else math.inf
        return (speed, -o.headroom, first, o.gpu_count, o.label)

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
    by the tie-break (speed first): two $5,000 Macs $33 of power apart cost the same, wherever the hundreds fall."""
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
