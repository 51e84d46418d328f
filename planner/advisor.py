"""What should I buy to serve this model to this many people, and what will it cost?

:func:`rank` plans every catalog GPU x GPU count x legal tensor-parallel split x weight precision x KV dtype
for one model and one :class:`Workload`, keeps the set-ups that hold the target number of conversations
(and meet the budget and latency targets), and sorts them by cost. Every figure says what it assumes.

Memory and capacity are :func:`planner.plan.plan`'s. To answer in well under a second over the whole catalog,
``plan()`` runs once per (tensor-parallel size, weight precision) at a reference memory size; the per-GPU
weights it returns do not depend on the GPU's memory, the overhead model is asked for each memory size, and the
capacity formula of ``plan()`` (pipeline parallel 1: one stage) is applied per GPU.
``tests/advisor/test_rank.py`` checks that every figure equals a direct ``plan()`` of the same set-up.

Costs:

- ``purchase``: the catalog's purchase price (a launch MSRP or a widely reported street price, dated) x GPUs.
  GPUs only: servers, networking, power and staff are not counted in the purchase total. The hourly figure
  amortises the purchase over ``AMORTISATION_YEARS`` of continuous use and adds power at the GPU's TDP and
  ``POWER_USD_PER_KWH`` (when the TDP is known).
- ``cloud``: the cheapest on-demand price per GPU-hour in the catalog (provider and date named) x GPUs; the
  budget is then per month of ``HOURS_PER_MONTH`` hours.
- Unknown prices (``None`` in the catalog) do not crash: without a budget the option is kept, with no cost
  figures, and sorted after every priced option; with a budget it is rejected as ``unknown-price`` (it cannot
  be shown to fit the budget).

Per conversation: purchase dollars (or dollars per hour) / conversations held at once. Per million output
tokens: dollars per hour / (aggregate decode tokens per second at the target load x 3,600) x 10^6.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Annotated, Literal, NamedTuple

from pydantic import BaseModel, Field, model_validator

from planner.engines.base import Estimate, OverheadModel, StageContext
from planner.errors import PlannerError
from planner.gpu import GpuSpec
from planner.kv import kv_bytes_per_sequence, kv_bytes_per_token
from planner.model import ModelSpec
from planner.overflow import ContextDistribution, OverflowReport, overflow_report
from planner.parallel import parallel_problem
from planner.params import ParameterBreakdown, parameter_breakdown
from planner.plan import FitStatus, PlanRequest, plan
from planner.precision import KV_FORMATS, WEIGHT_FORMATS
from planner.throughput import DecodeLoad, decode_load, decode_step, prefill_seconds

PositiveInt = Annotated[int, Field(gt=0)]
PositiveFloat = Annotated[float, Field(gt=0)]

DEFAULT_COUNTS = (1, 2, 4, 8)
DEFAULT_WEIGHTS = ("bf16", "fp8", "int8", "int4-awq", "nvfp4", "q4_k_m")
DEFAULT_KV_DTYPES = ("bf16", "fp8")
AMORTISATION_YEARS = 3
HOURS_PER_YEAR = 8760
HOURS_PER_MONTH = 730
POWER_USD_PER_KWH = 0.15
DEFAULT_TOKENS_PER_S_PER_USER = 20.0  # Little's law without a speed target: a comfortable reading stream
DEFAULT_MIN_TOKENS_PER_S_PER_USER = 10.0  # the default speed floor of a Workload
REFERENCE_MEMORY_BYTES = 10**12  # the memory size of the reference plans (any size gives the same weights)

RejectReason = Literal[
    "illegal-split", "does-not-fit", "below-target", "latency-target-missed", "unknown-price", "over-budget"
]
SortKey = Literal["cost", "cost_per_conversation", "cost_per_million_tokens"]
Pricing = Literal["purchase", "cloud"]
PlanAt = Literal["mean", "p95", "max"]


class ContextPreset(BaseModel, frozen=True, extra="forbid"):
    """A named workload shape: its figures are judgement calls, stated with a one-line reason."""

    name: str
    label: str
    context: ContextDistribution
    mean_prompt_tokens: int
    mean_output_tokens: int
    justification: str


PRESETS: dict[str, ContextPreset] = {
    p.name: p
    for p in (
        ContextPreset(
            name="support-chat",
            label="Support chat",
            context=ContextDistribution(mean_tokens=2_000, p95_tokens=6_000, max_tokens=8_192),
            mean_prompt_tokens=1_500,
            mean_output_tokens=300,
            justification=(
                "a ~1k-token system prompt plus a few short turns; the tail is users pasting logs or long emails"
            ),
        ),
        ContextPreset(
            name="rag",
            label="RAG over documents",
            context=ContextDistribution(mean_tokens=6_000, p95_tokens=12_000, max_tokens=32_768),
            mean_prompt_tokens=5_000,
            mean_output_tokens=400,
            justification="5-10 retrieved chunks of 500-1,000 tokens plus the question; answers are short",
        ),
        ContextPreset(
            name="coding-agent",
            label="Coding agent",
            context=ContextDistribution(mean_tokens=24_000, p95_tokens=64_000, max_tokens=131_072),
            mean_prompt_tokens=20_000,
            mean_output_tokens=800,
            justification="repository files and tool outputs pile up over many agent steps; long sessions dominate",
        ),
        ContextPreset(
            name="long-document",
            label="Long-document analysis",
            context=ContextDistribution(mean_tokens=40_000, p95_tokens=100_000, max_tokens=131_072),
            mean_prompt_tokens=38_000,
            mean_output_tokens=1_000,
            justification="whole reports, contracts or filings in the prompt; one long read, a summary back",
        ),
    )
}


class Workload(BaseModel, frozen=True, extra="forbid"):
    """Who is served: how many at once (or how many requests per second), how long, at what price and speed."""

    concurrent_conversations: PositiveInt | None = None
    requests_per_s: PositiveFloat | None = None
    mean_prompt_tokens: PositiveInt = 1_000
    mean_output_tokens: PositiveInt = 300
    context: ContextDistribution
    plan_at: PlanAt = "p95"  # the per-conversation length each option is sized for
    shared_prefix_tokens: Annotated[int, Field(ge=0)] = 0  # a system prompt every conversation shares
    pricing: Pricing = "purchase"
    budget_usd: PositiveFloat | None = None  # purchase: total; cloud: per month (HOURS_PER_MONTH hours)
    gpu_ids: tuple[str, ...] | None = None  # candidate GPUs; None: the whole catalog
    max_time_to_first_token_s: PositiveFloat | None = None
    # A floor below which streaming chat feels broken; None: no speed target.
    min_tokens_per_s_per_user: PositiveFloat | None = DEFAULT_MIN_TOKENS_PER_S_PER_USER
    preset: str | None = None  # the preset it came from, for labels

    @model_validator(mode="after")
    def _check(self) -> Workload:
        if (self.concurrent_conversations is None) == (self.requests_per_s is None):
            raise ValueError("give exactly one of concurrent_conversations and requests_per_s")
        if self.shared_prefix_tokens > self.context_tokens:
            raise ValueError("shared_prefix_tokens cannot exceed the planning context")
        if self.plan_at == "max" and self.context.max_tokens is None:
            raise ValueError("plan_at 'max' needs context.max_tokens")
        return self

    @classmethod
    def from_preset(cls, name: str, **fields: object) -> Workload:
        """A workload with a preset's context distribution and mean prompt and output lengths."""
        if name not in PRESETS:
            raise PlannerError(f"preset: unknown {name!r}; choose one of {', '.join(PRESETS)}")
        preset = PRESETS[name]
        data: dict[str, object] = {
            "context": preset.context,
            "mean_prompt_tokens": preset.mean_prompt_tokens,
            "mean_output_tokens": preset.mean_output_tokens,
            "preset": name,
        }
        data.update(fields)
        return cls.model_validate(data)

    @property
    def context_tokens(self) -> int:
        """The length each conversation is sized for (the distribution's mean, p95 or cap)."""
        if self.plan_at == "mean":
            return self.context.mean_tokens
        if self.plan_at == "max":
            assert self.context.max_tokens is not None  # validated
            return self.context.max_tokens
        return self.context.p95_tokens

    @property
    def target_concurrency(self) -> int:
        """Conversations held at once: as given, or by Little's law from the request rate."""
        if self.concurrent_conversations is not None:
            return self.concurrent_conversations
        assert self.requests_per_s is not None  # validated
        speed = self.min_tokens_per_s_per_user or DEFAULT_TOKENS_PER_S_PER_USER
        seconds = self.mean_output_tokens / speed + (self.max_time_to_first_token_s or 0.0)
        return max(1, math.ceil(self.requests_per_s * seconds))

    @property
    def target_note(self) -> str:
        if self.concurrent_conversations is not None:
            n = self.concurrent_conversations
            return f"{n:,} concurrent conversation{'s' if n != 1 else ''} (given)"
        speed = self.min_tokens_per_s_per_user or DEFAULT_TOKENS_PER_S_PER_USER
        return (
            f"{self.target_concurrency:,} concurrent conversations by Little's law: {self.requests_per_s:g} "
            f"requests/s x ({self.mean_output_tokens:,} output tokens / {speed:g} tokens/s per user"
            + (f" + {self.max_time_to_first_token_s:g} s to first token" if self.max_time_to_first_token_s else "")
            + ")"
        )


class Option(BaseModel, frozen=True, extra="forbid"):
    """One feasible set-up, with every figure and what it assumes (``assumptions`` by figure name)."""

    gpu_id: str
    gpu_name: str
    gpu_count: int
    tensor_parallel: int
    replicas: int
    weights: str
    kv_dtype: str
    context_tokens: int
    concurrency: float  # conversations of context_tokens held at once (paged, shared prefix stored once)
    target_concurrency: int
    headroom: float  # concurrency / target - 1: the spare share
    kv_pool_bytes_per_gpu: int
    kv_budget_tokens: int  # whole deployment
    kv_budget_tokens_per_replica: int
    weights_bytes_per_gpu: int
    batch_per_replica: int  # sequences decoding together at the target load
    decode_tokens_per_s_per_user: float | None
    decode_tokens_per_s_total: float | None
    decode_bound: Literal["memory", "compute"] | None
    prefill_seconds: float | None  # a typical prompt, alone
    purchase_usd: float | None
    usd_per_hour: float | None
    usd_per_conversation: float | None  # purchase: dollars; cloud: dollars per hour
    usd_per_million_output_tokens: float | None
    price_basis: str
    assumptions: dict[str, str]
    warnings: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        split = f"TP {self.tensor_parallel}" + (f" x {self.replicas} replicas" if self.replicas > 1 else "")
        return f"{self.gpu_count} x {self.gpu_name} ({split}), {self.weights} weights, {self.kv_dtype} KV"

    @property
    def cost(self) -> float | None:
        """The cost the ranking sorts by: purchase dollars, or cloud dollars per hour."""
        return self.purchase_usd if self.price_basis.startswith("purchase") else self.usd_per_hour


class Rejected(BaseModel, frozen=True, extra="forbid"):
    """A set-up left out, and why (the first reason in the order of :data:`RejectReason`)."""

    gpu_id: str
    gpu_count: int
    tensor_parallel: int
    weights: str
    kv_dtype: str
    reason: RejectReason
    detail: str


class Ranking(BaseModel, frozen=True, extra="forbid"):
    """Every option of a model and a workload: the feasible ones sorted, the rejected with their reasons."""

    model_id: str
    workload: Workload
    context_tokens: int
    target_concurrency: int
    target_note: str
    sort_by: SortKey
    options: tuple[Option, ...]
    rejected: tuple[Rejected, ...]
    pareto_cost_capacity: tuple[Option, ...]
    pareto_cost_throughput: tuple[Option, ...]
    assumptions: dict[str, str]
    warnings: tuple[str, ...] = ()

    @property
    def best(self) -> Option | None:
        return self.options[0] if self.options else None

    def rejection_counts(self) -> dict[str, int]:
        return dict(Counter(r.reason for r in self.rejected))


# --- costs ----------------------------------------------------------------------------------------------------


def _costs(gpu: GpuSpec, count: int, pricing: Pricing) -> tuple[float | None, float | None, str]:
    """(purchase dollars, dollars per hour, what they are)."""
    purchase = gpu.price.usd * count if gpu.price is not None else None
    if pricing == "cloud":
        if not gpu.cloud_prices:
            return purchase, None, "cloud: no dated cloud price in the catalog (unknown)"
        cheapest = min(gpu.cloud_prices, key=lambda c: c.usd_per_gpu_hour)
        return (
            purchase,
            cheapest.usd_per_gpu_hour * count,
            f"cloud: {cheapest.label} on demand"
            + (" (the low end of a published range)" if cheapest.usd_per_gpu_hour_high else "")
            + f" (cheapest of {len(gpu.cloud_prices)} dated prices; {cheapest.source})",
        )
    if gpu.price is None:
        return None, None, "purchase: no price in the catalog (unknown)"
    assert purchase is not None
    hourly = purchase / (AMORTISATION_YEARS * HOURS_PER_YEAR)
    power = ""
    if gpu.tdp_watts:
        hourly += gpu.tdp_watts / 1000 * count * POWER_USD_PER_KWH
        power = f" + power at {gpu.tdp_watts} W TDP and ${POWER_USD_PER_KWH}/kWh"
    return (
        purchase,
        hourly,
        f"purchase: ${gpu.price.usd:,.0f} per GPU ({gpu.price.kind}, {gpu.price.date}; {gpu.price.source}); "
        f"GPUs only; per hour = amortised over {AMORTISATION_YEARS} years of continuous use{power}",
    )


# --- the fast plan --------------------------------------------------------------------------------------------


class _Stage(NamedTuple):
    """What ``plan()`` computes for one GPU of a replica (PP 1), at one GPU memory size."""

    headroom_bytes: int
    weights_bytes: int
    fit_status: FitStatus
    concurrency: float  # paged, shared prefix stored once, x replicas
    kv_budget_tokens_per_replica: int


def _sequence_sizes(model: ModelSpec, kv: str, tp: int, context: int, block: int, prefix: int) -> tuple[int, ...]:
    paged = math.ceil(context / block) * block
    shared = (prefix // block) * block
    return (
        kv_bytes_per_sequence(model, kv, context, tp),
        kv_bytes_per_sequence(model, kv, paged, tp),
        kv_bytes_per_sequence(model, kv, shared, tp),
    )


def _stage(
    memory: int,
    weights: int,
    overhead_bytes: int,
    replicas: int,
    sizes: tuple[int, ...],
    kv_per_token_gpu: int,
) -> _Stage:
    """``plan()``'s formulas for one stage (kept in step with it by ``test_fast_plan_matches_plan``)."""
    headroom = memory - weights - overhead_bytes
    pool = max(0, headroom)
    per_seq, per_seq_paged, shared = sizes
    if per_seq == 0:
        exact = prefix = 0.0
    else:
        exact = pool / per_seq
        own = per_seq_paged - shared
        prefix = max(0.0, (pool - shared) / own) if own > 0 else math.inf
    tokens = pool // kv_per_token_gpu if kv_per_token_gpu else 0
    if headroom <= 0:
        status: FitStatus = "weights-do-not-fit"
    elif exact * replicas < 1:
        status = "no-room-for-one-sequence"
    else:
        status = "fits"
    return _Stage(
        headroom_bytes=headroom,
        weights_bytes=weights,
        fit_status=status,
        concurrency=prefix * replicas,
        kv_budget_tokens_per_replica=tokens,
    )


def _splits(count: int) -> list[tuple[int, int]]:
    """Every (TP, replicas) with TP x replicas = count, largest TP first."""
    return [(tp, count // tp) for tp in range(count, 0, -1) if count % tp == 0]


# --- Pareto -----------------------------------------------------------------------------------------------------


def pareto_front(options: Iterable[Option], against: Literal["capacity", "throughput"]) -> tuple[Option, ...]:
    """The options no other option beats on both cost (lower) and ``against`` (higher): conversations held at
    once, or aggregate decode tokens per second. Options without a cost or the figure are left out. Sorted by
    cost; among equal (cost, figure) pairs the first in the input is kept."""

    def figure(o: Option) -> float | None:
        return o.concurrency if against == "capacity" else o.decode_tokens_per_s_total

    known: list[tuple[float, float, int, Option]] = []
    for i, o in enumerate(options):
        c, f = o.cost, figure(o)
        if c is not None and f is not None:
            known.append((c, f, i, o))
    known.sort(key=lambda p: (p[0], -p[1], p[2]))
    front: list[Option] = []
    best = -math.inf
    for _, f, _, o in known:
        if f > best:
            front.append(o)
            best = f
    return tuple(front)


# --- rank -------------------------------------------------------------------------------------------------------


def _sort_value(option: Option, sort_by: SortKey) -> float | None:
    if sort_by == "cost":
        return option.cost
    if sort_by == "cost_per_conversation":
        return option.usd_per_conversation
    return option.usd_per_million_output_tokens


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
    x KV dtype and rank the feasible ones (cheapest first by ``sort_by``; ties: more headroom, fewer GPUs).

    ``gpus`` defaults to the catalog, filtered by ``workload.gpu_ids``.
    """
    overhead = overhead if overhead is not None else Estimate()
    if gpus is None:
        from model_catalog import load_gpus  # the catalog imports the planner: import late

        catalog = load_gpus()
        if workload.gpu_ids is not None:
            unknown = [g for g in workload.gpu_ids if g not in catalog]
            if unknown:
                raise PlannerError(f"gpu_ids: unknown GPU {', '.join(unknown)}; see `python -m planner gpus`")
            gpus = [catalog[g] for g in workload.gpu_ids]
        else:
            gpus = list(catalog.values())
    elif workload.gpu_ids is not None:
        gpus = [g for g in gpus if g.id in workload.gpu_ids]
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
    target = workload.target_concurrency
    prefix = workload.shared_prefix_tokens
    params: ParameterBreakdown = parameter_breakdown(model)
    decode_context = min(context, workload.context.mean_tokens)
    prompt_tokens = max(0, workload.mean_prompt_tokens - prefix)

    weights_per_gpu: dict[tuple[int, str], int] = {}
    overheads: dict[tuple[int, int, str], int] = {}
    sizes: dict[tuple[int, str], tuple[int, ...]] = {}
    per_token: dict[tuple[int, str], int] = {}
    loads: dict[tuple[int, int, str, str], DecodeLoad] = {}
    prefills: dict[tuple[str, str, int], tuple[float | None, str]] = {}
    options: list[Option] = []
    rejected: list[Rejected] = []
    warnings: list[str] = []

    def reject(gpu: GpuSpec, count: int, tp: int, w: str, kv: str, reason: RejectReason, detail: str) -> None:
        rejected.append(
            Rejected.model_construct(
                gpu_id=gpu.id, gpu_count=count, tensor_parallel=tp, weights=w, kv_dtype=kv, reason=reason, detail=detail
            )
        )

    for count in sorted(set(counts)):
        for tp, replicas in _splits(count):
            problem = parallel_problem(model, tp, 1, count)
            for gpu in gpus:
                gpu_problem = problem
                if gpu_problem is None and tp > 1 and gpu.vendor == "Apple":
                    gpu_problem = "Apple silicon is one chip per machine: no tensor parallelism across Macs"
                memory = gpu.memory_bytes
                purchase, hourly, basis = _costs(gpu, count, workload.pricing)
                for w in weights:
                    if gpu_problem is not None:
                        for kv in kv_dtypes:
                            reject(gpu, count, tp, w, kv, "illegal-split", gpu_problem)
                        continue
                    if (tp, w) not in weights_per_gpu:
                        reference = plan(
                            PlanRequest(
                                model=model,
                                gpu_memory_bytes=REFERENCE_MEMORY_BYTES,
                                gpu_count=tp,
                                tensor_parallel=tp,
                                weights=w,
                                kv_dtype=kv_dtypes[0] if kv_dtypes else None,
                                context_tokens=context,
                                shared_prefix_tokens=prefix,
                                block_size=block_size,
                                overhead=overhead,
                            )
                        )
                        weights_per_gpu[(tp, w)] = reference.per_gpu.weights_bytes
                    w_bytes = weights_per_gpu[(tp, w)]
                    memory_key = (memory, tp, w)
                    if memory_key not in overheads:
                        o = overhead.per_gpu(
                            StageContext(
                                model=model,
                                gpu_memory_bytes=memory,
                                tensor_parallel=tp,
                                pipeline_parallel=1,
                                is_last_stage=True,
                                weights_bytes=w_bytes,
                                max_model_len=context,
                            )
                        )
                        overheads[memory_key] = o.activation_bytes + o.framework_bytes + o.reserved_bytes
                    for kv in kv_dtypes:
                        if (tp, kv) not in sizes:
                            sizes[(tp, kv)] = _sequence_sizes(model, kv, tp, context, block_size, prefix)
                            per_token[(tp, kv)] = kv_bytes_per_token(model, kv, tp)
                        stage = _stage(
                            memory, w_bytes, overheads[memory_key], replicas, sizes[(tp, kv)], per_token[(tp, kv)]
                        )
                        if stage.fit_status != "fits":
                            detail = (
                                f"weights and overhead exceed {memory / 2**30:.1f} GiB per GPU by "
                                f"{-stage.headroom_bytes / 2**30:.2f} GiB"
                                if stage.fit_status == "weights-do-not-fit"
                                else f"the KV pool holds less than one {context:,}-token conversation"
                            )
                            reject(gpu, count, tp, w, kv, "does-not-fit", detail)
                            continue
                        if stage.concurrency < target:
                            reject(
                                gpu,
                                count,
                                tp,
                                w,
                                kv,
                                "below-target",
                                f"holds {stage.concurrency:,.1f} conversations of {context:,} tokens, "
                                f"target {target:,}",
                            )
                            continue
                        batch = max(1, math.ceil(target / replicas))
                        if (tp, batch, w, kv) not in loads:
                            loads[(tp, batch, w, kv)] = decode_load(model, w, kv, tp, batch, decode_context, params)
                        if (gpu.id, w, tp) not in prefills:
                            prefills[(gpu.id, w, tp)] = prefill_seconds(model, gpu, w, tp, prompt_tokens, params)
                        option = _option(
                            workload,
                            gpu,
                            count,
                            replicas,
                            w,
                            kv,
                            stage,
                            target,
                            loads[(tp, batch, w, kv)],
                            prefills[(gpu.id, w, tp)],
                            (purchase, hourly, basis),
                        )
                        why = _latency_problem(option, workload)
                        if why:
                            reject(gpu, count, tp, w, kv, "latency-target-missed", why)
                            continue
                        if workload.budget_usd is not None:
                            if option.cost is None:
                                reject(gpu, count, tp, w, kv, "unknown-price", basis)
                                continue
                            spend = option.cost if workload.pricing == "purchase" else option.cost * HOURS_PER_MONTH
                            if spend > workload.budget_usd:
                                unit = "" if workload.pricing == "purchase" else " per month"
                                reject(
                                    gpu,
                                    count,
                                    tp,
                                    w,
                                    kv,
                                    "over-budget",
                                    f"${spend:,.0f}{unit} > budget ${workload.budget_usd:,.0f}{unit}",
                                )
                                continue
                        options.append(option)

    def sort_key(o: Option) -> tuple[bool, float, float, int, str]:
        value = _sort_value(o, sort_by)
        return (value is None, value if value is not None else 0.0, -o.headroom, o.gpu_count, o.label)

    options.sort(key=sort_key)
    if not options:
        warnings.append("no set-up meets the workload: see the rejected options")
    if workload.pricing == "cloud" and sum(1 for g in gpus if g.cloud_prices) < len(gpus):
        warnings.append(
            f"only {sum(1 for g in gpus if g.cloud_prices)} of {len(gpus)} GPUs have a dated cloud price in the "
            "catalog; the others are unpriced"
        )
    return Ranking(
        model_id=model.id,
        workload=workload,
        context_tokens=context,
        target_concurrency=target,
        target_note=workload.target_note,
        sort_by=sort_by,
        options=tuple(options),
        rejected=tuple(rejected),
        pareto_cost_capacity=pareto_front(options, "capacity"),
        pareto_cost_throughput=pareto_front(options, "throughput"),
        assumptions=_global_assumptions(workload, overhead),
        warnings=tuple(warnings),
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
            "roofline estimates (planner.throughput): within about 10 % of most published NVIDIA measurements "
            "(one held-out outlier +68 %), about +45 % on Apple silicon; see planner.throughput.validation_rows"
        ),
        "prices": (
            "catalog prices as dated there; GPUs only"
            if workload.pricing == "purchase"
            else f"cheapest dated cloud price per GPU-hour; budget per month of {HOURS_PER_MONTH} hours"
        ),
    }


def _option(
    workload: Workload,
    gpu: GpuSpec,
    count: int,
    replicas: int,
    w: str,
    kv: str,
    stage: _Stage,
    target: int,
    load: DecodeLoad,
    prefill_result: tuple[float | None, str],
    costs: tuple[float | None, float | None, str],
) -> Option:
    purchase, hourly, basis = costs
    tp, batch = load.tensor_parallel, load.batch
    decode = decode_step(gpu, w, load)
    prefill, prefill_note = prefill_result
    prompt_tokens = max(0, workload.mean_prompt_tokens - workload.shared_prefix_tokens)
    per_user = 1.0 / decode.step_seconds if decode else None
    total = batch / decode.step_seconds * replicas if decode else None
    cost = purchase if workload.pricing == "purchase" else hourly
    per_conversation = cost / stage.concurrency if cost is not None and stage.concurrency > 0 else None
    per_million = hourly / (total * 3600) * 1e6 if hourly is not None and total else None
    option_warnings: list[str] = []
    if cost is None:
        option_warnings.append("price unknown")
    if gpu.vendor == "Apple":
        option_warnings.append(
            "Apple silicon: served by llama.cpp or MLX, not vLLM; macOS lets the GPU use about 75 % of unified "
            "memory by default; speed estimates run high (about +45 % against llama.cpp on an M2 Ultra)"
        )
    if gpu.unverified_fields:
        option_warnings.append(f"unverified catalog fields: {', '.join(gpu.unverified_fields)}")
    assumptions = {
        "concurrency": (
            f"KV pool / paged {workload.context_tokens:,}-token conversations x {replicas} replica(s)"
            + (f", {workload.shared_prefix_tokens:,}-token prefix stored once" if workload.shared_prefix_tokens else "")
        ),
        "decode": (
            decode.assumption + " (the mean context)"
            if decode
            else "decode not estimated: no bandwidth figure in the catalog"
        ),
        "prefill": prefill_note + f"; prompt {prompt_tokens:,} tokens (shared prefix cached)",
        "cost": basis,
        "cost per conversation": (
            ("purchase dollars" if workload.pricing == "purchase" else "dollars per hour")
            + " / conversations held at once"
        ),
        "cost per million output tokens": "dollars per hour / (aggregate decode tokens/s at the target load x 3,600)",
    }
    return Option.model_construct(
        gpu_id=gpu.id,
        gpu_name=gpu.name,
        gpu_count=count,
        tensor_parallel=tp,
        replicas=replicas,
        weights=w,
        kv_dtype=kv,
        context_tokens=workload.context_tokens,
        concurrency=stage.concurrency,
        target_concurrency=target,
        headroom=stage.concurrency / target - 1,
        kv_pool_bytes_per_gpu=max(0, stage.headroom_bytes),
        kv_budget_tokens=stage.kv_budget_tokens_per_replica * replicas,
        kv_budget_tokens_per_replica=stage.kv_budget_tokens_per_replica,
        weights_bytes_per_gpu=stage.weights_bytes,
        batch_per_replica=batch,
        decode_tokens_per_s_per_user=per_user,
        decode_tokens_per_s_total=total,
        decode_bound=decode.bound if decode else None,
        prefill_seconds=prefill,
        purchase_usd=purchase,
        usd_per_hour=hourly,
        usd_per_conversation=per_conversation,
        usd_per_million_output_tokens=per_million,
        price_basis=basis,
        assumptions=assumptions,
        warnings=tuple(option_warnings),
    )


def _latency_problem(option: Option, workload: Workload) -> str | None:
    ttft, speed = workload.max_time_to_first_token_s, workload.min_tokens_per_s_per_user
    if ttft is not None and option.prefill_seconds is not None and option.prefill_seconds > ttft:
        return f"prefill {option.prefill_seconds:.2f} s > target {ttft:g} s to first token"
    per_user = option.decode_tokens_per_s_per_user
    if speed is not None and per_user is not None and per_user < speed:
        return f"{per_user:.1f} tokens/s per user at the target load < target {speed:g}"
    return None


# --- overflow and words -----------------------------------------------------------------------------------------


def overflow_for(option: Option, workload: Workload) -> OverflowReport:
    """Average or maximum for one option: its pool per replica, the target conversations, the distribution."""
    return overflow_report(
        option.kv_budget_tokens_per_replica,
        option.target_concurrency,
        workload.context,
        option.replicas,
        workload.shared_prefix_tokens,
    )


def _money(value: float) -> str:
    return f"${value:,.0f}" if value >= 100 else f"${value:,.2f}"


def recommendation(ranking: Ranking) -> str:
    """One paragraph a manager can read: what to buy, what it holds, how fast, what it costs, what to watch."""
    w = ranking.workload
    target, context = ranking.target_concurrency, ranking.context_tokens
    if not ranking.options:
        counts = ranking.rejection_counts()
        common = ", ".join(f"{n:,} {reason.replace('-', ' ')}" for reason, n in Counter(counts).most_common(3))
        return (
            f"No set-up in the catalog serves {target:,} conversations of {context:,} tokens with "
            f"{ranking.model_id} under these conditions ({common}). Allow more GPUs, a lower weight precision or "
            "an FP8 KV cache, a shorter context, a larger budget, or split the users over several deployments."
        )
    best = ranking.options[0]
    cloud = w.pricing == "cloud"
    if best.cost is None:
        cost_text = "Its price is not in the catalog, so cost could not be compared."
    elif cloud:
        cost_text = (
            f"It costs about {_money(best.usd_per_hour or 0)} per hour ({_money((best.usd_per_hour or 0) * 730)} a "
            f"month; {best.price_basis.removeprefix('cloud: ').split(' (')[0]})"
        )
    else:
        cost_text = f"The GPUs cost about {_money(best.purchase_usd or 0)} (catalog prices, GPUs only)"
    if best.cost is not None and best.usd_per_million_output_tokens is not None:
        cost_text += f", about {_money(best.usd_per_million_output_tokens)} per million output tokens at that load."
    elif best.cost is not None:
        cost_text += "."
    speed = ""
    if best.decode_tokens_per_s_per_user is not None:
        slow = best.decode_tokens_per_s_per_user < DEFAULT_TOKENS_PER_S_PER_USER
        speed = f" Each user should see roughly {best.decode_tokens_per_s_per_user:.0f} tokens per second"
        speed += " (slower than reading speed)" if slow else ""
        if best.prefill_seconds is not None:
            speed += f" and the first token after about {best.prefill_seconds:.2g} s for a typical prompt"
        speed += " (estimates, about ±10 % on NVIDIA GPUs)."
    alternative = ""
    others = sorted(
        (o for o in ranking.options[1:] if o.gpu_id != best.gpu_id),
        key=lambda o: o.cost is None and best.cost is not None,
    )
    if others:
        alt = others[0]
        alt_cost = "" if alt.cost is None else f" at {_money(alt.cost)}{' per hour' if cloud else ''}"
        alternative = f" The best set-up on other hardware is {alt.label}{alt_cost}."
    caveat = (
        " Sizing each conversation at its "
        f"{w.plan_at} length leaves margin for long conversations; when the cache does fill, vLLM and SGLang pause "
        "and re-queue a request rather than fail."
    )
    apple = (
        " It is Apple silicon: it runs llama.cpp or MLX rather than a datacenter engine, and its speed estimate "
        "is optimistic."
        if best.gpu_id.startswith("apple")
        else ""
    )
    verb = "Rent" if cloud else "Buy"
    return (
        f"{verb} {best.label}.{apple} It holds {best.concurrency:,.0f} conversations of {context:,} tokens at once "
        f"against a target of {target:,} ({best.headroom:+.0%} headroom). {cost_text}{speed}{alternative}{caveat}"
    )
