"""What the ranking returns: feasible set-ups (:class:`Option`, built by :func:`build_option` from a
:class:`Candidate`), rejected ones with a reason (:class:`Rejected`), the whole :class:`Ranking`, and its Pareto
fronts."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import Literal, NamedTuple

from pydantic import BaseModel

from planner.advisor.costs import Costs
from planner.advisor.quality import quality_caveat
from planner.advisor.support import ENGINE_LABELS, SupportRow
from planner.advisor.throughput import Bound, DecodeLoad, DecodeStep, bandwidth_efficiency, decode_step
from planner.advisor.workload import Workload
from planner.core.gpu import GpuSpec
from planner.planning.plan import MemoryFit

RejectReason = Literal[
    "illegal-split",
    "not-for-sale",
    "no-engine",
    "does-not-fit",
    "below-target",
    "latency-target-missed",
    "unknown-price",
    "over-budget",
]
SortKey = Literal["cost", "cost_per_conversation", "cost_per_million_tokens"]


class Option(BaseModel, frozen=True, extra="forbid"):
    """One feasible set-up, with every figure and what it assumes (``assumptions`` by figure name)."""

    gpu_id: str
    gpu_name: str
    vendor: str
    gpu_count: int
    tensor_parallel: int
    replicas: int
    weights: str
    kv_dtype: str
    context_tokens: int
    concurrency: float  # sequences of context_tokens held at once, all replicas (the Memory page's figure)
    conversations: int  # whole conversations held at once, all replicas
    target_concurrency: int
    headroom: float  # concurrency / target - 1: the spare share
    kv_pool_bytes_per_gpu: int
    kv_budget_tokens: int  # whole deployment
    kv_budget_tokens_per_replica: int
    weights_bytes_per_gpu: int
    batch_per_replica: int  # sequences decoding together at the target load
    decode_tokens_per_s_per_user: float | None
    decode_tokens_per_s_total: float | None
    decode_bound: Bound | None  # "unknown": no compute figure, the speed is not estimated (ranked last)
    prefill_seconds: float | None  # a typical prompt, alone
    engine: str  # the serving engine the set-up assumes (planner.advisor.support)
    compute_path: str  # the arithmetic of its matmuls: 16-bit, fp8, int8, fp4
    memory_bytes_per_gpu: int  # the memory planned per GPU (a unified-memory machine: the GPU's share)
    bandwidth_efficiency: float  # the share of the datasheet bandwidth a decode step is assumed to reach
    purchase_unit: str  # what is bought: e.g. "1 x NVIDIA HGX 8-GPU baseboard …", or "rent-only …"
    purchase_kind: str  # card, pair, baseboard, machine, rack, cloud-only
    gpus_per_unit: int
    quality_caveat: str | None = None  # 4-bit and GGUF weights
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

    @property
    def compute_known(self) -> bool:
        """Whether the speed counts compute: ``False`` when the GPU has no figure for the arithmetic."""
        return self.decode_bound in ("memory", "compute") and self.prefill_seconds is not None


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


# --- building an option -----------------------------------------------------------------------------------------


class Candidate(NamedTuple):
    """One set-up to evaluate; ``problem`` says why its split is illegal (``None``: legal)."""

    gpu: GpuSpec
    gpu_count: int
    tensor_parallel: int
    replicas: int
    weights: str
    kv_dtype: str
    problem: str | None


def purchase_text(gpu: GpuSpec, count: int, priced: bool) -> str:
    """What is bought, in whole units ("1 x 8-GPU MI300X baseboard in a server (…)"), or why it is rent-only."""
    unit = gpu.purchase
    if not unit.buyable:
        return f"rent-only: {unit.description}"
    size = unit.gpus_per_unit
    if unit.kind == "baseboard" and size <= 8 and count % 8 == 0:
        size = 8  # a 4-GPU board family also comes with 8: buy the larger boards
    n = max(1, count // size)
    s = "s" if n > 1 else ""
    text = {
        "card": f"{count} x {gpu.name} PCIe card{s}, bought one at a time (host not included)",
        "pair": f"{n} x {gpu.name} NVLink pair{s} ({unit.description})",
        "baseboard": f"{n} x {size}-GPU {gpu.name} baseboard{s} ({unit.description})",
        "machine": f"{n} x {gpu.name} machine{s} ({unit.description})",
        "rack": f"{n} x {size}-GPU {gpu.name} rack{s} ({unit.description})",
    }[unit.kind]
    return text if priced else f"rent-only, no sourced price: {text}"


def _option_warnings(gpu: GpuSpec, cost: float | None, step: DecodeStep | None, tp: int) -> tuple[str, ...]:
    warnings: list[str] = []
    if tp > 1 and gpu.purchase.kind == "card":
        warnings.append(
            f"tensor parallel {tp} over PCIe: the all-reduce time is fitted on NVLink systems, so the speed is "
            "likely optimistic"
        )
    if cost is None:
        warnings.append("price unknown")
    if step is not None and step.bound == "unknown":
        warnings.append("ranked last: no sourced compute figure for its arithmetic, so its speed is not estimated")
    if gpu.unified_memory is not None:
        warnings.append(
            f"unified memory: planned with the GPU's default {gpu.unified_memory.default_gpu_share:.0%} share; "
            f"raise it with {gpu.unified_memory.raise_command}"
        )
    if gpu.unverified_fields:
        warnings.append(f"unverified catalog fields: {', '.join(gpu.unverified_fields)}")
    return tuple(warnings)


def _option_assumptions(
    workload: Workload, replicas: int, decode: DecodeStep | None, prefill_note: str, basis: str, row: SupportRow
) -> dict[str, str]:
    prompt_tokens = max(0, workload.mean_prompt_tokens - workload.shared_prefix_tokens)
    return {
        "engine": f"{ENGINE_LABELS[row.engine]}, {row.compute} matmuls"
        + (f" ({row.note})" if row.note else "")
        + f"; source: {row.source}",
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


def build_option(
    workload: Workload,
    c: Candidate,
    fit: MemoryFit,
    held: tuple[float, int],
    target: int,
    load: DecodeLoad,
    prefill_result: tuple[float | None, str],
    costs: Costs,
    row: SupportRow,
) -> Option:
    """A feasible candidate with its engine, speed (decode at the target load from the memory / compute bound,
    prefill of a typical prompt), purchase unit and costs. Without a compute figure the speed is not estimated."""
    purchase, hourly, basis = costs
    decode = decode_step(c.gpu, row.compute, load)
    (prefill, prefill_note), (concurrency, conversations) = prefill_result, held
    speed_known = decode is not None and decode.bound != "unknown"
    per_user = 1.0 / decode.step_seconds if decode and speed_known else None
    total = load.batch / decode.step_seconds * c.replicas if decode and speed_known else None
    cost = purchase if workload.pricing == "purchase" else hourly
    per_million = hourly / (total * 3600) * 1e6 if hourly is not None and total else None
    return Option(
        gpu_id=c.gpu.id,
        gpu_name=c.gpu.name,
        vendor=c.gpu.vendor,
        gpu_count=c.gpu_count,
        tensor_parallel=c.tensor_parallel,
        replicas=c.replicas,
        weights=c.weights,
        kv_dtype=c.kv_dtype,
        context_tokens=workload.context_tokens,
        concurrency=concurrency,
        conversations=conversations,
        target_concurrency=target,
        headroom=concurrency / target - 1,
        kv_pool_bytes_per_gpu=max(0, fit.limiting.headroom_bytes),
        kv_budget_tokens=fit.kv_budget_tokens_per_replica * c.replicas,
        kv_budget_tokens_per_replica=fit.kv_budget_tokens_per_replica,
        weights_bytes_per_gpu=fit.limiting.weights_bytes,
        batch_per_replica=load.batch,
        decode_tokens_per_s_per_user=per_user,
        decode_tokens_per_s_total=total,
        decode_bound=decode.bound if decode else None,
        prefill_seconds=prefill,
        engine=row.engine,
        compute_path=row.compute,
        memory_bytes_per_gpu=fit.limiting.gpu_memory_bytes,
        bandwidth_efficiency=bandwidth_efficiency(c.gpu),
        purchase_unit=purchase_text(c.gpu, c.gpu_count, c.gpu.price is not None),
        purchase_kind=c.gpu.purchase.kind,
        gpus_per_unit=c.gpu.purchase.gpus_per_unit,
        quality_caveat=quality_caveat(c.weights),
        purchase_usd=purchase,
        usd_per_hour=hourly,
        usd_per_conversation=cost / concurrency if cost is not None and concurrency > 0 else None,
        usd_per_million_output_tokens=per_million,
        price_basis=basis,
        assumptions=_option_assumptions(workload, c.replicas, decode, prefill_note, basis, row),
        warnings=_option_warnings(c.gpu, cost, decode, c.tensor_parallel),
    )
