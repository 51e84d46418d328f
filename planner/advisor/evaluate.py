"""Step 2 of the ranking: evaluate one candidate set-up (see :mod:`planner.advisor.ranking`).

:class:`Evaluator` answers, in this order: can it be bought as planned (whole purchase units, a catalog host
that holds them)? which engine runs it (:func:`planner.advisor.support.runner`), and does that engine suit the
workload (:mod:`planner.advisor.suitability`)? does it fit, and how many conversations does it hold — by
:func:`planner.assessment.assess.assess` under THAT engine's own profile at its defaults, the answer the Memory
page gives for the same set-up? Then :func:`planner.advisor.build.build_option` adds speed and costs. It caches
what candidates share (plan bases per engine, memory fits, assessments, loads:
:mod:`planner.advisor.kept_memory`); the checks that read no length
(:meth:`Evaluator.screen`) are kept across rankings by :mod:`planner.advisor.screen`; of the rest
(:meth:`Evaluator.finish`), the assessments and the stages are kept at their context
(:class:`planner.advisor.reuse.Kept`: they read no user count), the options built at every ranking.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.advisor.build import Built, build_option
from planner.advisor.costs import Assumptions, HostChoice, choose_host
from planner.advisor.fallback_pool import FallbackPools, full_attention
from planner.advisor.kept_memory import KeptMemory
from planner.advisor.levers import LaunchLevers, profile_engine
from planner.advisor.misfits import no_host, short_of
from planner.advisor.options import Candidate, Option, Rejected, purchase_problem, reject
from planner.advisor.reuse import (
    GpuStages,
    Kept,
    OnGpu,
    expert_group,
    profiles_key,
    stages_reusable,
)
from planner.advisor.screen import Pending, Screened, ScreenKey
from planner.advisor.suitability import engine_problem, rack_only
from planner.advisor.support import SupportRow, engine_kv, runners_or_why
from planner.advisor.workload import Workload
from planner.assessment.assess import Assessment
from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.core.host import HostSpec
from planner.core.model import ModelSpec
from planner.core.overhead import EngineProfile, OverheadModel
from planner.core.params import parameter_breakdown
from planner.engines.accuracy import kv_accuracy
from planner.engines.registry import engine_names, engine_of, engine_profile
from planner.planning.plan import (
    MemoryFit,
    PlanBasis,
    PlanRequest,
)


class Evaluator(KeptMemory, LaunchLevers, FallbackPools):
    """Evaluates candidates of one model and workload (see the module docstring). ``overhead``: one overhead model
    for every set-up instead of each engine's own profile (tests comparing with a plain ``plan()``)."""

    def __init__(
        self,
        model: ModelSpec,
        workload: Workload,
        overhead: OverheadModel | None,
        block_size: int,
        hosts: Sequence[HostSpec],
        assumptions: Assumptions,
    ) -> None:
        self.model, self.workload, self.fixed, self.block_size = model, workload, overhead, block_size
        self.hosts, self.assumptions = tuple(hosts), assumptions
        self.context = workload.context_tokens
        self.target = workload.target_concurrency
        self.params = parameter_breakdown(model)
        self.moe, self.state_layers = model.moe is not None, model.linear_attention is not None
        self.full_attention, self._least = full_attention(model), {}
        self._profiles: dict[str, OverheadModel] = {}
        self._bases: dict[tuple[str, int, str, str, int], PlanBasis] = {}
        self._fits: dict[OnGpu, MemoryFit] = {}
        self._stages: dict[OnGpu, GpuStages] = {}
        self._held: dict[tuple[OnGpu, int], Assessment] = {}
        self._runners: dict[tuple[str | None, str, str], tuple[SupportRow, ...] | str] = {}
        self._hosts: dict[tuple[str, int, int], HostChoice | None] = {}
        self._requests: dict[OnGpu, PlanRequest] = {}
        self._kept_scopes: dict[int, Kept] = {}
        self._gpu_memory: dict[tuple[str, str], int] = {}
        self._on_gpus: dict[tuple[Candidate, str], OnGpu] = {}
        self._fixed_slots: dict[str, bool] = {}
        self._engine_kv: dict[tuple[str, str], str] = {}
        self.built = Built(model, workload, self.params)

    def profile(self, engine: str) -> OverheadModel:
        """The overhead model a set-up run by ``engine`` is planned with: the engine's profile at its defaults (or,
        under a key :meth:`fewer_seqs` made, that profile with fewer sequences)."""
        if self.fixed is not None:
            return self.fixed
        if engine in self._profiles:
            return self._profiles[engine]
        name = profile_engine(engine)
        if name not in self._profiles:
            self._profiles[name] = engine_profile(name)
        return self._profiles[name]

    def _slots_fixed(self, engine: str) -> bool:
        """Whether the engine fixes its slots at start-up (llama.cpp ``-np``), asked once per engine."""
        fixed = self._fixed_slots.get(engine)
        if fixed is None:
            overhead = self.profile(engine)
            fixed = isinstance(overhead, EngineProfile) and engine_of(overhead)[0].fixed_slots
            self._fixed_slots[engine] = fixed
        return fixed

    def runner(self, c: Candidate) -> tuple[SupportRow, ...] | str:
        """The engines that run the candidate, in the order they are tried (:func:`planner.advisor.support.runners`),
        or why none does: both read the GPU only through its architecture, so they are asked once per architecture,
        weights and KV dtype."""
        key = (c.gpu.architecture, c.weights, c.kv_dtype)
        if key not in self._runners:
            self._runners[key] = runners_or_why(c.gpu, c.weights, c.kv_dtype, self.model, self.engines())
        return self._runners[key]

    def engines(self) -> tuple[str, ...] | None:
        """The engines a set-up may run on: the buyer's, or, under one engine's profile for every set-up
        (``overhead``), that engine alone (it plans them, so it runs them)."""
        if isinstance(self.fixed, EngineProfile):
            return (self.fixed.engine_name,)
        return self.workload.engines

    def together(self, c: Candidate, engine: str) -> int:
        """The GPUs one host must hold: a tensor-parallel group, or every rank of a group sharing the experts under
        ``engine`` (:func:`expert_group`)."""
        return c.tensor_parallel * expert_group(c, self.profile(engine), self.model)

    def host(self, c: Candidate, engine: str) -> HostChoice | None:
        """The hosts of the purchase (:func:`choose_host`), once per GPU, count and the GPUs one host must hold: a
        tensor-parallel group, or every rank of a group sharing the experts under ``engine``
        (:func:`expert_group`: an all-to-all or a tensor-parallel group over them all at every MoE layer)."""
        together = self.together(c, engine)
        key = (c.gpu.id, c.gpu_count, together)
        if key not in self._hosts:
            self._hosts[key] = choose_host(c.gpu, c.gpu_count, together, self.hosts, rack_only(self.workload))
        return self._hosts[key]

    def evaluate(self, c: Candidate) -> Option | Rejected:
        """The candidate as an :class:`Option`, or rejected (in the order of
        :data:`planner.advisor.options.RejectReason`): :meth:`screen`, then :meth:`finish`."""
        screened = self.screen(c)
        return screened if isinstance(screened, Rejected) else self.finish(screened)

    def screen(self, c: Candidate) -> Screened:
        """The checks that read no length (:mod:`planner.advisor.screen` keeps their outcomes across rankings): the
        split, the purchase, the engine and its suitability, the host, and the first memory check when its stages
        read no length (:func:`planner.advisor.reuse.stages_reusable`)."""
        if c.problem is not None:
            return reject(c, "illegal-split", c.problem)
        not_for_sale = purchase_problem(c, self.workload.pricing)
        if not_for_sale is not None:
            return reject(c, "not-for-sale", not_for_sale)
        rows = self.runner(c)
        if isinstance(rows, str):
            return reject(c, "no-engine", rows)
        suited = [r for r in rows if engine_problem(r.engine, self.workload) is None]
        row = suited[0] if suited else rows[0]
        c = c._replace(kv_dtype=self.engine_kv(c.kv_dtype, row.engine))  # the 16-bit cache the engine keeps
        if not suited:
            return reject(c, "engine-unsuited", engine_problem(row.engine, self.workload) or "")
        host = self.host(c, row.engine)
        if host is None and self.workload.pricing == "purchase":
            weights = self._weights_misfit(c, row.engine) if stages_reusable(self.profile(row.engine)) else None
            hosts = no_host(c.gpu, self.together(c, row.engine), rack_only(self.workload))
            return weights or reject(c, "no-host", hosts)  # a misfit first: no host mends it
        fallbacks = tuple(suited[1:])
        if not stages_reusable(self.profile(row.engine)):
            return Pending(c, row, host, False, fallbacks)
        misfit = self._weights_misfit(c, row.engine)
        if misfit is not None:
            limiting = self.weights_fit(c, row.engine).limiting  # kept: the misfit's own fit
            if not fallbacks or limiting.weights_bytes > limiting.gpu_memory_bytes:
                return misfit  # the weights alone overflow the GPU: no engine's working memory changes that
        return Pending(c, row, host, misfit is None, fallbacks)

    def _weights_misfit(self, c: Candidate, engine: str) -> Rejected | None:
        """The first memory check (:meth:`weights_fit`): the planner's own fit, as assess would find it."""
        fit = self.weights_fit(c, engine)
        if fit.fit_status != "weights-do-not-fit":
            return None
        stage = fit.limiting
        return reject(
            c,
            "does-not-fit",
            f"weights and working memory exceed {stage.gpu_memory_bytes / 2**30:.1f} GiB per GPU by "
            f"{-stage.headroom_bytes / 2**30:.2f} GiB",
        )

    def finish(self, p: Pending) -> Option | Rejected:
        """A candidate past :meth:`screen`: under its engine (:meth:`_serve`), else under the first of the engines
        after it (:attr:`Pending.fallbacks`) that holds the target, with why the first did not in its notes; else
        the first engine's reason."""
        c = p.candidate
        if c.replicas > self.target:  # a replica serves at least one user (the users are not in screen()'s key)
            idle = f"{c.replicas} replicas for {self.target:,} users: {c.replicas - self.target} would serve nobody"
            return reject(c, "idle-replicas", idle)
        first = self._serve(c, p.row, p.host, p.fit_checked)
        if isinstance(first, Option):
            return first
        if not self.another_engine_could_hold(c, p.row.engine):
            return first
        for row in p.fallbacks:
            host = self.host(c, row.engine)  # its own: the first engine's ranks may share the experts, its may not
            if host is None and self.workload.pricing == "purchase":
                continue
            tried = c._replace(kv_dtype=self.engine_kv(c.kv_dtype, row.engine))
            if self.pool_short(tried, row.engine):  # could not serve it: not assessed (planner.advisor.fallback_pool)
                continue
            served = self._serve(tried, row, host, False)
            if isinstance(served, Option):
                why = f"{p.row.label} does not serve it as planned ({first.detail}): {row.label} does"
                unchecked = kv_accuracy(row.engine, served.engine_version or "", c.gpu) is None
                doubt = (why,) if unchecked else ()  # held only by a figure no public start-up checks: a caveat
                return served.model_copy(
                    update={"warnings": (why, *served.warnings), "undermining": (*doubt, *served.undermining)}
                )
        return first

    def engine_kv(self, kv_dtype: str, engine: str) -> str:
        """:func:`engine_kv`, once per dtype and engine a ranking (it builds the engine's profile to read its cache)."""
        key = (kv_dtype, engine)
        found = self._engine_kv.get(key)
        if found is None:
            found = self._engine_kv[key] = engine_kv(kv_dtype, engine)
        return found

    def _serve(self, c: Candidate, row: SupportRow, host: HostChoice | None, fit_checked: bool) -> Option | Rejected:
        """The candidate under one engine: its first memory check (unless made), its assessment, and the option
        with its speed and costs. An engine that refuses at its default ``--max-num-seqs`` for a reason fewer
        sequences cure (:data:`planner.assessment.batch_lever.CURES`: a hybrid's Mamba blocks, the graph
        profiling's KV cache, the sampler's warm-up) is planned as a buyer would launch it: with ``--max-num-seqs``
        at the users a replica serves; so is one whose default limit on running sequences, not its pool, misses the
        target (:meth:`seqs_for_users`); likewise the memory fraction and the batched tokens (:mod:`levers`)."""
        misfit = None if fit_checked else self._weights_misfit(c, row.engine)
        if misfit is not None:
            return misfit
        try:
            a, overhead = self.assessment(c, row.engine), self.profile(row.engine)
        except PlannerError as refused:  # the engine does not run the set-up as planned (its Engine.refusal)
            return reject(c, "no-engine", str(refused).removeprefix("engine: "))
        self.keep_pool(c, row.engine, a)  # the pool at the engine's defaults, for the fallback's bound
        why = short_of(a, c.replicas, self.target, self.context)
        for lever in (self.fraction_for_host, self.fraction_raised, self.seqs_for_users, self.step_for_windows):
            retried = lever(c, row.engine, a) if why is not None else None
            if retried is not None and short_of(retried[0], c.replicas, self.target, self.context) is None:
                (a, overhead), why = retried, None  # else the default's reason stands
        if why is not None:
            return reject(c, *why)
        return build_option(self.built, c, row, a, overhead, host, self.assumptions)

    def screen_key(
        self, gpus: Sequence[GpuSpec], counts: Sequence[int], weights: Sequence[str], kv_dtypes: Sequence[str]
    ) -> ScreenKey:
        """Everything :meth:`screen` reads over the candidates of these GPUs, counts, precisions and KV dtypes (the
        :mod:`planner.advisor.screen` docstring)."""
        w = self.workload
        names = engine_names()
        return (
            type(self),
            self.model,
            tuple(gpus),
            tuple(counts),
            tuple(weights),
            tuple(kv_dtypes),
            w.pricing,
            w.engines,
            rack_only(w),
            tuple(engine_problem(e, w) for e in names),
            w.unified_memory_share,
            self.hosts,
            profiles_key([self.profile(e) for e in names], self.context),
            self.block_size,
        )
