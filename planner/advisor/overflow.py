"""Average or maximum? The chance that N conversations of random length overflow a KV pool.

A conversation's length (the tokens it holds in the KV cache: system prompt, turns so far, the reply being
written) is random. The planner's capacity (:mod:`planner.planning.plan`) divides the pool by one fixed length; this
module says what happens when the lengths vary.

Model (stated, not measured):

- **Length distribution.** A lognormal fitted to the mean ``m`` and the 95th percentile ``q``: with
  ``ln L ~ N(mu, sigma^2)``, ``m = exp(mu + sigma^2/2)`` and ``q = exp(mu + 1.6449 sigma)``, so
  ``sigma = z - sqrt(z^2 - 2 ln(q/m))`` with ``z = 1.6449`` (the smaller root, the one whose tail is the p95).
  A lognormal's p95 is at most ``e^(z^2/2) = 3.87`` times its mean, so ``q/m`` must lie in ``[1, 3.87]``;
  ``q = m`` is a fixed length. Lengths are capped at ``max_tokens`` when given (an engine stops a sequence at
  ``max_model_len``): the capped value ``min(L, max)`` keeps the excess mass at the cap.
- **Shared prefix.** With prefix caching a shared system prompt of ``s`` tokens is stored once per replica;
  each conversation then holds ``max(0, min(L, max) - s)`` tokens of its own and the pool loses ``s``.
- **Cost.** What a conversation of ``L`` tokens takes from the pool (:class:`~planner.advisor.sums.CostCurve`):
  its tokens, or — for the advisor — the planner's bytes per GPU, where sliding-window and chunked layers stop
  growing at their window and linear-attention layers keep a fixed state. The pool is the engine's own (the
  capacity :func:`planner.assessment.assess.assess` gives, times the cost of a conversation of the planning
  length), so the deterministic count at the planning length is the count every surface shows.
- **Overflow.** The pool runs out when the sum of the N conversations' own costs exceeds it. Paged-block
  rounding (under one block, 16 tokens, per conversation) is ignored. An engine with fixed slots (llama.cpp)
  has no shared pool: the report says what a slot holds and how often a conversation outgrows it.
- **The sum.** For ``N <= 256`` it is computed exactly on a grid: the length distribution is discretised to
  the nearest of ``K >= 1,024`` equal steps and convolved ``N`` times with an FFT (numpy). For larger ``N``
  the sum's distribution is a normal with an Edgeworth correction (skewness and kurtosis of the capped
  lognormal, from the same grid); its error falls as ``1/N``. ``tests/advisor/test_overflow.py`` checks
  both regimes against a seeded Monte Carlo within one percentage point.
- **Replicas.** Each data-parallel replica has its own pool; conversations are spread evenly (``N = qR + r``:
  ``r`` replicas get ``q + 1``, the others ``q``) and replicas overflow independently.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel

from planner.advisor.lengths import MAX_P95_OVER_MEAN, Z95, ContextDistribution, lognormal_params
from planner.advisor.sums import (  # re-exported: the model is stated above
    EXACT_MAX_CONVERSATIONS,
    TOKENS,
    CostCurve,
    conversations_at_risk,
    deployment_overflow_probability,
    overflow_probability,
)
from planner.assessment.words import plural
from planner.engines.registry import engines

__all__ = [
    "MAX_P95_OVER_MEAN",
    "TOKENS",
    "Z95",
    "ContextDistribution",
    "CostCurve",
    "OverflowReport",
    "conversations_at_risk",
    "deployment_overflow_probability",
    "lognormal_params",
    "overflow_probability",
    "overflow_report",
    "slots_report",
]


class OverflowReport(BaseModel, frozen=True, extra="forbid"):
    """Average or maximum: what a KV pool holds when conversation lengths vary (``pool_kind`` "shared"), or what
    each fixed slot holds (``pool_kind`` "slots": llama.cpp gives each conversation its own slot, nothing to
    share and nothing to overflow; ``probability`` is then ``None`` and ``exceed_slot_probability`` the chance a
    conversation grows past its slot)."""

    pool_kind: Literal["shared", "slots"]
    pool_per_replica: float  # in ``pool_unit``
    pool_unit: str  # "tokens", or "bytes per GPU"
    pool_tokens_per_replica: int  # the pool as the engine prints it, in tokens
    replicas: int
    shared_prefix_tokens: int
    distribution: str
    conversations: int  # the number asked about
    probability: float | None  # that the pool runs out with that many conversations at once
    conversations_at_1pct: int
    conversations_at_5pct: int
    planned_at_mean: int  # pool / a mean-length conversation's cost, per replica x replicas
    planned_at_p95: int
    planned_at_max: int | None  # None when uncapped
    slots: int | None = None  # per replica
    slot_tokens: int | None = None
    exceed_slot_probability: float | None = None
    method: str
    engine_behaviour: dict[str, str]
    explanation: str

    @property
    def total_slots(self) -> int:
        """Every replica's slots (0 for a shared pool)."""
        return (self.slots or 0) * self.replicas


def _per_length(pool: float, length: int, replicas: int, prefix: int, cost: CostCurve) -> int:
    own = max(1e-9, cost.at(length) - cost.at(prefix))
    return max(0, math.floor((pool - cost.at(prefix)) / own + 1e-9)) * replicas


def slots_report(
    slots: int, slot_tokens: int, conversations: int, dist: ContextDistribution, replicas: int, pool_tokens: int
) -> OverflowReport:
    """What a fixed-slot engine's slots hold, and how often a conversation outgrows its slot."""
    mu, sigma = lognormal_params(dist.mean_tokens, dist.p95_tokens)
    capped = dist.max_tokens is not None and dist.max_tokens <= slot_tokens
    exceed = 0.0 if capped or (sigma == 0 and dist.mean_tokens <= slot_tokens) else 1.0 - _cdf(slot_tokens, mu, sigma)
    held = slots * replicas
    explanation = (
        f"llama.cpp gives each of its {slots:,} slots per replica ({replicas} replica{'s' if replicas > 1 else ''}) "
        f"its own {slot_tokens:,} tokens: {plural(held, 'conversation')} at once, however long each one is. Nothing is "
        "shared, so the pool never runs out as a whole; a conversation that reaches its slot's end is stopped (or "
        f"loses its oldest tokens with context shift on). Lengths: {dist.describe()}; "
        + ("none outgrows its slot." if exceed < 1e-4 else f"{exceed:.1%} of conversations outgrow their slot.")
        + " A user beyond the slots waits for one to free."
    )
    return OverflowReport(
        pool_kind="slots",
        pool_per_replica=float(pool_tokens),
        pool_unit="tokens",
        pool_tokens_per_replica=pool_tokens,
        replicas=replicas,
        shared_prefix_tokens=0,
        distribution=dist.describe(),
        conversations=conversations,
        probability=None,
        conversations_at_1pct=held,
        conversations_at_5pct=held,
        planned_at_mean=held,
        planned_at_p95=held,
        planned_at_max=held if dist.max_tokens is not None else None,
        slots=slots,
        slot_tokens=slot_tokens,
        exceed_slot_probability=exceed,
        method="fixed slots: each holds its own context (llama-server -c / -np)",
        engine_behaviour={engine.name: engine.full_pool_behaviour for engine in engines()},
        explanation=explanation,
    )


def _cdf(x: float, mu: float, sigma: float) -> float:
    if sigma == 0:
        return 1.0 if x >= math.exp(mu) else 0.0
    return 0.5 * (1.0 + math.erf((math.log(max(x, 1e-9)) - mu) / (sigma * math.sqrt(2.0))))


def _explanation(
    tokens: int,
    replicas: int,
    dist: ContextDistribution,
    conversations: int,
    planned: tuple[int, int, int | None],
    at_risk: tuple[int, int],
    prob: float,
) -> str:
    """Why planning at the mean, the p95 or the maximum gives what it gives, in words."""
    at_mean, at_p95, at_max = planned
    at1, at5 = at_risk
    if dist.one_length:
        return _one_length_explanation(tokens, replicas, dist, conversations, at_mean)
    max_text = (
        f"Planning for the maximum ({dist.max_tokens:,} tokens each) gives {at_max:,}: nothing can ever overflow, "
        "but most of the reserved memory stays empty because few conversations get that long."
        if at_max is not None
        else "There is no maximum to plan for: the lengths are uncapped."
    )
    return (
        f"The pool holds {tokens:,} tokens per replica ({replicas} replica{'s' if replicas > 1 else ''}). "
        f"Planning for the average length ({dist.mean_tokens:,} tokens) gives {at_mean:,} conversations, but at "
        "that number the total is above the pool about half the time, because half the time the lengths add up "
        f"to more than the average. Planning for the p95 ({dist.p95_tokens:,} tokens each) gives {at_p95:,}: "
        f"safe, but wasteful, because {max(conversations, 2):,} conversations rarely all sit in their longest 5 % at "
        "once; the sum of many lengths is much less spread out than one length. "
        f"{max_text} "
        f"Counting on the spread of the sum, {at5:,} conversations run out of memory with 5 % probability and "
        f"{at1:,} with 1 %. With {conversations:,} conversations the chance is "
        f"{'below 0.1 %' if prob < 0.001 else f'{prob:.1%}'}. When it happens the "
        "engine does not crash: it pauses or re-queues someone (see the engine notes)."
    )


def _one_length_explanation(
    tokens: int, replicas: int, dist: ContextDistribution, conversations: int, held: int
) -> str:
    """Every conversation one length: the pool holds a whole number of them, and the chance is a step there."""
    verdict = "none runs out" if conversations <= held else "the pool runs out"
    return (
        f"The pool holds {tokens:,} tokens per replica ({replicas} replica{'s' if replicas > 1 else ''}). Every "
        f"conversation is {dist.mean_tokens:,} tokens long, so the mean, the p95 and the maximum are the same plan: "
        f"{plural(held, 'conversation')} fit at once and {held + 1:,} do not; there is no spread to count on. With "
        f"{conversations:,} conversations {verdict}. When it happens the engine does not crash: it pauses or "
        "re-queues someone (see the engine notes)."
    )


def _at_most(count: int, limit: int | None) -> int:
    """``count``, at most ``limit`` (None: no limit).

    >>> _at_most(33, 8), _at_most(33, None)
    (8, 33)
    """
    return count if limit is None else min(count, limit)


def _planned_counts(
    pool: float, dist: ContextDistribution, replicas: int, prefix: int, cost: CostCurve, limit: int | None
) -> tuple[int, int, int, int, int | None]:
    """The conversations at 1 % and 5 % risk and planned at the mean, the p95 and the maximum, each at most
    ``limit`` (the sequences the engine runs at once, all replicas)."""
    at1 = _at_most(conversations_at_risk(pool, dist, 0.01, replicas, prefix, cost), limit)
    at5 = _at_most(conversations_at_risk(pool, dist, 0.05, replicas, prefix, cost), limit)
    at_mean = _at_most(_per_length(pool, dist.mean_tokens, replicas, prefix, cost), limit)
    at_p95 = _at_most(_per_length(pool, dist.p95_tokens, replicas, prefix, cost), limit)
    at_max = _at_most(_per_length(pool, dist.max_tokens, replicas, prefix, cost), limit) if dist.max_tokens else None
    return at1, at5, at_mean, at_p95, at_max


def overflow_report(
    pool_per_replica: float,
    conversations: int,
    dist: ContextDistribution,
    replicas: int = 1,
    shared_prefix_tokens: int = 0,
    cost: CostCurve = TOKENS,
    pool_tokens_per_replica: int | None = None,
    unit: str = "tokens",
    running: int | None = None,
) -> OverflowReport:
    """The overflow risk at ``conversations``, the counts that hold at 1 % and 5 % risk, and why planning at the
    mean, the p95 or the maximum gives the numbers it gives. ``cost``: what a conversation costs in the pool's
    unit (tokens by default; the planner's bytes per GPU for windowed and hybrid layers). ``running``: the
    sequences the engine runs at once per replica (:attr:`planner.engines.base.EngineReport.max_running`), which
    bounds every planned count as it bounds the conversations served."""
    pool, prefix = pool_per_replica, shared_prefix_tokens
    limit = running * replicas if running is not None else None
    prob = deployment_overflow_probability(conversations, pool, dist, replicas, prefix, cost)
    at1, at5, at_mean, at_p95, at_max = _planned_counts(pool, dist, replicas, prefix, cost, limit)
    tokens = pool_tokens_per_replica if pool_tokens_per_replica is not None else round(pool)
    exact = (
        "exact: N overflow when N times one conversation's cost exceeds the pool"
        if dist.one_length
        else f"exact convolution on a grid (N <= {EXACT_MAX_CONVERSATIONS} per replica), else a normal "
        "approximation with an Edgeworth correction"
    )
    method = (
        exact
        + "; lengths: "
        + dist.describe()
        + ("" if cost == TOKENS else "; each conversation's cost in the pool from its length, window caps included")
    )
    explanation = _explanation(tokens, replicas, dist, conversations, (at_mean, at_p95, at_max), (at1, at5), prob)
    if limit is not None and at_mean == limit:
        explanation += (
            f" The engine runs at most {running:,} sequences at once per replica, so every count here stops at "
            f"{limit:,}: more conversations wait in its queue, whatever the pool holds."
        )
    return OverflowReport(
        pool_kind="shared",
        pool_per_replica=pool,
        pool_unit=unit,
        pool_tokens_per_replica=tokens,
        replicas=replicas,
        shared_prefix_tokens=prefix,
        distribution=dist.describe(),
        conversations=conversations,
        probability=prob,
        conversations_at_1pct=at1,
        conversations_at_5pct=at5,
        planned_at_mean=at_mean,
        planned_at_p95=at_p95,
        planned_at_max=at_max,
        method=method,
        engine_behaviour={engine.name: engine.full_pool_behaviour for engine in engines()},
        explanation=explanation,
    )
