"""A candidate's memory plan in the ranking (:class:`KeptMemory`, a part of
:class:`planner.advisor.evaluate.Evaluator`): its request as the Memory page plans it, the GPU-less basis, its
stages on its GPU and the first memory check, and its assessment under an engine's profile, each made once per
ranking and, where it reads no user count, kept across rankings (:mod:`planner.advisor.reuse`: at every length where
it reads none, else at its own)."""

from __future__ import annotations

import math

from pydantic import TypeAdapter

from planner.advisor.options import Candidate
from planner.advisor.reuse import (
    GpuStages,
    Kept,
    KeptRefusal,
    OnGpu,
    StageKey,
    expert_group,
    gpu_stages,
    kept_for,
    length_key,
    stage_key,
)
from planner.advisor.workload import Workload
from planner.assessment.assess import Assessment, assess
from planner.bounds.errors import PlannerError
from planner.bounds.limits import GpuMemoryBytes
from planner.bounds.walltime import check as walltime_check
from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.core.overhead import EngineProfile, OverheadModel
from planner.engines.registry import engine_of
from planner.planning.plan import MemoryFit, PlanBasis, PlanRequest, fit_of, plan_basis, plan_from
from planner.planning.results import PlanResult

REFERENCE_MEMORY_BYTES = 10**12  # the memory size of the basis requests (plan_basis does not read it)
MEMORY_BYTES: TypeAdapter[int] = TypeAdapter(GpuMemoryBytes)  # a request's memory size, validated alone


class KeptMemory:
    """The memory half of :class:`planner.advisor.evaluate.Evaluator`, which provides what it reads (below)."""

    model: ModelSpec
    workload: Workload
    context: int  # the tokens of each conversation
    target: int  # the conversations to hold
    block_size: int
    _bases: dict[tuple[str, int, str, str, int], PlanBasis]
    _fits: dict[OnGpu, MemoryFit]
    _stages: dict[OnGpu, GpuStages]
    _held: dict[tuple[OnGpu, int], Assessment]
    _requests: dict[OnGpu, PlanRequest]
    _kept_scopes: dict[int, Kept]
    _gpu_memory: dict[tuple[str, str], int]
    _on_gpus: dict[tuple[Candidate, str], OnGpu]

    def profile(self, engine: str) -> OverheadModel:
        raise NotImplementedError

    def _slots_fixed(self, engine: str) -> bool:
        raise NotImplementedError

    def memory(self, gpu: GpuSpec, overhead: OverheadModel) -> int:
        """The memory planned per GPU, as the Memory page plans it (:meth:`GpuSpec.memory_bytes_for`)."""
        return gpu.memory_bytes_for(isinstance(overhead, EngineProfile), self.workload.unified_memory_share)

    def request(self, c: Candidate, overhead: OverheadModel, memory: int) -> PlanRequest:
        """One replica of the candidate, as the Memory page plans it (one of its :func:`expert_group`)."""
        engine = isinstance(overhead, EngineProfile)
        group = expert_group(c, overhead, self.model)
        return PlanRequest(
            model=self.model,
            gpu=c.gpu,
            gpu_memory_bytes=memory,
            gpu_count=c.tensor_parallel,
            replica_of=group if group > 1 else None,
            tensor_parallel=c.tensor_parallel,
            weights=c.weights,
            kv_dtype=c.kv_dtype,
            context_tokens=self.context,
            max_model_len=self.context if engine else None,
            block_size=self.block_size,
            overhead=overhead,
        )

    def weights_fit(self, c: Candidate, engine: str) -> MemoryFit:
        """A cheap first check: the planner's fit of one replica (weights, working memory, one sequence)."""
        key = self._on_gpu(c, engine)
        if key not in self._fits:
            self._fits[key] = fit_of(self._basis(c, engine), self._kept(c, engine).fit_stages, 1)
        return self._fits[key]

    def _on_gpu(self, c: Candidate, engine: str) -> OnGpu:
        """The key of the candidate's fit, request and stages (:meth:`_new_on_gpu`), once per candidate and engine a
        ranking: asked ~3 times an option, by its assessment and each lever (a candidate hashes its GPU's kept hash)."""
        found = self._on_gpus.get((c, engine))
        if found is None:
            found = self._on_gpus[(c, engine)] = self._new_on_gpu(c, engine)
        return found

    def _new_on_gpu(self, c: Candidate, engine: str) -> OnGpu:
        """The key of the candidate's fit, request and stages (:class:`OnGpu`); its memory (:meth:`memory`, which
        reads only the GPU and the engine's profile) asked once per GPU and engine."""
        gpu_engine = (c.gpu.id, engine)
        memory = self._gpu_memory.get(gpu_engine)
        if memory is None:
            memory = self._gpu_memory[gpu_engine] = self.memory(c.gpu, self.profile(engine))
        group = expert_group(c, self.profile(engine), self.model)
        return OnGpu(engine, memory, c.tensor_parallel, c.weights, c.kv_dtype, c.gpu.id, group)

    def _basis(self, c: Candidate, engine: str) -> PlanBasis:
        """The GPU-less basis of the candidate's request (:func:`plan_basis`), once per engine, split and precisions,
        and kept across rankings at this context (:class:`Kept`: :meth:`request` reads no more than these, the
        profile and the block size, which the scope holds, and the context)."""
        group = expert_group(c, self.profile(engine), self.model)
        key = (engine, c.tensor_parallel, c.weights, c.kv_dtype, group)
        found = self._bases.get(key)
        if found is None:
            memo, kept_key = self.kept_scopes(engine).bases_at_length, (*key[1:], self.context)
            found = memo.get(kept_key)
            if found is None:
                base = self.request(c, self.profile(engine), REFERENCE_MEMORY_BYTES).model_copy(update={"gpu": None})
                found = memo.put(kept_key, plan_basis(base))
            self._bases[key] = found
        return found

    def _planned_request(self, c: Candidate, engine: str, on_gpu: OnGpu | None = None) -> PlanRequest:
        """The candidate's own request (:meth:`request` at its memory), once per engine, memory, split, precisions
        and GPU: its basis's request (:meth:`request` validated, once per engine, split and precisions) with the GPU
        (a validated :class:`GpuSpec`) and its memory size, validated alone; the request's one validator (the shared
        prefix against the context) reads neither. ``on_gpu``: its key (:meth:`_on_gpu`), when the caller has it."""
        key = on_gpu or self._on_gpu(c, engine)
        request = self._requests.get(key)
        if request is None:
            update = {"gpu": c.gpu, "gpu_memory_bytes": MEMORY_BYTES.validate_python(key.memory)}
            request = self._requests[key] = self._basis(c, engine).request.model_copy(update=update)
        return request

    def _kept(self, c: Candidate, engine: str, on_gpu: OnGpu | None = None) -> GpuStages:
        """The candidate's memory on its GPU (:func:`planner.advisor.reuse.gpu_stages`), once per engine, memory,
        split, precisions and GPU, and kept across rankings by :mod:`planner.advisor.reuse`: at every context where
        it reads no length (:func:`planner.advisor.reuse.stages_reusable`), else at this one."""
        key = on_gpu or self._on_gpu(c, engine)
        found = self._stages.get(key)
        if found is not None:
            return found
        scopes = self.kept_scopes(engine)
        if scopes.stages is not None:
            memo, memo_key = scopes.stages, self._length_free_key(c, engine, key)
        else:  # stages that may read a length: kept at this one, by the GPU they are planned on
            memo, memo_key = scopes.stages_at_length, length_key(c.gpu, key, self.context)
        kept = memo.get(memo_key)
        if kept is None:
            request = self._planned_request(c, engine, key)
            kept = gpu_stages(request, self._basis(c, engine), key.memory, c.gpu)
            memo.put(memo_key, kept)
        self._stages[key] = kept
        return kept

    def _length_free_key(self, c: Candidate, engine: str, on_gpu: OnGpu | None = None) -> StageKey:
        """The candidate's request but its lengths (:func:`planner.advisor.reuse.stage_key`)."""
        key = on_gpu or self._on_gpu(c, engine)
        return stage_key(c, key.memory, self.profile(engine), self.context, key.group)

    def _plan(self, c: Candidate, engine: str, on_gpu: OnGpu) -> PlanResult:
        """The plan of the candidate's own request (:func:`plan_from`: what ``plan()`` returns), made when first
        assessed: it reads the lengths. From its stages on the GPU (:meth:`_kept`) and the GPU-less basis:
        :func:`plan_from` reads neither the request's GPU and memory size nor the basis's weights (the stages hold
        those), and the two bases differ in nothing else (:func:`planner.planning.plan.plan_basis` with ``like``)."""
        return plan_from(self._basis(c, engine), self._kept(c, engine, on_gpu).stages)

    def kept_scopes(self, engine: str) -> Kept:
        """What is kept across rankings for this model under the engine's profile
        (:func:`planner.advisor.reuse.kept_for`), asked once per profile."""
        overhead = self.profile(engine)
        key = id(overhead)  # the evaluator holds its overhead models: an id is one of them while it lives
        if key not in self._kept_scopes:
            self._kept_scopes[key] = kept_for(self.model, overhead, self.block_size)
        return self._kept_scopes[key]

    def assessment(self, c: Candidate, engine: str) -> Assessment:
        """:func:`planner.assessment.assess.assess` of one replica under the engine's profile, launched for the
        target (an engine with fixed slots gets one per user of its replica); kept across rankings at this context
        (:class:`planner.advisor.reuse.Kept`: it reads its request and plan, neither of which reads the users)."""
        key = self.held_key(c, engine)
        held = self._held.get(key)
        if held is None:
            on_gpu, users = key
            memo, memo_key = self.kept_scopes(engine).assessments, length_key(c.gpu, on_gpu, self.context, users)
            held = memo.get(memo_key)
            if held is None:
                request, result = self._planned_request(c, engine, on_gpu), self._plan(c, engine, on_gpu)
                self._check(c, engine, on_gpu, request)
                held = memo.put(memo_key, assess(request, users or None, result, notes=False, engine_checked=True))
            self._held[key] = held
        return held

    def _check(self, c: Candidate, engine: str, on_gpu: OnGpu, request: PlanRequest) -> None:
        """:meth:`planner.engines.base.Engine.check` of the candidate's request, what the engine refuses kept at
        every length (:class:`planner.advisor.reuse.KeptRefusal`: it reads none of the advisor's requests' lengths)."""
        if not isinstance(request.overhead, EngineProfile):
            return
        memo, key = self.kept_scopes(engine).refusals, (c.gpu, on_gpu)
        kept = memo.get(key)
        if kept is None:
            kept = memo.put(key, KeptRefusal(engine_of(request.overhead)[0].refusal(request)))
        if kept.reason is not None:
            walltime_check()  # as assess() does before asking the engine
            raise PlannerError(f"engine: {kept.reason}")  # as Engine.check raises it

    def held_key(self, c: Candidate, engine: str) -> tuple[OnGpu, int]:
        """What :meth:`assessment` is kept by: the candidate on its GPU and the slots a fixed-slot engine gets."""
        users = math.ceil(max(1, self.target) / c.replicas) if self._slots_fixed(engine) else 0
        return self._on_gpu(c, engine), users
