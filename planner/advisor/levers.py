"""The launch settings the advisor plans an option with where an engine's defaults miss a workload the setting
serves (:class:`LaunchLevers`, a part of :class:`planner.advisor.evaluate.Evaluator`): vLLM's ``--max-num-seqs``
(a hybrid's Mamba blocks, its default limit on running sequences) and its step for windowed models
(:mod:`planner.assessment.window_lever`)."""

from __future__ import annotations

import math
from collections.abc import Callable

from planner.advisor.options import Candidate
from planner.assessment.assess import Assessment, VerdictState
from planner.assessment.batch_lever import CURES, default_seqs
from planner.assessment.search import (
    FRACTION_STEP,
    LOWER_CURES,
    LOWEST_FRACTION,
    current_fraction,
    fraction_that_starts,
    with_fraction,
)
from planner.assessment.window_lever import small_step, with_small_step
from planner.core.overhead import OverheadModel
from planner.engines.registry import default_engine, engine_names
from planner.planning.plan import PlanRequest


def profile_engine(engine: str) -> str:
    """The registry engine whose profile plans a support-table engine (vLLM's Gaudi plugin: vLLM's)."""
    return engine if engine in engine_names() else default_engine()


class LaunchLevers:
    """The levers of :class:`planner.advisor.evaluate.Evaluator`, which provides what they read (below)."""

    target: int  # the conversations to hold
    fixed: OverheadModel | None  # one overhead model for every set-up: no lever then
    _profiles: dict[str, OverheadModel]

    def profile(self, engine: str) -> OverheadModel:
        raise NotImplementedError

    def assessment(self, c: Candidate, engine: str) -> Assessment:
        raise NotImplementedError

    def _planned_request(self, c: Candidate, engine: str) -> PlanRequest:
        raise NotImplementedError

    def _slots_fixed(self, engine: str) -> bool:
        raise NotImplementedError

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
        seqs, default = math.ceil(max(1, self.target) / c.replicas), default_seqs(self._planned_request(c, engine))
        if default is None or (refused and seqs >= default) or (capped and seqs <= default):
            return None
        found = self._with_seqs(c, engine, seqs)
        for _ in range(2 if refused else 0):  # to the pool's count, which a larger flag shrinks a little (graphs)
            pool = min(default - 1, math.floor(found[0].concurrency / c.replicas + 1e-9))
            raised = self._with_seqs(c, engine, pool) if pool > seqs else None
            if raised is None or raised[0].conversations <= found[0].conversations:
                break
            found, seqs = raised, pool
        return found

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
        smaller = with_small_step(self._planned_request(c, engine))
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
        request = self._planned_request(c, engine)
        current = current_fraction(request)
        if current is None:
            return None
        fraction = fraction_that_starts(request, LOWEST_FRACTION, current - FRACTION_STEP)
        if fraction is None:
            return None
        key = f"{profile_engine(engine)} memory fraction {fraction:.2f}"
        return self._planned_with(c, key, lambda: with_fraction(request, fraction).overhead)
