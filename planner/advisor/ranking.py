"""What should I buy to serve this model to this many people, and what will it cost?

:func:`rank` plans every catalog GPU x GPU count x legal tensor-parallel split x weight precision x KV dtype
for one model and one :class:`Workload`, in four steps, each a function:

1. **enumerate** (:func:`candidates`): every set-up, with the reason when its split is illegal;
2. **evaluate** (:class:`Evaluator`): memory and capacity by the planner's own formula, speed by the roofline of
   :mod:`planner.advisor.throughput`, costs by :mod:`planner.advisor.costs`; set-ups that do not fit or hold
   fewer conversations than the target are rejected here;
3. **filter** (:func:`filter_reason`): latency targets and the budget;
4. **sort** (:func:`sort_options`): cheapest first by the sort key; ties: more headroom, fewer GPUs.

Memory and capacity are :mod:`planner.plan`'s: :func:`planner.plan.plan_basis` runs once per (tensor-parallel
size, weight precision, KV dtype) (weights per GPU and KV bytes per sequence do not depend on the GPU's
memory) and :func:`planner.plan.stages_at` / :func:`planner.plan.fit_of` (together :func:`planner.plan.fit_at`)
evaluate it at each catalog memory size and replica count (pipeline parallel 1), so
``plan()`` and the advisor share one capacity formula; ``tests/advisor/test_rank.py`` checks that every figure
equals a direct ``plan()`` of the same set-up.

Per conversation: purchase dollars (or dollars per hour) / conversations held at once. Per million output
tokens: dollars per hour / (aggregate decode tokens per second at the target load x 3,600) x 10^6.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

from planner.advisor.costs import HOURS_PER_MONTH, Costs, costs
from planner.advisor.options import (
    Candidate,
    Option,
    Ranking,
    Rejected,
    RejectReason,
    SortKey,
    build_option,
    pareto_front,
)
from planner.advisor.throughput import DecodeLoad, decode_load, prefill_seconds
from planner.advisor.workload import Workload
from planner.engines.base import Estimate, OverheadModel
from planner.errors import PlannerError
from planner.gpu import GpuSpec
from planner.model import ModelSpec
from planner.parallel import parallel_problem
from planner.params import parameter_breakdown
from planner.plan import MemoryFit, PlanBasis, PlanRequest, StageMemory, fit_of, plan_basis, stages_at
from planner.precision import KV_FORMATS, WEIGHT_FORMATS

DEFAULT_COUNTS = (1, 2, 4, 8)
DEFAULT_WEIGHTS = ("bf16", "fp8", "int8", "int4-awq", "nvfp4", "q4_k_m")
DEFAULT_KV_DTYPES = ("bf16", "fp8")
REFERENCE_MEMORY_BYTES = 10**12  # the memory size of the basis requests (plan_basis does not read it)


def _splits(count: int) -> list[tuple[int, int]]:
    """Every (TP, replicas) with TP x replicas = count, largest TP first."""
    return [(tp, count // tp) for tp in range(count, 0, -1) if count % tp == 0]


def candidates(
    model: ModelSpec, gpus: Sequence[GpuSpec], counts: Sequence[int], weights: Sequence[str], kv_dtypes: Sequence[str]
) -> Iterator[Candidate]:
    """Every GPU count x (TP, replicas) split x GPU x weight precision x KV dtype, in that order (PP 1)."""
    for count in sorted(set(counts)):
        for tp, replicas in _splits(count):
            problem = parallel_problem(model, tp, 1, count)
            for gpu in gpus:
                gpu_problem = problem
                if gpu_problem is None and tp > 1 and gpu.vendor == "Apple":
                    gpu_problem = "Apple silicon is one chip per machine: no tensor parallelism across Macs"
                for w in weights:
                    for kv in kv_dtypes:
                        yield Candidate(gpu, count, tp, replicas, w, kv, gpu_problem)


def _reject(c: Candidate, reason: RejectReason, detail: str) -> Rejected:
    return Rejected.model_construct(
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
        self._bases: dict[tuple[int, str, str], PlanBasis] = {}
        self._stages: dict[tuple[int, int, str, str], tuple[StageMemory, ...]] = {}
        self._fits: dict[tuple[int, int, int, str, str], MemoryFit] = {}
        self._loads: dict[tuple[int, int, str, str], DecodeLoad] = {}
        self._prefills: dict[tuple[str, str, int], tuple[float | None, str]] = {}
        self._costs: dict[tuple[str, int], Costs] = {}

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

    def fit(self, c: Candidate) -> MemoryFit:
        """:func:`planner.plan.fit_of` the candidate's basis at its GPU's memory, with its replicas (the stages
        of :func:`planner.plan.stages_at` are shared by every replica count)."""
        memory = c.gpu.memory_bytes
        key = (memory, c.tensor_parallel, c.replicas, c.weights, c.kv_dtype)
        fit = self._fits.get(key)
        if fit is None:
            basis = self.basis(c.tensor_parallel, c.weights, c.kv_dtype)
            stage_key = (memory, c.tensor_parallel, c.weights, c.kv_dtype)
            stages = self._stages.get(stage_key)
            if stages is None:
                stages = self._stages[stage_key] = stages_at(basis, memory)
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

    def prefill(self, c: Candidate) -> tuple[float | None, str]:
        key = (c.gpu.id, c.weights, c.tensor_parallel)
        if key not in self._prefills:
            self._prefills[key] = prefill_seconds(
                self.model, c.gpu, c.weights, c.tensor_parallel, self.prompt_tokens, self.params
            )
        return self._prefills[key]

    def evaluate(self, c: Candidate) -> Option | Rejected:
        """The candidate as an :class:`Option`, or rejected: illegal split, does not fit, below the target."""
        if c.problem is not None:
            return _reject(c, "illegal-split", c.problem)
        fit = self.fit(c)
        if fit.fit_status != "fits":
            memory = c.gpu.memory_bytes
            detail = (
                f"weights and overhead exceed {memory / 2**30:.1f} GiB per GPU by "
                f"{-fit.limiting.headroom_bytes / 2**30:.2f} GiB"
                if fit.fit_status == "weights-do-not-fit"
                else f"the KV pool holds less than one {self.context:,}-token conversation"
            )
            return _reject(c, "does-not-fit", detail)
        held = fit.capacity.sequences_with_shared_prefix
        if held < self.target:
            detail = f"holds {held:,.1f} conversations of {self.context:,} tokens, target {self.target:,}"
            return _reject(c, "below-target", detail)
        batch = max(1, math.ceil(self.target / c.replicas))
        return build_option(self.workload, c, fit, self.target, self.load(c, batch), self.prefill(c), self.costs(c))


def _latency_problem(option: Option, workload: Workload) -> str | None:
    ttft, speed = workload.max_time_to_first_token_s, workload.min_tokens_per_s_per_user
    if ttft is not None and option.prefill_seconds is not None and option.prefill_seconds > ttft:
        return f"prefill {option.prefill_seconds:.2f} s > target {ttft:g} s to first token"
    per_user = option.decode_tokens_per_s_per_user
    if speed is not None and per_user is not None and per_user < speed:
        return f"{per_user:.1f} tokens/s per user at the target load < target {speed:g}"
    return None


def filter_reason(option: Option, workload: Workload) -> tuple[RejectReason, str] | None:
    """Why a feasible option is left out: a missed latency target, an unknown price or the budget (``None``:
    kept)."""
    why = _latency_problem(option, workload)
    if why:
        return "latency-target-missed", why
    if workload.budget_usd is None:
        return None
    if option.cost is None:
        return "unknown-price", option.price_basis
    spend = option.cost if workload.pricing == "purchase" else option.cost * HOURS_PER_MONTH
    if spend > workload.budget_usd:
        unit = "" if workload.pricing == "purchase" else " per month"
        return "over-budget", f"${spend:,.0f}{unit} > budget ${workload.budget_usd:,.0f}{unit}"
    return None


def _sort_value(option: Option, sort_by: SortKey) -> float | None:
    if sort_by == "cost":
        return option.cost
    if sort_by == "cost_per_conversation":
        return option.usd_per_conversation
    return option.usd_per_million_output_tokens


def sort_options(options: list[Option], sort_by: SortKey) -> list[Option]:
    """Cheapest first by ``sort_by`` (unknown last); ties: more headroom, fewer GPUs, then the label."""

    def key(o: Option) -> tuple[bool, float, float, int, str]:
        value = _sort_value(o, sort_by)
        return (value is None, value if value is not None else 0.0, -o.headroom, o.gpu_count, o.label)

    return sorted(options, key=key)


def _catalog_gpus(workload: Workload, gpus: Sequence[GpuSpec] | None) -> list[GpuSpec]:
    """``gpus`` (default: the catalog), filtered by ``workload.gpu_ids``; unknown ids are an error."""
    if gpus is not None:
        return [g for g in gpus if workload.gpu_ids is None or g.id in workload.gpu_ids]
    from model_catalog import load_gpus  # the catalog imports the planner: import late

    catalog = load_gpus()
    if workload.gpu_ids is None:
        return list(catalog.values())
    unknown = [g for g in workload.gpu_ids if g not in catalog]
    if unknown:
        raise PlannerError(f"gpu_ids: unknown GPU {', '.join(unknown)}; see `python -m planner gpus`")
    return [catalog[g] for g in workload.gpu_ids]


def _check_inputs(
    model: ModelSpec, workload: Workload, counts: Sequence[int], weights: Sequence[str], kv_dtypes: Sequence[str]
) -> None:
    for name in weights:
        if name not in WEIGHT_FORMATS:
            raise PlannerError(f"weights: unknown precision {name!r}; choose from {', '.join(WEIGHT_FORMATS)}")
    for name in kv_dtypes:
        if name not in KV_FORMATS:
            raise PlannerError(f"kv_dtypes: unknown KV dtype {name!r}; choose from {', '.join(KV_FORMATS)}")
    if any(c < 1 for c in counts):
        raise PlannerError("counts: every GPU count must be at least 1")
    context = workload.context_tokens
    if context > model.max_position_embeddings:
        raise PlannerError(
            f"context: {context:,} tokens exceeds {model.id}'s maximum of {model.max_position_embeddings:,}"
        )


def _global_assumptions(workload: Workload, overhead: OverheadModel) -> dict[str, str]:
    return {
        "target": workload.target_note,
        "context": (
            f"each conversation sized at its {workload.plan_at} length, {workload.context_tokens:,} tokens; lengths: "
            + workload.context.describe()
        ),
        "memory": f"planner.plan.plan with the {overhead.kind} overhead model; PP 1; capacity in 16-token blocks",
        "shared prefix": (
            f"{workload.shared_prefix_tokens:,}-token shared system prompt stored once per replica (prefix caching)"
            if workload.shared_prefix_tokens
            else "no shared prefix"
        ),
        "speed": (
            "roofline estimates (planner.advisor.throughput): within about 10 % of most published NVIDIA "
            "measurements (one held-out outlier +68 %), about +45 % on Apple silicon; see "
            "planner.advisor.validation_rows"
        ),
        "prices": (
            "catalog prices as dated there; GPUs only"
            if workload.pricing == "purchase"
            else f"cheapest dated cloud price per GPU-hour; budget per month of {HOURS_PER_MONTH} hours"
        ),
    }


def _warnings(options: list[Option], workload: Workload, gpus: Sequence[GpuSpec]) -> tuple[str, ...]:
    warnings: list[str] = []
    if not options:
        warnings.append("no set-up meets the workload: see the rejected options")
    priced = sum(1 for g in gpus if g.cloud_prices)
    if workload.pricing == "cloud" and priced < len(gpus):
        warnings.append(
            f"only {priced} of {len(gpus)} GPUs have a dated cloud price in the catalog; the others are unpriced"
        )
    return tuple(warnings)


def rank(
    model: ModelSpec,
    workload: Workload,
    gpus: Sequence[GpuSpec] | None = None,
    counts: Sequence[int] = DEFAULT_COUNTS,
    weights: Sequence[str] = DEFAULT_WEIGHTS,
    kv_dtypes: Sequence[str] = DEFAULT_KV_DTYPES,
    overhead: OverheadModel | None = None,
    sort_by: SortKey = "cost",
    block_size: int = 16,
) -> Ranking:
    """Plan every GPU x count x legal TP split (PP 1, leftover GPUs as data-parallel replicas) x weight precision
    x KV dtype and rank the feasible ones: enumerate, evaluate, filter, sort (see the module docstring).

    ``gpus`` defaults to the catalog, filtered by ``workload.gpu_ids``.
    """
    overhead = overhead if overhead is not None else Estimate()
    gpus = _catalog_gpus(workload, gpus)
    _check_inputs(model, workload, counts, weights, kv_dtypes)
    evaluator = Evaluator(model, workload, overhead, block_size)
    options: list[Option] = []
    rejected: list[Rejected] = []
    for candidate in candidates(model, gpus, counts, weights, kv_dtypes):
        outcome = evaluator.evaluate(candidate)
        if isinstance(outcome, Rejected):
            rejected.append(outcome)
            continue
        reason = filter_reason(outcome, workload)
        if reason is not None:
            rejected.append(_reject(candidate, *reason))
            continue
        options.append(outcome)
    options = sort_options(options, sort_by)
    return Ranking(
        model_id=model.id,
        workload=workload,
        context_tokens=workload.context_tokens,
        target_concurrency=workload.target_concurrency,
        target_note=workload.target_note,
        sort_by=sort_by,
        options=tuple(options),
        rejected=tuple(rejected),
        pareto_cost_capacity=pareto_front(options, "capacity"),
        pareto_cost_throughput=pareto_front(options, "throughput"),
        assumptions=_global_assumptions(workload, overhead),
        warnings=_warnings(options, workload, gpus),
    )
