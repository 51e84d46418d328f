"""When nothing meets every condition, the verdict names the buyer's own condition that decided it (the budget, a
speed target, a missing price) and the set-up closest to it, with that set-up's own figures: not the three largest
rejection counts, which are mostly set-ups too small for the model."""

from __future__ import annotations

import math

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor import ContextDistribution, Workload, headline, rank, recommendation, verdict
from planner.advisor.recommend import _money
from planner.advisor.suitability import FOUR_BIT
from planner.advisor.workload import SLOW_FIRST_TOKEN_S, first_token_bound_s

LLAMA_70B = get_model("meta-llama/Llama-3.1-70B").spec
LLAMA_8B = get_model("meta-llama/Llama-3.1-8B").spec
FP8 = ("fp8",)  # named, so that no 4-bit fallback joins the set-ups compared


def workload(users: int, context: int, **fields: object) -> Workload:
    dist = ContextDistribution(mean_tokens=context, p95_tokens=context, max_tokens=context)
    return Workload.model_validate({"concurrent_conversations": users, "context": dist, **fields})


def test_over_budget_names_the_budget_and_the_cheapest_set_up() -> None:
    free = rank(LLAMA_70B, workload(50, 8_192), weights=FP8)
    # the budget is the purchase (planner.advisor.near.spend): the cheapest to buy, not the cheapest over its life
    cheapest = min((o for o in free.options if o.purchase_usd is not None), key=lambda o: o.purchase_usd or 0.0)
    budget = (cheapest.purchase_usd or 0.0) / 2
    ranking = rank(LLAMA_70B, workload(50, 8_192, budget_usd=budget), weights=FP8)
    assert ranking.best is None and verdict(ranking) == "none"
    counts = ranking.rejection_counts()
    assert [m.count for m in ranking.near_misses] == sorted((m.count for m in ranking.near_misses), reverse=True)
    assert {m.reason: m.count for m in ranking.near_misses} == {
        r: counts[r] for r in ("over-budget", "latency-target-missed", "unknown-price") if r in counts
    }
    miss = ranking.near_misses[0]
    over = counts["over-budget"]
    assert miss.reason == "over-budget" and miss.count == over == len(free.options) - free_unpriced(free)
    assert miss.closest.label == cheapest.label and miss.closest.purchase_usd == cheapest.purchase_usd
    text = headline(ranking)
    assert text.startswith(f"No set-up meets every condition: {over:,} hold 50 conversations of 8,192 tokens")
    assert f"cost more than the {_money(budget)} budget" in text and cheapest.label in text
    assert _money(cheapest.purchase_usd or 0.0) in text
    for other in ranking.near_misses[1:]:  # each other condition by name, not "N more fail other conditions"
        said = "have no dated price" if other.reason == "unknown-price" else "miss the speed target"
        assert f"{other.count:,} more {said}" in text, text
    paragraph = recommendation(ranking)
    assert f"a budget of {_money(cheapest.purchase_usd or 0.0)} buys {cheapest.label}" in paragraph
    assert all(f"{m.count:,} hold" in paragraph for m in ranking.near_misses)


def free_unpriced(ranking: object) -> int:
    return sum(1 for o in getattr(ranking, "options", ()) if o.cost is None)


def test_a_speed_target_names_the_fastest_set_up() -> None:
    gpus = [get_gpu(g) for g in ("rtx-4090", "l40s", "h100-sxm-80gb")]
    free = rank(LLAMA_8B, workload(20, 4_096), gpus=gpus, weights=FP8)
    fastest = max(free.options, key=lambda o: o.decode_tokens_per_s_per_user or 0.0)
    floor = (fastest.decode_tokens_per_s_per_user or 0.0) * 1.5
    ranking = rank(LLAMA_8B, workload(20, 4_096, min_tokens_per_s_per_user=floor), gpus=gpus, weights=FP8)
    assert ranking.best is None
    (miss,) = ranking.near_misses
    assert miss.reason == "latency-target-missed" and miss.closest.label == fastest.label
    text = headline(ranking)
    assert f"miss the speed target of {floor:g} tokens/s per user" in text
    # a speed that misses a floor is said rounded down (planner.advisor.near._rate): 227.25 is "227.2", not "227.3"
    said = f"{math.floor((fastest.decode_tokens_per_s_per_user or 0.0) * 10) / 10:.1f}"
    assert f"{said} tokens/s per user" in text and fastest.label in text
    # the remedy sets only the target that was set: a tokens/s floor, not a first-token time the buyer never gave
    paragraph = recommendation(ranking)
    remedy = f"a speed target of {said} tokens/s per user admits {fastest.label}"
    assert remedy in paragraph, paragraph


def test_a_missing_price_under_a_budget_is_named() -> None:
    ranking = rank(LLAMA_8B, workload(4, 2_048, budget_usd=1e9), gpus=[get_gpu("mi325x")], counts=(8,))
    (miss,) = ranking.near_misses
    assert miss.reason == "unknown-price" and "no dated price to check against the budget" in headline(ranking)


def test_nothing_near_keeps_the_counts() -> None:
    ranking = rank(LLAMA_70B, workload(10_000, 32_768), counts=(1,))
    assert ranking.near_misses == ()
    assert headline(ranking).startswith("No set-up in the catalog serves 10,000 conversations")


def test_a_ranking_with_a_best_option_names_no_near_miss() -> None:
    ranking = rank(LLAMA_8B, workload(10, 4_096, budget_usd=1e7))
    assert ranking.best is not None and ranking.near_misses == ()


def test_a_slow_first_token_keeps_the_verdict_from_green() -> None:
    """Issue 21: Gemma 4 31B for 50 users at 32k was green with an 11 s first token. Without a first-token target
    of the buyer's own, a typical prompt slower than MLPerf Inference's server bound (6 s, loadgen/mlperf.conf, for
    its long-prompt benchmark's ~9,500-token prompts) undermines the option: amber, ranked after set-ups without a
    caveat, said in its warnings. A longer prompt's bound grows in proportion to it (a buyer's review, 2026-12-06:
    tests/advisor/test_buyer_review_45b.py): Gemma's 24,576-token prompts are allowed 16 s, and a first token
    between 6 s and that is a note with its time, not a caveat."""
    llama = get_model("meta-llama/Llama-3.3-70B-Instruct").spec
    short = rank(llama, Workload.fixed_length(12_288, concurrent_conversations=20))  # prompts of 9,216 tokens
    slow = [o for o in short.options if o.prefill_seconds is not None and o.prefill_seconds > SLOW_FIRST_TOKEN_S]
    assert len(slow) == 7, "the catalog has set-ups slower than the bound for this workload"
    for o in slow:
        (said,) = [u for u in o.undermining if u.startswith("first token after")]
        shown = f"about {o.prefill_seconds:.1f} s" if round(o.prefill_seconds, 1) > 6 else "just over 6 s"
        assert f"first token after {shown} for a 9,216-token prompt: slower than the 6 s MLPerf" in said
        assert said in o.warnings
    assert short.best is not None and short.best not in slow
    assert verdict(short) in ("met", "caution") and (short.best.prefill_seconds or 0.0) <= SLOW_FIRST_TOKEN_S
    gemma = get_model("google/gemma-4-31b-it").spec
    ranking = rank(gemma, Workload.fixed_length(32_768, concurrent_conversations=50))  # as `advise --context`
    assert first_token_bound_s(24_576) == pytest.approx(15.52, abs=0.01)
    longer = [o for o in ranking.options if (o.prefill_seconds or 0.0) > SLOW_FIRST_TOKEN_S]
    assert len(longer) == 30 and all((o.prefill_seconds or 0.0) <= 15.5 for o in longer)
    for o in longer:
        assert not any(u.startswith("first token after") for u in o.undermining)
        (note,) = [n for n in o.warnings if n.startswith("first token after")]
        assert "for a 24,576-token prompt (read whole once a conversation; each later turn prefills 1,000 new" in note
        scaled = "within MLPerf Inference's server bound scaled to this prompt's length, 16 s (6 s for its long-prompt"
        assert note.endswith(f"{scaled} benchmark, Llama 3.1 405B, ~9,500 tokens a prompt at the median)")
    targeted = rank(gemma, Workload.fixed_length(32_768, concurrent_conversations=50, max_time_to_first_token_s=30.0))
    assert not any(u.startswith("first token after") for o in targeted.options for u in o.warnings)


def test_a_rental_budget_names_the_monthly_figure_and_prefers_eight_bits_at_the_same_price() -> None:
    """A cloud budget is per month and a rental is rented; of two set-ups at the same price the one without a
    quality caveat (4-bit weights, offered as a fallback) is named."""
    ranking = rank(LLAMA_8B, workload(20, 8_192, budget_usd=100.0, pricing="cloud"))
    miss = next(m for m in ranking.near_misses if m.reason == "over-budget")
    c = miss.closest
    named = next(
        r
        for r in ranking.rejected
        if (r.gpu_id, r.gpu_count, r.tensor_parallel, r.weights, r.kv_dtype, r.reason)
        == (c.gpu_id, c.gpu_count, c.tensor_parallel, c.weights, c.kv_dtype, "over-budget")
    )
    four_bit_at_that_price = [
        r for r in ranking.rejected if r.reason == "over-budget" and r.weights in FOUR_BIT and r.detail == named.detail
    ]
    assert four_bit_at_that_price, "a 4-bit set-up at the same price competes for the name"
    assert c.quality_caveat is None and c.weights not in FOUR_BIT
    # the headline leads with the largest group of misses (here the unpriced, 1,400 against 1,387 over budget since
    # idle replicas are not offered): the recommendation names every group with its figure
    assert "the $100 per month budget" in recommendation(ranking) and "per month rents" in recommendation(ranking)
    assert "more cost more than the budget" in headline(ranking) or "the $100 per month budget" in headline(ranking)
