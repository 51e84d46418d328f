"""The advice's top picks: the best option of each of the first GPU models, within reach of the best's cost, none
that another option beats on every figure a buyer compares (:func:`dominates`)."""

from __future__ import annotations

from collections.abc import Sequence

from planner.advisor.option_warnings import SPEED_MARGIN
from planner.advisor.options import Option, Ranking
from planner.advisor.order import PRICE_PRECISION_USD

# An alternative or a pick after the first costs at most this many times the recommendation: beyond it, it answers
# another budget (a $190,000 baseboard beside an $11,000 card for one user: an outside review, 2026-12-05).
ALTERNATIVE_COST_RATIO = 3.0


def within_reach(option: Option, best: Option) -> bool:
    """Whether ``option`` costs at most :data:`ALTERNATIVE_COST_RATIO` times ``best`` (unknown costs: not)."""
    return option.cost is not None and best.cost is not None and option.cost <= ALTERNATIVE_COST_RATIO * best.cost


def _cost_shown(o: Option) -> float:
    """The cost as a reader compares it: a purchase to the nearest :data:`PRICE_PRECISION_USD`, a rental (dollars
    an hour) to the cent (hundreds of dollars had made every rental under $50 an hour one price)."""
    cost = o.cost or 0.0
    return round(cost / PRICE_PRECISION_USD) if o.price_basis.startswith("purchase") else round(cost, 2)


def _shown(o: Option) -> tuple[float, int, int, float]:
    """An option's figures at the precision a reader sees them (the tie-break's: the cost as compared, whole
    conversations and tokens/s, tenths of a second): cost, -conversations, -tokens/s, first token. The tokens/s are
    the ones the option is checked against (:attr:`Option.counted_tokens_per_s_per_user`: the modelled speed, at
    most what public runs of the model on its engine reached, as the speed floor reads it in
    :func:`planner.advisor.ranking.filter_reason`): four RTX A5000s at "95 tokens/s modelled (at most ~67 as public
    runs measure)" had been a pick beside one RTX PRO 6000 at 87 that costs less and holds more (an outside review,
    2026-12-06)."""
    speed = round(o.counted_tokens_per_s_per_user or 0.0)
    first = round(o.prefill_seconds, 1) if o.prefill_seconds is not None else float("inf")
    return _cost_shown(o), -o.conversations, -speed, first


def dominates(a: Option, b: Option) -> bool:
    """Whether ``a`` is at least as good as ``b`` on every figure a buyer compares (cost, conversations held, tokens/s
    per user as checked, first token, caveats: :func:`_shown`), at the precision they are shown, and better on one:
    nobody would buy ``b`` with ``a`` on offer."""
    if a.cost is None or b.cost is None or len(a.undermining) > len(b.undermining):
        return False
    mine, theirs = _shown(a), _shown(b)
    return all(x <= y for x, y in zip(mine, theirs, strict=True)) and mine != theirs


class Dominance:
    """Which options another :func:`dominates`, asked of many: each option's figures as shown (:func:`_shown`)
    made once and sorted by cost, so a question scans only the options that cost no more (the recommendation's
    alternatives had asked :func:`dominates` ~15,000 times, 58 ms, for one text: ``make bench``)."""

    def __init__(self, options: Sequence[Option]) -> None:
        priced = [(_shown(o), len(o.undermining)) for o in options if o.cost is not None]
        self._figures = sorted(priced)

    def beaten(self, option: Option) -> bool:
        """``any(dominates(other, option) for other in options)``."""
        if option.cost is None:
            return False
        mine, caveats = _shown(option), len(option.undermining)
        for theirs, their_caveats in self._figures:
            if theirs[0] > mine[0]:
                return False  # sorted by the cost shown: no cheaper one is left
            if their_caveats <= caveats and theirs != mine and all(x <= y for x, y in zip(theirs, mine, strict=True)):
                return True
        return False


# Where fewer than three picks are within reach, the nearest beyond it that no option beats on every figure are
# shown up to this many times the recommendation's cost (the performance pick: eight RTX 5090s at $99,028 beside
# two RTX PRO 6000s at $32,095 for gpt-oss-120b), never a purchase an order of magnitude larger (four H100s at
# $190,142 beside an $11,284 card for one user: an outside review, 2026-12-05).
PICK_COST_RATIO = 10.0


def faster(a: Option, b: Option) -> bool:
    """Whether ``a`` runs faster per user than ``b`` on the tokens/s each is checked against
    (:attr:`Option.counted_tokens_per_s_per_user`), in the whole tokens/s a reader sees, by more than the speed
    model's typical error (:data:`planner.advisor.option_warnings.SPEED_MARGIN`): eight L40s at 94 tokens/s per user
    and $108,499 had become the performance pick for gpt-oss-120b beside one RTX PRO 6000 at 87 and $21,949, a
    difference the model cannot tell from none."""
    mine, theirs = round(a.counted_tokens_per_s_per_user or 0.0), round(b.counted_tokens_per_s_per_user or 0.0)
    return mine > theirs * SPEED_MARGIN


def _worth_showing(option: Option, best: Option, index: Dominance, ratio: float) -> bool:
    """Priced, at most ``ratio`` times the best's cost, and no other option :func:`dominates` it; beyond
    :func:`within_reach`, also :func:`faster` than the best: the performance pick that ratio is for (four A100s under
    SGLang at 3.9 x two RTX PRO 6000s' cost, at most 15 tokens/s per user against 30 as public runs of the model on
    that engine measure, had been a pick for one conversation more and a sooner first token: an outside review,
    2026-12-06)."""
    if option.cost is None or best.cost is None or option.cost > ratio * best.cost:
        return False
    if not within_reach(option, best) and not faster(option, best):
        return False
    return not index.beaten(option)


def top_picks(ranking: Ranking, n: int = 3) -> list[Option]:
    """The best option of each of the first ``n`` GPU models (variants of one GPU, and editions of one card, are one
    pick: :attr:`Option.gpu_card`); after the first, priced ones that no other option :func:`dominates` (eight L4s
    had been a pick beside four RTX PRO 6000s that cost less, hold more and run faster: an outside review,
    2026-12-05), :func:`within_reach` of the first, then, to make ``n``, up to :data:`PICK_COST_RATIO` times its
    cost those :func:`faster` than the first. Where the best has no price, the first of each GPU model (ranked by
    GPU count)."""
    best = ranking.best
    if best is None:
        return []
    if best.cost is None:
        return _first_of_each(ranking.options, n)
    picks, index = [best], Dominance(ranking.options)
    # where the best carries no caveat that undermines it, the picks without one come first, within reach and beyond:
    # four RTX 6000 Ada, whose reported memory no public source confirms, had displaced eight RTX 5090s for
    # gpt-oss-120b at 50 users
    passes = (False, True) if not best.undermining else (True,)
    for caveated in passes:
        for ratio in (ALTERNATIVE_COST_RATIO, PICK_COST_RATIO):
            for option in ranking.options:
                if len(picks) == n:
                    return picks
                new = all(option.gpu_card != p.gpu_card for p in picks) and (caveated or not option.undermining)
                if new and _worth_showing(option, best, index, ratio):
                    picks.append(option)
    return picks


def _first_of_each(options: tuple[Option, ...], n: int) -> list[Option]:
    picks: list[Option] = []
    for option in options:
        if all(option.gpu_card != p.gpu_card for p in picks):
            picks.append(option)
        if len(picks) == n:
            break
    return picks


def other_hardware(ranking: Ranking) -> tuple[Option, ...]:
    """The best option of each vendor and form factor other than the recommendation's, in ranking order, that no
    other option :func:`dominates`, as :func:`top_picks` chooses (eight A100s in FP8 had been the alternative where
    the picks showed the same eight in INT8, as cheap and as large, with the first token sooner: a buyer's review,
    2026-12-06)."""
    best = ranking.best
    if best is None:
        return ()
    own, index = (best.vendor, best.purchase_kind), Dominance(ranking.options)
    chosen: dict[tuple[str, str], Option] = {}  # each kind's first option, replaced by its first within reach
    for option in ranking.options[1:]:
        kind, near = (option.vendor, option.purchase_kind), within_reach(option, best)
        held = chosen.get(kind)
        # four A100s at 2.4 x the pick, ranked after eight at 3.7 x for a caveat, had been passed over for "no other
        # vendor within 3 x" (an outside review, 2026-12-06); a kind settled, or one only an option within reach
        # would change, asks no more of the index (asked of every option, the text took 95 ms, not 6)
        if kind == own or (held is not None and (within_reach(held, best) or not near)) or index.beaten(option):
            continue
        chosen[kind] = option
    kept = {id(o) for o in chosen.values()}
    return tuple(o for o in ranking.options if id(o) in kept)
