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
from planner.advisor.throughput import DecodeLoad, DecodeStep, decode_step
from planner.advisor.workload import Workload
from planner.gpu import GpuSpec
from planner.plan import MemoryFit

RejectReason = Literal[
    "illegal-split", "does-not-fit", "below-target", "latency-target-missed", "unknown-price", "over-budget"
]
SortKey = Literal["cost", "cost_per_conversation", "cost_per_million_tokens"]


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


def _option_warnings(gpu: GpuSpec, cost: float | None) -> tuple[str, ...]:
    warnings: list[str] = []
    if cost is None:
        warnings.append("price unknown")
    if gpu.vendor == "Apple":
        warnings.append(
            "Apple silicon: served by llama.cpp or MLX, not vLLM; macOS lets the GPU use about 75 % of unified "
            "memory by default; speed estimates run high (about +45 % against llama.cpp on an M2 Ultra)"
        )
    if gpu.unverified_fields:
        warnings.append(f"unverified catalog fields: {', '.join(gpu.unverified_fields)}")
    return tuple(warnings)


def _option_assumptions(
    workload: Workload, replicas: int, decode: DecodeStep | None, prefill_note: str, basis: str
) -> dict[str, str]:
    prompt_tokens = max(0, workload.mean_prompt_tokens - workload.shared_prefix_tokens)
    return {
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
    target: int,
    load: DecodeLoad,
    prefill_result: tuple[float | None, str],
    costs: Costs,
) -> Option:
    """A feasible candidate with its speed (decode at the target load, prefill of a typical prompt) and costs."""
    purchase, hourly, basis = costs
    decode = decode_step(c.gpu, c.weights, load)
    prefill, prefill_note = prefill_result
    concurrency = fit.capacity.sequences_with_shared_prefix
    per_user = 1.0 / decode.step_seconds if decode else None
    total = load.batch / decode.step_seconds * c.replicas if decode else None
    cost = purchase if workload.pricing == "purchase" else hourly
    per_conversation = cost / concurrency if cost is not None and concurrency > 0 else None
    per_million = hourly / (total * 3600) * 1e6 if hourly is not None and total else None
    return Option.model_construct(
        gpu_id=c.gpu.id,
        gpu_name=c.gpu.name,
        gpu_count=c.gpu_count,
        tensor_parallel=c.tensor_parallel,
        replicas=c.replicas,
        weights=c.weights,
        kv_dtype=c.kv_dtype,
        context_tokens=workload.context_tokens,
        concurrency=concurrency,
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
        purchase_usd=purchase,
        usd_per_hour=hourly,
        usd_per_conversation=per_conversation,
        usd_per_million_output_tokens=per_million,
        price_basis=basis,
        assumptions=_option_assumptions(workload, c.replicas, decode, prefill_note, basis),
        warnings=_option_warnings(c.gpu, cost),
    )
