"""The top picks as every surface lists them (the page, ``advise``'s table output and the HTML report): each pick
with what it buys and its whole-system price, then why each beats the next (:func:`planner.advisor.picks.top_picks`,
:func:`planner.advisor.recommend.why_beats`)."""

from __future__ import annotations

import itertools

from planner.advisor.options import Option, Ranking
from planner.advisor.picks import top_picks
from planner.advisor.recommend import cost_text, why_beats
from planner.advisor.speed_words import speed_text

PICKS_HEADING = "Top picks, and why each beats the next:"


def pick_line(position: int, option: Option, cloud: bool) -> str:
    """One pick: what is bought (the cards with the hosts that hold them, or the machine; a rental's set-up and
    offer), engine, precisions and split, the whole system's price (:func:`cost_text`: GPUs and hosts, with power
    over the life, or per hour), conversations held and the speed each user sees."""
    what = (
        f"{option.label}, {option.engine_label}, rented as {option.purchase_unit}"
        if cloud
        else f"{option.purchase_unit}, {option.engine_label}, {option.weights} weights / {option.kv_dtype} KV "
        f"({option.split_text})"
    )
    prefill = option.prefill_seconds
    first = "first token not estimated" if prefill is None else f"first token {prefill:.1f} s"
    return (
        f"{position}. {what}: {cost_text(option, cloud)}; holds {option.conversations:,}; {speed_text(option)}; {first}"
    )


def pick_lines(ranking: Ranking) -> list[str]:
    """The top picks, numbered, then why each beats the next (none without a recommendation)."""
    picks = top_picks(ranking)
    cloud, tokens = ranking.workload.pricing == "cloud", ranking.workload.mean_output_tokens
    numbered = [pick_line(i, o, cloud) for i, o in enumerate(picks, start=1)]
    return numbered + [why_beats(a, b, cloud, tokens) for a, b in itertools.pairwise(picks)]
