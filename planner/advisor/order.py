"""The order the advisor ranks its options in (:func:`sort_options`): what counts compute first, then what no
caveat undermines, then the cheapest, with ties broken by what the reader sees."""

from __future__ import annotations

import math

from planner.advisor.options import Option, SortKey

PRICE_PRECISION_USD = 100  # catalog prices are approximate to hundreds of dollars (HF's MSRPs, street prices)


def _sort_value(option: Option, sort_by: SortKey) -> float | None:
    if sort_by == "cost" and option.cost is not None and option.price_basis.startswith("purchase"):
        return round(option.cost / PRICE_PRECISION_USD) * PRICE_PRECISION_USD  # a few dollars of power decide nothing
    if sort_by == "cost":
        return option.cost
    if sort_by == "cost_per_conversation":
        return option.usd_per_conversation
    return option.usd_per_million_output_tokens


def sort_options(options: list[Option], sort_by: SortKey) -> list[Option]:
    """Options whose speed counts compute first (a GPU without a compute figure is ranked last), then those no
    caveat undermines, then priced ones, then those with fewer undermining caveats, then cheapest by ``sort_by`` (a
    purchase's cost to the nearest :data:`PRICE_PRECISION_USD`: two $5,000 Macs $32 of power apart cost the same);
    ties: faster per user as the page shows it (whole tokens/s: a difference below that is inside the speed model's
    error and invisible to the reader), more headroom, the first token sooner as shown (tenths of a second), fewer
    GPUs, the label."""

    def key(o: Option) -> tuple[bool, bool, bool, int, float, float, float, float, int, str]:
        value = _sort_value(o, sort_by)
        speed = -float(round(o.decode_tokens_per_s_per_user or 0.0))
        first = round(o.prefill_seconds, 1) if o.prefill_seconds is not None else math.inf
        return (
            not o.compute_known,
            bool(o.undermining),
            value is None,
            len(o.undermining),
            value or 0.0,
            speed,
            -o.headroom,
            first,
            o.gpu_count,
            o.label,
        )

    return sorted(options, key=key)
