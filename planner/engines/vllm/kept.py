"""What :class:`planner.engines.vllm.profile.VllmProfile` keeps of its answers across calls: the profile run's terms
per what they read, and the working space per stage context. Both are pure in the (frozen, hashable) profile and
their (frozen, hashable) arguments: the fitted constants and release rules a profile reads are fixed for the process
(``fitted_constants`` and ``vllm_rules`` are cached), and ``terms_of`` reads nothing of its stage context but the
arguments it is given. A ranking over the catalog asks the terms ~1,400 times for ~30 distinct answers and the
working space twice for each context (its two KV dtypes share it). Bounded (least recently used out); a profile that
cannot be hashed (a calibration fit's trial constants in a dict) is answered afresh by its caller.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

from planner.core.model import ModelSpec
from planner.core.overhead import OverheadBytes, StageContext
from planner.engines.vllm.terms import ProfileTerms, TermsInputs


class Profile(Protocol):
    """What is kept of a vLLM profile (:class:`planner.engines.vllm.profile.VllmProfile`)."""

    def terms_of(self, model: ModelSpec, inputs: TermsInputs) -> ProfileTerms: ...

    def per_gpu_of(self, ctx: StageContext) -> OverheadBytes: ...


@lru_cache(maxsize=1024)  # ~30 entries per model ranked, a few ints each
def terms_kept(profile: Profile, model: ModelSpec, inputs: TermsInputs) -> ProfileTerms:
    """``profile.terms_of(model, inputs)``, kept."""
    return profile.terms_of(model, inputs)


@lru_cache(maxsize=2048)  # a context and a few ints an entry
def per_gpu_kept(profile: Profile, ctx: StageContext) -> OverheadBytes:
    """``profile.per_gpu_of(ctx)``, kept."""
    return profile.per_gpu_of(ctx)
