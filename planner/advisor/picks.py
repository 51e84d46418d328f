"""The advice's top picks: the best option of each of the first GPU models, none that another option beats on every
figure a buyer compares (:func:`dominates`)."""

from __future__ import annotations

from planner.advisor.options import Option, Ranking
from planner.advisor.order import PRICE_PRECISION_USD


def _shown(o: Option) -> tuple[float, int, int, float]:
    """An option's figures at the precision a reader sees them (the tie-break's: hundreds of dollars, whole
    conversations and tokens/s, tenths of a second): cost, -conversations, -tokens/s, first token."""
    speed = round(o.decode_tokens_per_s_per_user or 0.0)
    first = round(o.prefill_seconds, 1) if o.prefill_seconds is not None else float("inf")
    return round((o.cost or 0.0) / PRICE_PRECISION_USD), -o.conversations, -speed, first


def dominates(a: Option, b: Option) -> bool:
    """Whether ``a`` is at least as good as ``b`` on every figure a buyer compares (cost, conversations held, tokens/s
    per user, first token, caveats), at the precision they are shown, and better on one: nobody would buy ``b`` with
    ``a`` on offer."""
    if a.cost is None or b.cost is None or len(a.undermining) > len(b.undermining):
        return False
    mine, theirs = _shown(a), _shown(b)
    return all(x <= y for x, y in zip(mine, theirs, strict=True)) and mine != theirs


def top_picks(ranking: Ranking, n: int = 3) -> list[Option]:
    """The best option of each of the first ``n`` GPU models (variants of one GPU, and editions of one card, are one
    pick: :attr:`Option.gpu_card`), after the first none that another option :func:`dominates` (eight L4s had been a
    pick beside four RTX PRO 6000s that cost less, hold more and run faster: an outside review, 2026-12-05)."""
    picks: list[Option] = []
    for option in ranking.options:
        if picks and any(dominates(other, option) for other in ranking.options):
            continue
        if all(option.gpu_card != p.gpu_card for p in picks):
            picks.append(option)
        if len(picks) == n:
            break
    return picks
