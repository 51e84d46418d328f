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
- **Overflow.** The pool runs out when the sum of the N conversations' own tokens exceeds it. Paged-block
  rounding (under one block, 16 tokens, per conversation) is ignored.
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
from functools import lru_cache
from typing import Annotated

import numpy as np
from pydantic import BaseModel, Field, model_validator

from planner.bounds.errors import PlannerError
from planner.bounds.walltime import check
from planner.engines.registry import engines

Z95 = 1.6448536269514722  # standard normal 95th percentile
MAX_P95_OVER_MEAN = math.exp(Z95 * Z95 / 2)  # 3.87: the largest p95/mean a lognormal can have
EXACT_MAX_CONVERSATIONS = 256  # exact FFT convolution up to here, Edgeworth above
_FFT_POINTS = 2**18
_MOMENT_BINS = 4096
_TAIL_SIGMAS = 8.0  # an uncapped lognormal is cut where its tail mass is below 1e-15

PositiveInt = Annotated[int, Field(gt=0)]


class ContextDistribution(BaseModel, frozen=True, extra="forbid"):
    """How long conversations get, in tokens held in the KV cache: a mean, a 95th percentile, an optional cap."""

    mean_tokens: PositiveInt
    p95_tokens: PositiveInt
    max_tokens: PositiveInt | None = None  # the cap (max_model_len); None: uncapped

    @model_validator(mode="after")
    def _check(self) -> ContextDistribution:
        if self.p95_tokens < self.mean_tokens:
            raise ValueError("p95_tokens must be at least mean_tokens (a lognormal's p95 is above its mean)")
        if self.p95_tokens > MAX_P95_OVER_MEAN * self.mean_tokens:
            raise ValueError(
                f"p95_tokens can be at most {MAX_P95_OVER_MEAN:.2f} x mean_tokens for a lognormal "
                f"(got {self.p95_tokens / self.mean_tokens:.2f} x); raise the mean or lower the p95"
            )
        if self.max_tokens is not None and self.max_tokens < self.p95_tokens:
            raise ValueError("max_tokens must be at least p95_tokens")
        return self

    @property
    def sigma(self) -> float:
        """Log-space standard deviation of the fitted lognormal (0: every conversation has the mean length)."""
        return lognormal_params(self.mean_tokens, self.p95_tokens)[1]

    @property
    def mu(self) -> float:
        return lognormal_params(self.mean_tokens, self.p95_tokens)[0]

    def describe(self) -> str:
        cap = f", capped at {self.max_tokens:,}" if self.max_tokens else ""
        if self.p95_tokens == self.mean_tokens:
            return f"every conversation {self.mean_tokens:,} tokens{cap}"
        return (
            f"lognormal with mean {self.mean_tokens:,} and p95 {self.p95_tokens:,} tokens "
            f"(mu {self.mu:.3f}, sigma {self.sigma:.3f}){cap}"
        )


def lognormal_params(mean: float, p95: float) -> tuple[float, float]:
    """``(mu, sigma)`` of the lognormal with this mean and 95th percentile (see the module docstring)."""
    if mean <= 0 or p95 < mean:
        raise PlannerError("lognormal: need 0 < mean <= p95")
    ratio = math.log(p95 / mean)
    disc = Z95 * Z95 - 2 * ratio
    if disc < -1e-12:
        raise PlannerError(f"lognormal: p95 can be at most {MAX_P95_OVER_MEAN:.2f} x the mean")
    sigma = Z95 - math.sqrt(max(0.0, disc))
    mu = math.log(mean) - sigma * sigma / 2
    return mu, sigma


def _phi_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _lognormal_cdf(x: float, mu: float, sigma: float) -> float:
    if x <= 0:
        return 0.0
    if sigma == 0:
        return 1.0 if x >= math.exp(mu) else 0.0
    return _phi_cdf((math.log(x) - mu) / sigma)


def _own_support(dist: ContextDistribution, shared_prefix: int) -> float:
    """Largest number of own tokens one conversation can hold (the cap, or far in the tail)."""
    mu, sigma = lognormal_params(dist.mean_tokens, dist.p95_tokens)
    top = math.exp(mu + _TAIL_SIGMAS * sigma)
    if dist.max_tokens is not None:
        top = min(top, float(dist.max_tokens))
    return max(0.0, top - shared_prefix)


@lru_cache(maxsize=256)
def _grid_pmf(
    dist: ContextDistribution, shared_prefix: int, bins: int, limit: float | None = None
) -> tuple[float, tuple[float, ...]]:
    """``(step, pmf)``: own tokens per conversation rounded to the nearest multiple of ``step``, ``bins + 1``
    points from 0 to the top of the support (the cap's mass sits on the last point).

    With ``limit`` (a pool size) the grid stops just past it: one conversation above the pool overflows it
    whatever the others hold, so the mass above is lumped on the last point, beyond the pool.
    """
    mu, sigma = lognormal_params(dist.mean_tokens, dist.p95_tokens)
    top = _own_support(dist, shared_prefix)
    if limit is not None and top > limit:
        step = limit / (bins - 1)
    elif top <= 0:
        return 1.0, (1.0,)
    else:
        step = top / bins
    cdf = [_lognormal_cdf(shared_prefix + (j + 0.5) * step, mu, sigma) for j in range(bins)]
    pmf = [cdf[0]] + [cdf[j] - cdf[j - 1] for j in range(1, bins)] + [1.0 - cdf[-1]]
    return step, tuple(max(0.0, p) for p in pmf)


def _moments(dist: ContextDistribution, shared_prefix: int) -> tuple[float, float, float, float]:
    """Mean, variance, skewness and excess kurtosis of one conversation's own tokens (fine grid)."""
    step, pmf = _grid_pmf(dist, shared_prefix, _MOMENT_BINS)
    p = np.asarray(pmf)
    x = np.arange(len(p)) * step
    mean = float(p @ x)
    d = x - mean
    var = float(p @ d**2)
    if var <= 0:
        return mean, 0.0, 0.0, 0.0
    skew = float(p @ d**3) / var**1.5
    kurt = float(p @ d**4) / var**2 - 3.0
    return mean, var, skew, kurt


def _exact_probability(n: int, pool: float, dist: ContextDistribution, shared_prefix: int) -> float:
    bins = max(1024, min(4096, _FFT_POINTS // max(1, n)))
    step, pmf = _grid_pmf(dist, shared_prefix, bins, pool)
    size = n * (len(pmf) - 1) + 1
    nfft = 1 << (size - 1).bit_length()
    spectrum = np.fft.rfft(np.asarray(pmf), nfft) ** n
    total = np.fft.irfft(spectrum, nfft)[:size]
    first_over = math.floor(pool / step) + 1  # grid points j with j * step > pool
    if first_over >= size:
        return 0.0
    return float(min(1.0, max(0.0, np.clip(total[first_over:], 0.0, None).sum())))


def _edgeworth_probability(n: int, pool: float, dist: ContextDistribution, shared_prefix: int) -> float:
    mean, var, skew, kurt = _moments(dist, shared_prefix)
    if var == 0:
        return 1.0 if n * mean > pool else 0.0
    z = (pool - n * mean) / math.sqrt(n * var)
    g1, g2 = skew / math.sqrt(n), kurt / n
    density = math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    correction = g1 / 6 * (z * z - 1) + g2 / 24 * (z**3 - 3 * z) + g1 * g1 / 72 * (z**5 - 10 * z**3 + 15 * z)
    cdf = _phi_cdf(z) - density * correction
    return min(1.0, max(0.0, 1.0 - cdf))


def overflow_probability(
    conversations: int, pool_tokens: float, dist: ContextDistribution, shared_prefix_tokens: int = 0
) -> float:
    """P(the own tokens of ``conversations`` independent conversations exceed one pool of ``pool_tokens``).

    The shared prefix (stored once) is taken out of the pool here.
    """
    if conversations < 0:
        raise PlannerError("conversations: must be zero or more")
    pool = pool_tokens - (shared_prefix_tokens if conversations else 0)
    if conversations == 0:
        return 0.0
    if pool < 0 or (pool == 0 and _own_support(dist, shared_prefix_tokens) > 0):
        return 1.0
    if conversations <= EXACT_MAX_CONVERSATIONS:
        return _exact_probability(conversations, pool, dist, shared_prefix_tokens)
    return _edgeworth_probability(conversations, pool, dist, shared_prefix_tokens)


def deployment_overflow_probability(
    conversations: int,
    pool_tokens_per_replica: float,
    dist: ContextDistribution,
    replicas: int = 1,
    shared_prefix_tokens: int = 0,
) -> float:
    """P(at least one replica's pool overflows) with ``conversations`` spread evenly over ``replicas``."""
    if replicas < 1:
        raise PlannerError("replicas: must be at least 1")
    q, r = divmod(conversations, replicas)
    p_hi = overflow_probability(q + 1, pool_tokens_per_replica, dist, shared_prefix_tokens) if r else 0.0
    p_lo = overflow_probability(q, pool_tokens_per_replica, dist, shared_prefix_tokens) if replicas > r else 0.0
    return 1.0 - (1.0 - p_hi) ** r * (1.0 - p_lo) ** (replicas - r)


def conversations_at_risk(
    pool_tokens_per_replica: float,
    dist: ContextDistribution,
    risk: float,
    replicas: int = 1,
    shared_prefix_tokens: int = 0,
) -> int:
    """The most conversations whose overflow probability stays at or below ``risk`` (0 < risk < 1)."""
    if not 0 < risk < 1:
        raise PlannerError("risk: must be strictly between 0 and 1")

    def ok(n: int) -> bool:
        return deployment_overflow_probability(n, pool_tokens_per_replica, dist, replicas, shared_prefix_tokens) <= risk

    lo, hi = 0, max(1, replicas)
    while ok(hi):
        check()
        lo, hi = hi, hi * 2
        if hi > 10**8:  # pragma: no cover - a pool this large is not a real deployment
            return lo
    while hi - lo > 1:
        check()
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo


class OverflowReport(BaseModel, frozen=True, extra="forbid"):
    """Average or maximum: what a KV pool holds when conversation lengths vary."""

    pool_tokens_per_replica: int
    replicas: int
    shared_prefix_tokens: int
    distribution: str
    conversations: int  # the number asked about
    probability: float  # that the pool runs out with that many conversations at once
    conversations_at_1pct: int
    conversations_at_5pct: int
    planned_at_mean: int  # pool / mean length, per replica x replicas
    planned_at_p95: int
    planned_at_max: int | None  # None when uncapped
    method: str
    engine_behaviour: dict[str, str]  # each registered engine's full_pool_behaviour, by name
    explanation: str


def _per_length(pool: int, length: int, replicas: int, prefix: int) -> int:
    own = max(1, length - prefix)
    return max(0, (pool - prefix) // own) * replicas


def overflow_report(
    pool_tokens_per_replica: int,
    conversations: int,
    dist: ContextDistribution,
    replicas: int = 1,
    shared_prefix_tokens: int = 0,
) -> OverflowReport:
    """The overflow risk at ``conversations``, the counts that hold at 1 % and 5 % risk, and why planning at the
    mean, the p95 or the maximum gives the numbers it gives."""
    prob = deployment_overflow_probability(conversations, pool_tokens_per_replica, dist, replicas, shared_prefix_tokens)
    at1 = conversations_at_risk(pool_tokens_per_replica, dist, 0.01, replicas, shared_prefix_tokens)
    at5 = conversations_at_risk(pool_tokens_per_replica, dist, 0.05, replicas, shared_prefix_tokens)
    pool, prefix = pool_tokens_per_replica, shared_prefix_tokens
    at_mean = _per_length(pool, dist.mean_tokens, replicas, prefix)
    at_p95 = _per_length(pool, dist.p95_tokens, replicas, prefix)
    at_max = _per_length(pool, dist.max_tokens, replicas, prefix) if dist.max_tokens else None
    method = (
        f"exact convolution on a grid (N <= {EXACT_MAX_CONVERSATIONS} per replica), else a normal approximation "
        "with an Edgeworth correction; lengths from a " + dist.describe()
    )
    max_text = (
        f"Planning for the maximum ({dist.max_tokens:,} tokens each) gives {at_max:,}: nothing can ever overflow, "
        "but most of the reserved memory stays empty because few conversations get that long."
        if at_max is not None
        else "There is no maximum to plan for: the lengths are uncapped."
    )
    explanation = (
        f"The pool holds {pool:,} tokens per replica ({replicas} replica{'s' if replicas > 1 else ''}). "
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
    return OverflowReport(
        pool_tokens_per_replica=pool,
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
