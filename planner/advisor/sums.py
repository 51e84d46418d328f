"""The chance that N conversations of random length overflow a KV pool (the model is stated in
:mod:`planner.advisor.overflow`): exact FFT convolution up to :data:`EXACT_MAX_CONVERSATIONS` per replica, a normal
approximation with an Edgeworth correction above; what a conversation costs through a :class:`CostCurve` (tokens,
or the planner's bytes with sliding-window, chunked and linear-attention layers)."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from planner.advisor.lengths import ContextDistribution, lognormal_params
from planner.bounds.errors import PlannerError
from planner.bounds.walltime import check

EXACT_MAX_CONVERSATIONS = 256  # exact FFT convolution up to here, Edgeworth above
_FFT_POINTS = 2**18
_MOMENT_BINS = 4096
_TAIL_SIGMAS = 8.0  # an uncapped lognormal is cut where its tail mass is below 1e-15


class CostCurve(NamedTuple):
    """What a conversation of ``L`` tokens costs in the pool: ``per_token x L + sum(rate x min(L, window)) +
    fixed`` (full-attention layers, sliding-window or chunked layers capped at their window, linear-attention
    states), in any unit (the planner's bytes per GPU; the default counts tokens). Monotone in ``L``."""

    per_token: float = 1.0
    windows: tuple[tuple[int, float], ...] = ()  # (window tokens, cost per token below it)
    fixed: float = 0.0

    def at(self, tokens: float) -> float:
        if tokens <= 0:
            return 0.0
        return self.per_token * tokens + sum(r * min(tokens, w) for w, r in self.windows) + self.fixed

    def inverse(self, cost: float) -> float:
        """The length whose cost is ``cost`` (``inf`` when no length costs that much; 0 below the fixed part)."""
        if cost <= self.fixed:
            return 0.0
        low, low_cost = 0.0, self.fixed
        for high in [*sorted({float(w) for w, _ in self.windows}), math.inf]:
            slope = self.per_token + sum(r for w, r in self.windows if w > low)
            high_cost = math.inf if high == math.inf and slope > 0 else self.at(high) if high < math.inf else low_cost
            if high_cost >= cost:
                return low + (cost - low_cost) / slope if slope > 0 else math.inf
            low, low_cost = high, high_cost
        return math.inf


TOKENS = CostCurve()


def _phi_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _lognormal_cdf(x: float, mu: float, sigma: float) -> float:
    if x <= 0:
        return 0.0
    if sigma == 0:
        return 1.0 if x >= math.exp(mu) else 0.0
    return _phi_cdf((math.log(x) - mu) / sigma)


def _own_support(dist: ContextDistribution, shared_prefix: int, cost: CostCurve = TOKENS) -> float:
    """Largest cost of one conversation's own tokens (at the cap, or far in the tail)."""
    mu, sigma = lognormal_params(dist.mean_tokens, dist.p95_tokens)
    top = math.exp(mu + _TAIL_SIGMAS * sigma)
    if dist.max_tokens is not None:
        top = min(top, float(dist.max_tokens))
    return max(0.0, cost.at(top) - cost.at(shared_prefix))


@lru_cache(maxsize=256)
def _grid_pmf(
    dist: ContextDistribution, shared_prefix: int, bins: int, limit: float | None = None, cost: CostCurve = TOKENS
) -> tuple[float, tuple[float, ...]]:
    """``(step, pmf)``: one conversation's own cost (its tokens beyond the shared prefix, through ``cost``)
    rounded to the nearest multiple of ``step``, ``bins + 1`` points from 0 to the top of the support (the cap's
    mass sits on the last point).

    With ``limit`` (a pool size) the grid stops just past it: one conversation above the pool overflows it
    whatever the others hold, so the mass above is lumped on the last point, beyond the pool.
    """
    mu, sigma = lognormal_params(dist.mean_tokens, dist.p95_tokens)
    top = _own_support(dist, shared_prefix, cost)
    if limit is not None and top > limit:
        step = limit / (bins - 1)
    elif top <= 0:
        return 1.0, (1.0,)
    else:
        step = top / bins
    base = cost.at(shared_prefix)
    cdf = [_lognormal_cdf(cost.inverse(base + (j + 0.5) * step), mu, sigma) for j in range(bins)]
    pmf = [cdf[0]] + [cdf[j] - cdf[j - 1] for j in range(1, bins)] + [1.0 - cdf[-1]]
    return step, tuple(max(0.0, p) for p in pmf)


def _moments(
    dist: ContextDistribution, shared_prefix: int, cost: CostCurve = TOKENS
) -> tuple[float, float, float, float]:
    """Mean, variance, skewness and excess kurtosis of one conversation's own cost (fine grid)."""
    step, pmf = _grid_pmf(dist, shared_prefix, _MOMENT_BINS, None, cost)
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


def _point_cost(dist: ContextDistribution, shared_prefix: int, cost: CostCurve) -> float | None:
    """One conversation's own cost when every conversation is one length (95th percentile = mean: the lognormal
    of :func:`lognormal_params` has no spread, as the sidebar's fixed-length workload), else None.

    >>> fixed = ContextDistribution(mean_tokens=1_000, p95_tokens=1_000, max_tokens=1_000)
    >>> _point_cost(fixed, 200, TOKENS), _point_cost(fixed, 2_000, TOKENS)
    (800.0, 0.0)
    """
    if not dist.one_length:
        return None
    return max(0.0, cost.at(dist.mean_tokens) - cost.at(shared_prefix))


def _exact_probability(
    n: int, pool: float, dist: ContextDistribution, shared_prefix: int, cost: CostCurve = TOKENS
) -> float:
    bins = max(1024, min(4096, _FFT_POINTS // max(1, n)))
    step, pmf = _grid_pmf(dist, shared_prefix, bins, pool, cost)
    size = n * (len(pmf) - 1) + 1
    nfft = 1 << (size - 1).bit_length()
    spectrum = np.fft.rfft(np.asarray(pmf), nfft) ** n
    total = np.fft.irfft(spectrum, nfft)[:size]
    first_over = math.floor(pool / step) + 1  # grid points j with j * step > pool
    if first_over >= size:
        return 0.0
    return float(min(1.0, max(0.0, np.clip(total[first_over:], 0.0, None).sum())))


def _edgeworth_probability(
    n: int, pool: float, dist: ContextDistribution, shared_prefix: int, cost: CostCurve = TOKENS
) -> float:
    mean, var, skew, kurt = _moments(dist, shared_prefix, cost)
    if var == 0:
        return 1.0 if n * mean > pool else 0.0
    z = (pool - n * mean) / math.sqrt(n * var)
    g1, g2 = skew / math.sqrt(n), kurt / n
    density = math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    correction = g1 / 6 * (z * z - 1) + g2 / 24 * (z**3 - 3 * z) + g1 * g1 / 72 * (z**5 - 10 * z**3 + 15 * z)
    cdf = _phi_cdf(z) - density * correction
    return min(1.0, max(0.0, 1.0 - cdf))


def overflow_probability(
    conversations: int,
    pool_tokens: float,
    dist: ContextDistribution,
    shared_prefix_tokens: int = 0,
    cost: CostCurve = TOKENS,
) -> float:
    """P(the own cost of ``conversations`` independent conversations exceeds one pool of ``pool_tokens``, in the
    unit of ``cost``: tokens by default).

    The shared prefix (stored once) is taken out of the pool here. Conversations all of one length overflow
    exactly when the sum of their costs exceeds the pool.
    """
    if conversations < 0:
        raise PlannerError("conversations: must be zero or more")
    pool = pool_tokens - (cost.at(shared_prefix_tokens) if conversations else 0)
    if conversations == 0:
        return 0.0
    if pool < 0 or (pool == 0 and _own_support(dist, shared_prefix_tokens, cost) > 0):
        return 1.0
    point = _point_cost(dist, shared_prefix_tokens, cost)
    if point is not None:  # a step at the sum, exactly (a grid would round the cost to its step)
        return 1.0 if conversations * point > pool else 0.0
    if conversations <= EXACT_MAX_CONVERSATIONS:
        return _exact_probability(conversations, pool, dist, shared_prefix_tokens, cost)
    return _edgeworth_probability(conversations, pool, dist, shared_prefix_tokens, cost)


def deployment_overflow_probability(
    conversations: int,
    pool_tokens_per_replica: float,
    dist: ContextDistribution,
    replicas: int = 1,
    shared_prefix_tokens: int = 0,
    cost: CostCurve = TOKENS,
) -> float:
    """P(at least one replica's pool overflows) with ``conversations`` spread evenly over ``replicas``."""
    if replicas < 1:
        raise PlannerError("replicas: must be at least 1")
    q, r = divmod(conversations, replicas)
    pool = pool_tokens_per_replica
    p_hi = overflow_probability(q + 1, pool, dist, shared_prefix_tokens, cost) if r else 0.0
    p_lo = overflow_probability(q, pool, dist, shared_prefix_tokens, cost) if replicas > r else 0.0
    return 1.0 - (1.0 - p_hi) ** r * (1.0 - p_lo) ** (replicas - r)


def conversations_at_risk(
    pool_tokens_per_replica: float,
    dist: ContextDistribution,
    risk: float,
    replicas: int = 1,
    shared_prefix_tokens: int = 0,
    cost: CostCurve = TOKENS,
) -> int:
    """The most conversations whose overflow probability stays at or below ``risk`` (0 < risk < 1)."""
    if not 0 < risk < 1:
        raise PlannerError("risk: must be strictly between 0 and 1")

    def ok(n: int) -> bool:
        p = deployment_overflow_probability(n, pool_tokens_per_replica, dist, replicas, shared_prefix_tokens, cost)
        return p <= risk

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
