"""How long conversations get: a lognormal fitted to a mean and a 95th percentile, optionally capped
(:class:`ContextDistribution`; the model is stated in :mod:`planner.advisor.overflow`)."""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import BaseModel, Field, model_validator

from planner.bounds.errors import PlannerError

Z95 = 1.6448536269514722  # standard normal 95th percentile
MAX_P95_OVER_MEAN = math.exp(Z95 * Z95 / 2)  # 3.87: the largest p95/mean a lognormal can have

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
    def one_length(self) -> bool:
        """Every conversation has the mean length (95th percentile = mean: the lognormal has no spread)."""
        return self.p95_tokens == self.mean_tokens

    @property
    def sigma(self) -> float:
        """Log-space standard deviation of the fitted lognormal (0: every conversation has the mean length)."""
        return lognormal_params(self.mean_tokens, self.p95_tokens)[1]

    @property
    def mu(self) -> float:
        return lognormal_params(self.mean_tokens, self.p95_tokens)[0]

    def describe(self) -> str:
        cap = f", capped at {self.max_tokens:,}" if self.max_tokens else ""
        if self.one_length:
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
