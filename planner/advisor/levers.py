"""The launch settings the advisor plans an option with where an engine's defaults miss a workload the setting
serves (:class:`LaunchLevers`, a part of :class:`planner.advisor.evaluate.Evaluator`): vLLM's ``--max-num-seqs``
(a hybrid's Mamba blocks, its default limit on running sequences), its step for windowed models
(:mod:`planner.assessment.window_lever`) and its memory fraction (lowered where the default is not free, raised on
a headless datacenter GPU where the default's pool misses the target)."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

from planner.advisor.options import Candidate
from planner.advisor.reuse import Kept, KeptFraction, OnGpu, StageKey, length_key
from planner.assessment.assess import Assessment, VerdictState
from planner.assessment.batch_lever import CURES, default_seqs
from planner.assessment.fixed_kv import fixed_kv_bytes
from planner.assessment.search import (
    FRACTION_STEP,
    HIGHER_CURES,
    HIGHEST_FRACTION,
    LOWER_CURES,
    LOWEST_FRACTION,
    current_fraction,
    fraction_not_held_back,
    started_at,
    with_fraction,
)
from planner.assessment.window_lever import small_step, with_small_step
from planner.core.kv import kv_bytes_per_sequence
from planner.core.model import ModelSpec
from planner.core.overhead import OverheadModel
from planner.engines.registry import default_engine, engine_names
from planner.planning.plan import PlanRequest


def profile_engine(engine: str) -> str:
    """The registry engine whose profile plans a support-table engine (vLLM's Gaudi plugin: vLLM's)."""
    return engine if engine in engine_names() else default_engine()


class LaunchLevers:
    """The levers of :class:`planner.advisor.evaluate.Evaluator`, which provides what they read (below)."""

    target: int  # the conversations to hold
    context: int  # the tokens of each
    model: ModelSpec
    fixed: OverheadModel | None  # one overhead model for every set-up: no lever then
    _profiles: dict[str, OverheadModel]

    def profile(self, engine: str) -> OverheadModel:
        raise NotImplementedError

    def assessment(self, c: Candidate, engine: str) -> Assessment:
        raise NotImplementedError

    def kept_scopes(self, engine: str) -> Kept:
        raise NotImplementedError

    def _planned_request(self, c: Candidate, engine: str) -> PlanRequest:
        raise NotImplementedError

    def _slots_fixed(self, engine: str) -> bool:
        raise NotImplementedError

    def _length_free_key(self, c: Candidate, engine: str) -> StageKey:
        raise NotImplementedError

    def _on_gpu(self, c: Candidate, engine: str) -> OnGpu:
        raise NotImplementedError

    def another_engine_could_hold(self, c: Candidate, engine: str) -> bool:
        """Whether the engines after ``engine`` are worth trying for a candidate it does not serve: not where even
        all of a GPU's memory would hold fewer conversations than the target at the least any engine stores one in
        (:func:`planner.core.kv.kv_bytes_per_sequence` in the candidate's KV dtype: windows capped, no block or
        page padding). At 131,072 tokens most candidates are that far short. An engine's own cost of a conversation
        is no bound on another's: vLLM's pool held 25 of Gemma 3 27B's 6,000-token conversations on an H100 where
        TensorRT-LLM's, of the same memory, holds 33 (it had been kept from trying)."""
        least = kv_bytes_per_sequence(self.model, c.kv_dtype, self.context, c.tensor_parallel)
        memory = self._on_gpu(c, engine).memory
        return least <= 0 or memory // least * c.replicas >= max(1, self.target)

    def seqs_for_users(self, c: Candidate, engine: str, a: Assessment) -> tuple[Assessment, OverheadModel] | None:
        """The candidate with ``--max-num-seqs`` set, and that profile, where vLLM's default misses in a way the
        setting cures: it refuses for a reason fewer sequences cure (:data:`CURES`) and the users are fewer than the
        default, set then to the users and raised to what the pool holds (a hybrid's Mamba blocks had capped Qwen3.6
        on two RTX 3090s at the 2 users where the pool holds 13), or its default limit on sequences run at once,
        not its pool, keeps the target from being met (:attr:`Assessment.running_cap`: vLLM's 256 under 70 GiB)
        and the users are more; ``None`` otherwise, and under one overhead model for every set-up (kept)."""
        kind = a.report.failure_kind if a.report is not None else None
        refused = a.state is VerdictState.ENGINE_REFUSES and kind in CURES
        capped = a.running_cap is not None and a.conversations < self.target
        if not (refused or capped) or self._slots_fixed(engine) or self.fixed is not None:
            return None
        seqs, default = math.ceil(max(1, self.target) / c.replicas), default_seqs(self._request_of(c, engine, a))
        if default is None or (refused and seqs >= default) or (capped and seqs <= default):
            return None
        found, asked = self._with_seqs(c, engine, seqs), seqs
        for _ in range(2 if refused else 0):  # to the pool's count, which a larger flag shrinks a little (graphs)
            pool = min(default - 1, math.floor(found[0].concurrency / c.replicas + 1e-9))
            if pool > seqs:
                raised = self._with_seqs(c, engine, pool)
                if raised[0].conversations <= found[0].conversations:
                    break
                found, seqs = raised, pool
            elif asked < pool < seqs:  # raised past what the pool then holds: a hybrid's blocks would refuse it
                found, seqs = self._with_seqs(c, engine, pool), pool
            else:
                break
        return found

    def _request_of(self, c: Candidate, engine: str, a: Assessment) -> PlanRequest:
        """The candidate's own request under the engine (:meth:`_planned_request`), given ``a``, its assessment
        there: an assessment for no target users is of that very request (:func:`planner.assessment.launched.for_users`
        launches nothing without one; a kept one, of an equal request: it is kept by what the request reads), so a
        lever asks for it without building it (a copy of a validated request, once per set-up a ranking)."""
        return a.request if a.target_users is None else self._planned_request(c, engine)

    def _with_seqs(self, c: Candidate, engine: str, seqs: int) -> tuple[Assessment, OverheadModel]:
        """The candidate under ``--max-num-seqs seqs``."""
        key = f"{profile_engine(engine)} --max-num-seqs {seqs}"
        return self._planned_with(c, key, lambda: self.profile(engine).model_copy(update={"max_num_seqs": seqs}))

    def _planned_with(
        self, c: Candidate, key: str, make: Callable[[], OverheadModel]
    ) -> tuple[Assessment, OverheadModel]:
        """The candidate under a lever's profile (``make``, called once per ``key``), kept under that key of its own
        (so what the evaluator keeps per engine, and across rankings by the profile's value, serves it too), and
        that profile."""
        if key not in self._profiles:
            self._profiles[key] = make()
        return self.assessment(c, key), self._profiles[key]

    def step_for_windows(self, c: Candidate, engine: str, a: Assessment) -> tuple[Assessment, OverheadModel] | None:
        """The candidate with vLLM's step at 2,048 tokens (:mod:`planner.assessment.window_lever`), where its
        windowed layers' batches in flight, not its memory, keep it below the target; ``None`` otherwise."""
        if a.conversations * c.replicas >= self.target or self.fixed is not None:
            return None
        smaller = with_small_step(self._request_of(c, engine, a))
        if smaller is None:
            return None
        key = f"{profile_engine(engine)} --max-num-batched-tokens {small_step(smaller)}"
        return self._planned_with(c, key, lambda: smaller.overhead)

    def fraction_for_host(self, c: Candidate, engine: str, a: Assessment) -> tuple[Assessment, OverheadModel] | None:
        """The candidate with the highest memory fraction below the default that starts it, where the default asks
        for more than is free (vLLM on a DGX Spark, whose host holds ~11 GiB of the pool: 0.92 of 121.69 GiB is not
        free), as a buyer launches it (``--gpu-memory-utilization``) and as the Memory page's nearest set-up offers;
        ``None`` otherwise."""
        kind = a.report.failure_kind if a.report is not None else None
        if a.state is not VerdictState.ENGINE_REFUSES or kind not in LOWER_CURES or self.fixed is not None:
            return None
        request = self._request_of(c, engine, a)
        current = current_fraction(request)
        if current is None:
            return None
        fraction = self._fraction_that_starts(c, engine, request, current - FRACTION_STEP)
        if fraction is None:
            return None
        key = f"{profile_engine(engine)} memory fraction {fraction:.2f}"
        return self._planned_with(c, key, lambda: with_fraction(request, fraction).overhead)

    def _fraction_that_starts(self, c: Candidate, engine: str, request: PlanRequest, high: float) -> float | None:
        """:func:`fraction_that_starts` from :data:`LOWEST_FRACTION` to ``high``, what it searches kept across
        rankings (:class:`KeptFraction`) where the set-up starts there or not even the lowest is free: the failures
        it steps over read no length. Where the fraction found does not start (a pool too small for this context,
        which hides the sampler's failure above it), another context may find another: kept at this context only
        (keyed as the assessment is: the request reads no user count)."""
        scopes = self.kept_scopes(engine)
        at_length = length_key(c.gpu, self._on_gpu(c, engine), self.context)
        kept_here = scopes.starts_at_length.get(at_length)
        if kept_here is not None:
            return kept_here.fraction
        memo, key = scopes.fractions, self._length_free_key(c, engine)
        kept = memo.get(key) if memo is not None else None
        found = kept.fraction if kept is not None else fraction_not_held_back(request, LOWEST_FRACTION, high)
        started = started_at(request, found)
        if memo is not None and kept is None and (found is None or started is not None):
            memo.put(key, KeptFraction(found))
        return scopes.starts_at_length.put(at_length, KeptFraction(started)).fraction

    def fraction_raised(self, c: Candidate, engine: str, a: Assessment) -> tuple[Assessment, OverheadModel] | None:
        """The candidate at the lowest memory fraction above the default, up to :data:`HIGHEST_FRACTION`, whose pool
        holds the target, where the default's misses it (or the engine refuses for too small a cache) on a GPU that
        drives no display and shares no memory with a host (not a desktop card, not unified memory): the setting an
        engineer raises (``--gpu-memory-utilization 0.95``) before changing engine (vLLM on two B200s had been
        replaced by TensorRT-LLM for 48 of 50 conversations: an outside review, 2026-12-05). ``None`` otherwise."""
        kind = a.report.failure_kind if a.report is not None else None
        short = (a.fits and a.conversations * c.replicas < max(1, self.target)) or kind in HIGHER_CURES
        platform = c.gpu.platform
        if not short or self.fixed is not None or platform is None or platform.desktop_card or platform.integrated:
            return None
        report = a.report  # the pool at the highest fraction first: most candidates fall far short even there
        if report is not None and report.fraction is not None:  # vLLM's and TensorRT-LLM's: current_fraction's
            grown = (
                report.available_kv_cache_bytes_per_gpu
                + (HIGHEST_FRACTION - report.fraction) * report.total_memory_bytes
            )
            if not pool_could_hold(a, grown, c.replicas, max(1, self.target)):
                return None
        request = self._request_of(c, engine, a)
        current = current_fraction(request)
        if current is None or current >= HIGHEST_FRACTION or fixed_kv_bytes(request) is not None:
            return None
        best: tuple[Assessment, OverheadModel] | None = None
        for fraction in (HIGHEST_FRACTION, *_steps_up(current)):  # the highest first: most fall short even there
            key = f"{profile_engine(engine)} memory fraction {fraction:.2f}"
            found = self._planned_with(c, key, partial(_fraction_profile, request, fraction))
            if not found[0].fits or found[0].conversations * c.replicas < max(1, self.target):
                return best  # the one before it is the lowest that holds (None: not even the highest)
            best = found
        return best


def pool_could_hold(a: Assessment, pool_bytes_per_gpu: float, replicas: int, target: int) -> bool:
    """Whether a KV pool of ``pool_bytes_per_gpu`` could hold the target, each conversation costing what it does in
    ``a``'s pool (an upper bound where the pool given is: the working memory does not shrink); ``True`` where ``a``
    has no pool to scale (assess it). A pool the engine refuses as too small for one conversation still has its
    concurrency (:attr:`EngineReport.max_concurrency`, below one): at 131,072 tokens most set-ups short of the target
    are refused so, and were assessed again at a raised fraction that could not hold it either."""
    report = a.report
    if report is None or report.available_kv_cache_bytes_per_gpu <= 0:
        return True
    concurrency = a.concurrency or (
        report.max_concurrency * a.replicas if report.min_available_kv_cache_bytes > 0 else 0
    )
    if concurrency <= 0:
        return True
    return concurrency * pool_bytes_per_gpu / report.available_kv_cache_bytes_per_gpu * replicas >= target


def _fraction_profile(request: PlanRequest, fraction: float) -> OverheadModel:
    return with_fraction(request, fraction).overhead


def _steps_up(current: float) -> list[float]:
    """The fractions above ``current`` below :data:`HIGHEST_FRACTION`, highest first (the search stops at the first
    that falls short: the one before it is the lowest that holds)."""
    steps = round((HIGHEST_FRACTION - current) / FRACTION_STEP)
    return [round(current + k * FRACTION_STEP, 2) for k in range(steps - 1, 0, -1)]
