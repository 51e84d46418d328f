"""Step 2 of the ranking: evaluate one candidate set-up (see :mod:`planner.advisor.ranking`).

:class:`Evaluator` answers, in this order: can it be bought as planned (whole purchase units)? which engine runs
it (:mod:`planner.advisor.support`)? does it fit, and how many conversations does it hold (the planner's own
:func:`planner.planning.plan.plan_basis` / :func:`planner.planning.plan.stages_at` /
:func:`planner.planning.plan.fit_of`)? how fast is it
and what does it cost (:func:`planner.advisor.options.build_option`)? It caches what candidates share.
"""

from __future__ import annotations

import math

from planner.advisor.costs import Costs, costs
from planner.advisor.options import Candidate, Option, Rejected, RejectReason, build_option
from planner.advisor.support import SupportRow, runner, why_not
from planner.advisor.throughput import DecodeLoad, decode_load, prefill_seconds
from planner.advisor.workload import Workload
from planner.assessment.assess import assess
from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.core.overhead import EngineProfile, OverheadModel
from planner.core.params import parameter_breakdown
from planner.engines.registry import engine_of, get_engine
from planner.planning.plan import MemoryFit, PlanBasis, PlanRequest, fit_of, plan_basis, stages_at
from planner.planning.results import StageMemory

REFERENCE_MEMORY_BYTES = 10**12  # the memory size of the basis requests (plan_basis does not read it)


def reject(c: Candidate, reason: RejectReason, detail: str) -> Rejected:
    return Rejected(
        gpu_id=c.gpu.id,
        gpu_count=c.gpu_count,
        tensor_parallel=c.tensor_parallel,
        weights=c.weights,
        kv_dtype=c.kv_dtype,
        reason=reason,
        detail=detail,
    )


class Evaluator:
    """Evaluates candidates of one model and workload; caches what several candidates share (plan bases,
    fits per memory size, decode loads, prefill times, costs)."""

    def __init__(self, model: ModelSpec, workload: Workload, overhead: OverheadModel, block_size: int) -> None:
        self.model, self.workload, self.overhead, self.block_size = model, workload, overhead, block_size
        self.context = workload.context_tokens
        self.target = workload.target_concurrency
        self.params = parameter_breakdown(model)
        self.decode_context = min(self.context, workload.context.mean_tokens)
        self.prompt_tokens = max(0, workload.mean_prompt_tokens - workload.shared_prefix_tokens)
        self.moe = model.moe is not None
        self._bases: dict[tuple[int, str, str], PlanBasis] = {}
        self._stages: dict[tuple[int, int, str, str, str], tuple[StageMemory, ...]] = {}
        self._fits: dict[tuple[int, int, int, str, str, str], MemoryFit] = {}
        self._loads: dict[tuple[int, int, str, str], DecodeLoad] = {}
        self._prefills: dict[tuple[str, str, int], tuple[float | None, str]] = {}
        self._costs: dict[tuple[str, int], Costs] = {}
        self._held: dict[tuple[str, int, int, str, str, int], float] = {}
        self.engine = isinstance(overhead, EngineProfile)
        # An engine launched with a fixed number of slots (llama.cpp's -np) is sized for the target per replica.
        self.slots = isinstance(overhead, EngineProfile) and engine_of(overhead)[0].fixed_slots

    def basis(self, tp: int, w: str, kv: str) -> PlanBasis:
        """The memory-independent plan of one replica of ``tp`` GPUs."""
        key = (tp, w, kv)
        if key not in self._bases:
            self._bases[key] = plan_basis(
                PlanRequest(
                    model=self.model,
                    gpu_memory_bytes=REFERENCE_MEMORY_BYTES,
                    gpu_count=tp,
                    tensor_parallel=tp,
                    weights=w,
                    kv_dtype=kv,
                    context_tokens=self.context,
                    shared_prefix_tokens=self.workload.shared_prefix_tokens,
                    block_size=self.block_size,
                    overhead=self.overhead,
                )
            )
        return self._bases[key]

    def memory(self, gpu: GpuSpec) -> int:
        """The memory planned per GPU, as the Memory page plans it (:meth:`GpuSpec.memory_bytes_for`): the
        engine-visible total for an engine profile, a unified-memory machine's GPU share."""
        return gpu.memory_bytes_for(self.engine, self.workload.unified_memory_share)

    def held_per_replica(self, c: Candidate, fit: MemoryFit, engine: str) -> float:
        """Conversations one replica holds, the figure every surface shows: with an engine profile and no shared
        prefix, :func:`planner.assessment.assess.assess` (the engine's own accounting: block rounding, sliding-window
        groups,
        start-up check) of ``engine``, the row's (the ranking's profile when it is that engine's, else the row
        engine's defaults); otherwise the planner's paged capacity with the shared prefix stored once."""
        if not self.engine or (self.workload.shared_prefix_tokens and not self.slots):  # llama.cpp shares none
            return fit.capacity.sequences_with_shared_prefix / c.replicas
        memory = self.memory(c.gpu)
        users = math.ceil(max(1, self.target) / c.replicas)  # an engine with fixed slots is launched for them
        key = (c.gpu.id, memory, c.tensor_parallel, c.weights, c.kv_dtype, users if self.slots else 0)
        own = isinstance(self.overhead, EngineProfile) and self.overhead.engine_name == engine
        overhead = self.overhead if own else get_engine(engine).profile()
        if key not in self._held:
            request = PlanRequest(
                model=self.model,
                gpu=c.gpu,
                gpu_memory_bytes=memory,
                gpu_count=c.tensor_parallel,
                tensor_parallel=c.tensor_parallel,
                weights=c.weights,
                kv_dtype=c.kv_dtype,
                context_tokens=self.context,
                max_model_len=self.context,
                block_size=self.block_size,
                overhead=overhead,
            )
            self._held[key] = assess(request, users if self.slots else None).concurrency
        return self._held[key]

    def fit(self, c: Candidate) -> MemoryFit:
        """:func:`planner.planning.plan.fit_of` the candidate's basis at its GPU's memory, with its replicas (the stages
        of :func:`planner.planning.plan.stages_at` are shared by every replica count)."""
        memory = self.memory(c.gpu)
        gpu = c.gpu.name if self.engine else ""  # an engine's working space depends on the GPU (vLLM's batch)
        key = (memory, c.tensor_parallel, c.replicas, c.weights, c.kv_dtype, gpu)
        fit = self._fits.get(key)
        if fit is None:
            basis = self.basis(c.tensor_parallel, c.weights, c.kv_dtype)
            stage_key = (memory, c.tensor_parallel, c.weights, c.kv_dtype, gpu)
            stages = self._stages.get(stage_key)
            if stages is None:
                on_gpu = basis.model_copy(update={"request": basis.request.model_copy(update={"gpu": c.gpu})})
                stages = self._stages[stage_key] = stages_at(on_gpu if self.engine else basis, memory)
            fit = self._fits[key] = fit_of(basis, stages, c.replicas)
        return fit

    def costs(self, c: Candidate) -> Costs:
        key = (c.gpu.id, c.gpu_count)
        if key not in self._costs:
            self._costs[key] = costs(c.gpu, c.gpu_count, self.workload.pricing)
        return self._costs[key]

    def load(self, c: Candidate, batch: int) -> DecodeLoad:
        key = (c.tensor_parallel, batch, c.weights, c.kv_dtype)
        if key not in self._loads:
            self._loads[key] = decode_load(
                self.model, c.weights, c.kv_dtype, c.tensor_parallel, batch, self.decode_context, self.params
            )
        return self._loads[key]

    def prefill(self, c: Candidate, row: SupportRow) -> tuple[float | None, str]:
        key = (c.gpu.id, row.compute, c.tensor_parallel)
        if key not in self._prefills:
            self._prefills[key] = prefill_seconds(
                self.model, c.gpu, row.compute, c.tensor_parallel, self.prompt_tokens, self.params
            )
        return self._prefills[key]

    def purchase_problem(self, c: Candidate) -> str | None:
        """Why the set-up cannot be bought as planned (purchase pricing only; renting is per GPU)."""
        unit = c.gpu.purchase
        if self.workload.pricing != "purchase":
            return None
        if not unit.buyable:
            return f"{c.gpu.name} is not sold: {unit.description}; rent it (pricing cloud)"
        if c.gpu_count % unit.gpus_per_unit:
            return (
                f"{c.gpu.name} is sold as {unit.description}: plan a multiple of {unit.gpus_per_unit} GPUs, "
                "or rent them"
            )
        return None

    def evaluate(self, c: Candidate) -> Option | Rejected:
        """The candidate as an :class:`Option`, or rejected: illegal split, not for sale that way, no engine runs
        it, does not fit, below the target."""
        if c.problem is not None:
            return reject(c, "illegal-split", c.problem)
        not_for_sale = self.purchase_problem(c)
        if not_for_sale is not None:
            return reject(c, "not-for-sale", not_for_sale)
        prefer = self.overhead.engine_name if isinstance(self.overhead, EngineProfile) else None
        row = runner(c.gpu, c.weights, c.kv_dtype, self.moe, self.workload.engines, prefer)
        if row is None:
            return reject(c, "no-engine", why_not(c.gpu, c.weights, c.kv_dtype, self.moe, self.workload.engines))
        fit = self.fit(c)
        if fit.fit_status != "fits":
            memory = self.memory(c.gpu)
            detail = (
                f"weights and overhead exceed {memory / 2**30:.1f} GiB per GPU by "
                f"{-fit.limiting.headroom_bytes / 2**30:.2f} GiB"
                if fit.fit_status == "weights-do-not-fit"
                else f"the KV pool holds less than one {self.context:,}-token conversation"
            )
            return reject(c, "does-not-fit", detail)
        per_replica = self.held_per_replica(c, fit, row.engine)
        whole = math.floor(per_replica + 1e-9) * c.replicas
        if whole < max(1, self.target):
            detail = f"holds {whole:,} conversations of {self.context:,} tokens, target {self.target:,}"
            return reject(c, "below-target" if whole else "does-not-fit", detail)
        batch = max(1, math.ceil(self.target / c.replicas))
        load = self.load(c, batch)
        held = (per_replica * c.replicas, whole)
        return build_option(self.workload, c, fit, held, self.target, load, self.prefill(c, row), self.costs(c), row)
