"""Overflow probability against a seeded Monte Carlo (numpy), within one percentage point."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.advisor.overflow import (
    EXACT_MAX_CONVERSATIONS,
    MAX_P95_OVER_MEAN,
    ContextDistribution,
    CostCurve,
    conversations_at_risk,
    deployment_overflow_probability,
    lognormal_params,
    overflow_probability,
    overflow_report,
    slots_report,
)
from planner.bounds.errors import PlannerError
from planner.engines import registry

TRIALS = 200_000


def monte_carlo(n: int, pool: float, dist: ContextDistribution, prefix: int = 0, replicas: int = 1) -> float:
    """Draw each conversation's length from the fitted lognormal, cap it, take the prefix off, sum per replica."""
    mu, sigma = lognormal_params(dist.mean_tokens, dist.p95_tokens)
    rng = np.random.default_rng(20260101 + n)
    q, r = divmod(n, replicas)
    any_over = np.zeros(TRIALS, dtype=bool)
    for replica in range(replicas):
        total = np.zeros(TRIALS)
        for _ in range(q + (1 if replica < r else 0)):
            lengths = rng.lognormal(mu, sigma, TRIALS)
            if dist.max_tokens is not None:
                lengths = np.minimum(lengths, dist.max_tokens)
            total += np.maximum(0.0, lengths - prefix)
        any_over |= total > pool - prefix
    return float(any_over.mean())


CHAT = ContextDistribution(mean_tokens=2_000, p95_tokens=6_000, max_tokens=8_192)
CHAT_UNCAPPED = ContextDistribution(mean_tokens=2_000, p95_tokens=6_000)
RAG = ContextDistribution(mean_tokens=6_000, p95_tokens=12_000, max_tokens=32_768)
AGENT = ContextDistribution(mean_tokens=24_000, p95_tokens=64_000, max_tokens=131_072)
HEAVY = ContextDistribution(mean_tokens=1_000, p95_tokens=3_800)


@pytest.mark.parametrize(
    ("n", "pool", "dist", "prefix"),
    [
        (2, 9_000, HEAVY, 0),  # exact regime, two very skewed lengths
        (4, 12_000, CHAT_UNCAPPED, 0),
        (10, 300_000, AGENT, 0),
        (20, 50_000, CHAT, 500),  # shared prefix
        (100, 640_000, RAG, 0),
        (250, 560_000, CHAT, 0),  # top of the exact regime
        (300, 640_000, CHAT_UNCAPPED, 0),  # Edgeworth regime
        (1_000, 2_100_000, CHAT_UNCAPPED, 0),
        (2_000, 4_300_000, CHAT, 1_000),
    ],
)
def test_probability_matches_monte_carlo(n: int, pool: int, dist: ContextDistribution, prefix: int) -> None:
    predicted = overflow_probability(n, pool, dist, prefix)
    simulated = monte_carlo(n, pool, dist, prefix, 1) if n <= 300 else monte_carlo_fast(n, pool, dist, prefix)
    assert abs(predicted - simulated) < 0.01, (predicted, simulated)


def monte_carlo_fast(n: int, pool: float, dist: ContextDistribution, prefix: int) -> float:
    """As :func:`monte_carlo` for one replica, with fewer trials (40,000) to keep large N quick."""
    mu, sigma = lognormal_params(dist.mean_tokens, dist.p95_tokens)
    rng = np.random.default_rng(7 + n)
    trials = 40_000
    total = np.zeros(trials)
    for _ in range(n):
        lengths = rng.lognormal(mu, sigma, trials)
        if dist.max_tokens is not None:
            lengths = np.minimum(lengths, dist.max_tokens)
        total += np.maximum(0.0, lengths - prefix)
    return float((total > pool - prefix).mean())


def test_replicas_match_monte_carlo() -> None:
    predicted = deployment_overflow_probability(25, 60_000, CHAT, replicas=3)
    assert abs(predicted - monte_carlo(25, 60_000, CHAT, 0, 3)) < 0.01


def test_regimes_agree_at_the_boundary() -> None:
    n = EXACT_MAX_CONVERSATIONS
    pool = 2_000 * n * 1.05
    exact = overflow_probability(n, pool, CHAT)
    from planner.advisor.sums import _edgeworth_probability

    assert abs(exact - _edgeworth_probability(n, pool, CHAT, 0)) < 0.01


def test_lognormal_fit_reproduces_mean_and_p95() -> None:
    mu, sigma = lognormal_params(2_000, 6_000)
    assert math.exp(mu + sigma**2 / 2) == pytest.approx(2_000)
    assert math.exp(mu + 1.6448536269514722 * sigma) == pytest.approx(6_000)
    assert lognormal_params(500, 500)[1] == 0


def test_impossible_distributions_are_refused() -> None:
    with pytest.raises(ValueError, match="at most"):
        ContextDistribution(mean_tokens=1_000, p95_tokens=int(MAX_P95_OVER_MEAN * 1_000) + 10)
    with pytest.raises(ValueError, match="at least mean"):
        ContextDistribution(mean_tokens=1_000, p95_tokens=900)
    with pytest.raises(PlannerError):
        conversations_at_risk(10_000, CHAT, 1.5)


def test_fixed_lengths_are_a_step() -> None:
    fixed = ContextDistribution(mean_tokens=1_000, p95_tokens=1_000, max_tokens=1_000)
    assert overflow_probability(10, 10_000, fixed) == 0.0
    assert overflow_probability(11, 10_000, fixed) == 1.0
    assert conversations_at_risk(10_000, fixed, 0.01) == 10


def test_probability_grows_with_conversations() -> None:
    probs = [overflow_probability(n, 200_000, CHAT) for n in (50, 80, 100, 120, 200)]
    assert probs == sorted(probs)


def test_report_orders_the_plans() -> None:
    report = overflow_report(746_378, 100, CHAT)
    # the sum of many lengths concentrates: the risk-based counts sit between the p95 plan and the mean plan
    assert report.planned_at_max is not None
    assert report.planned_at_max <= report.planned_at_p95 <= report.conversations_at_1pct
    assert report.conversations_at_1pct <= report.conversations_at_5pct <= report.planned_at_mean
    assert overflow_probability(report.conversations_at_1pct, 746_378, CHAT) <= 0.01
    assert overflow_probability(report.conversations_at_1pct + 1, 746_378, CHAT) > 0.01
    assert report.engine_behaviour == {e.name: e.full_pool_behaviour for e in registry.engines()}
    assert "preempt" in report.engine_behaviour["vllm"] and "retract" in report.engine_behaviour["sglang"]
    assert "slots" in report.engine_behaviour["llamacpp"]


WINDOWED = CostCurve(per_token=2.0, windows=((1_024, 6.0),), fixed=100.0)  # 2 B/token + 6 B/token up to 1k + state


def test_cost_curve_inverts_itself() -> None:
    for tokens in (1, 500, 1_024, 1_025, 20_000):
        assert WINDOWED.inverse(WINDOWED.at(tokens)) == pytest.approx(tokens)
    assert WINDOWED.at(0) == 0 and WINDOWED.inverse(50) == 0
    flat = CostCurve(per_token=0.0, windows=((128, 1.0),))  # every layer windowed: the cost stops at the window
    assert flat.at(10_000) == flat.at(128) == 128 and flat.inverse(200) == math.inf


def test_windowed_cost_matches_monte_carlo() -> None:
    """With a cost curve the sum is of costs, not tokens: Monte Carlo through the same curve."""
    mu, sigma = lognormal_params(CHAT.mean_tokens, CHAT.p95_tokens)
    rng = np.random.default_rng(20260102)
    lengths = np.minimum(rng.lognormal(mu, sigma, (40_000, 30)), CHAT.max_tokens or math.inf)
    cost = 2.0 * lengths + 6.0 * np.minimum(lengths, 1_024) + 100.0
    pool = 30 * 2.0 * 2_600 + 30 * 6_000
    simulated = float((cost.sum(axis=1) > pool).mean())
    assert abs(overflow_probability(30, pool, CHAT, 0, WINDOWED) - simulated) < 0.01


def test_report_on_a_cost_curve_counts_the_planning_length_exactly() -> None:
    """The advisor's pool is the engine's capacity at the planning length times that length's cost: the count at
    the p95 is the capacity, whatever the curve (the figure every surface shows)."""
    pool = 58.55 * WINDOWED.at(CHAT.p95_tokens)
    report = overflow_report(pool, 50, CHAT, cost=WINDOWED, unit="bytes per GPU")
    assert report.planned_at_p95 == 58 and report.pool_unit == "bytes per GPU"
    assert report.planned_at_mean > report.planned_at_p95 > (report.planned_at_max or 0)


def test_slots_say_what_a_slot_holds() -> None:
    report = slots_report(4, 8_192, 4, RAG, 1, 32_768)
    assert report.pool_kind == "slots" and report.probability is None and report.conversations_at_1pct == 4
    assert report.exceed_slot_probability is not None and 0.05 < report.exceed_slot_probability < 0.5
    assert "8,192 tokens" in report.explanation
    capped = slots_report(4, 8_192, 4, CHAT, 2, 65_536)
    assert capped.exceed_slot_probability == 0.0 and capped.conversations_at_5pct == 8


@settings(max_examples=200, deadline=None)
@given(
    length=st.integers(1, 200_000),
    n=st.integers(1, 2_000),
    prefix=st.integers(0, 4_096),
    slack=st.integers(-3, 3),
    curve=st.sampled_from([CostCurve(), WINDOWED, CostCurve(per_token=0.5, windows=((4_096, 3.0),), fixed=7.0)]),
)
def test_every_conversation_the_same_length_overflows_exactly_at_the_sum(
    length: int, n: int, prefix: int, slack: int, curve: CostCurve
) -> None:
    """All conversations one length (the advisor's sidebar workload): each owns the same cost ``c``, so ``n`` of
    them overflow a pool exactly when ``n x c`` exceeds it — a step, at the byte, in either regime (a grid
    rounds ``c`` to its step and an Edgeworth tail smooths the step)."""
    fixed = ContextDistribution(mean_tokens=length, p95_tokens=length, max_tokens=length)
    own = max(0.0, curve.at(length) - curve.at(prefix))
    pool = n * own + slack + curve.at(prefix)
    expected = 1.0 if n * own > pool - curve.at(prefix) else 0.0
    assert overflow_probability(n, pool, fixed, prefix, curve) == expected
    at_risk = conversations_at_risk(pool, fixed, 0.01, 1, prefix, curve)
    assert own == 0 or at_risk == max(0, math.floor((pool - curve.at(prefix)) / own + 1e-9))


def test_one_length_is_explained_as_one_length() -> None:
    """Every conversation one length (the advisor's sidebar workload): the report says the pool holds a whole
    number of them and that the chance is a step at that count, not the spread of a sum of random lengths."""
    fixed = ContextDistribution(mean_tokens=32_768, p95_tokens=32_768, max_tokens=32_768)
    report = overflow_report(1_723_888, 50, fixed, replicas=2)
    assert report.conversations_at_1pct == report.conversations_at_5pct == report.planned_at_p95 == 104
    assert report.probability == 0.0
    assert "half the time" not in report.explanation and "spread of the sum" not in report.explanation
    assert "every conversation is 32,768 tokens" in report.explanation.lower()
    assert "104" in report.explanation and "105" in report.explanation
    assert "exact" in report.method and "grid" not in report.method
