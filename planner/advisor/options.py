"""What the ranking returns: feasible set-ups (:class:`Option`), rejected ones with a reason (:class:`Rejected`), the
whole :class:`Ranking`, and its Pareto fronts. Options are built in :mod:`planner.advisor.build`."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import Annotated, Literal, NamedTuple

from pydantic import BaseModel, Field

from planner.advisor.engine_speed import Bound
from planner.advisor.workload import Workload
from planner.assessment.assess import served
from planner.bounds.trusted import assembled
from planner.core.gpu import GpuSpec
from planner.engines.registry import get_engine

FilterReason = Literal["latency-target-missed", "unknown-price", "over-budget"]  # the buyer's own conditions
RejectReason = Literal[
    "illegal-split",
    "idle-replicas",
    "not-for-sale",
    "no-engine",
    "engine-unsuited",
    "no-host",
    "does-not-fit",
    "below-target",
    "latency-target-missed",
    "unknown-price",
    "over-budget",
]
SortKey = Literal["cost", "cost_per_conversation", "cost_per_million_tokens"]
Split = Literal["tensor", "layer"]


class Option(BaseModel, frozen=True, extra="forbid"):
    """One feasible set-up, with every figure every surface shows and what it assumes (``assumptions`` by figure).

    Memory and capacity are :func:`planner.assessment.assess.assess` of the set-up under its own engine's profile
    at that engine's defaults (``engine``, ``engine_version``, ``engine_fraction``), or with ``--max-num-seqs`` at
    the users a replica serves where the default does not start and lowering it cures that
    (``engine_max_num_seqs``, :meth:`planner.advisor.evaluate.Evaluator.finish`): the Memory page opened on the
    row's link shows the same numbers. ``warnings`` are every caveat; ``undermining`` those that keep the verdict
    from green (they cast doubt on the target or the speed floor being met)."""

    gpu_id: str
    gpu_card: str  # the card the GPU is an edition of (GpuSpec.variant_of), else gpu_id: one pick among the top
    gpu_name: str
    vendor: str
    gpu_count: int
    tensor_parallel: int  # GPUs one replica spans (tensor parallel, or llama.cpp's layer split)
    replicas: int
    experts_shared: bool = False  # the replicas are data-parallel ranks of one server sharing the experts (vLLM)
    split: Split
    weights: str
    kv_dtype: str
    context_tokens: int
    engine: str  # registry name (or "vllm-gaudi")
    engine_label: str
    engine_version: str | None  # the release the memory was planned for (None: a plugin without a profile)
    engine_fraction: float | None  # the engine's memory fraction planned with (its default); None: none
    # vLLM's --max-num-seqs planned with, where the engine's default refuses and fewer sequences start it; None: default
    engine_max_num_seqs: int | None = None
    # vLLM's --max-num-batched-tokens planned with, where a windowed model's default step misses the target
    # (planner.assessment.window_lever); None: the default
    engine_max_num_batched_tokens: int | None = None
    # the memory fraction was set below the engine's default, which does not start the set-up (its free memory)
    engine_fraction_lowered: bool = False
    # the memory fraction was set above the engine's default, whose pool misses the target (a headless datacenter GPU)
    engine_fraction_raised: bool = False
    concurrency: float  # sequences of context_tokens held at once, all replicas (the engine's accounting)
    conversations: int  # whole conversations served at once, all replicas: THE figure every surface shows
    # sequences one replica runs at once (planner.engines.base.EngineReport.max_running): conversations stay under it
    max_running: int | None = None
    target_concurrency: int
    headroom: float  # conversations / target - 1
    slots: int | None  # llama.cpp: -np slots per replica (each holds context_tokens); None: a shared pool
    kv_pool_bytes_per_gpu: int
    kv_budget_tokens: int  # all replicas, as the engine prints it
    kv_budget_tokens_per_replica: int
    weights_bytes_per_gpu: int
    memory_bytes_per_gpu: int  # the memory planned per GPU (the engine-visible total; a Mac: the GPU's share)
    batch_per_replica: int  # sequences decoding together at the target load
    decode_tokens_per_s_per_user: float | None
    decode_tokens_per_s_total: float | None
    # where public runs of this model on its engine measure below the model (a known speed gap): the most they
    # reached, as a share of the modelled tokens/s (planner.engines.support.SpeedGap.high); None: no gap known
    measured_speed_share: Annotated[float, Field(gt=0, le=1)] | None = None
    measured_speed_on: str | None = None  # the GPU families those runs were on, when not this option's
    measured_speed_models: str | None = None  # the models those runs measured, when not this option's (a family's gap)
    decode_bound: Bound | None
    step_seconds: float | None
    prefill_seconds: float | None  # a typical prompt, alone
    prefill_share: float | None  # share of the GPU time prompts take at the target load
    # a vLLM / SGLang MoE's routed experts: at a measured time or their bytes' (planner.advisor.moe_priced)
    experts_priced: Literal["measured", "transferred", "roofline"] | None = None
    compute_path: str
    bandwidth_efficiency: float
    purchase_unit: str  # what is bought, in words; a rental: what is rented (its provider's GPUs and rate)
    purchase_kind: str  # card, pair, baseboard, machine, rack, cloud-only
    gpus_per_unit: int
    host_id: str | None
    host_name: str | None
    hosts: int
    rack_units: int | None
    power_watts: float | None  # the GPUs' TDP and the hosts' own draw; None for a rental (nothing bought)
    gpus_usd: float | None
    hosts_usd: float
    purchase_usd: float | None  # GPUs + hosts
    energy_usd: float | None  # power over the life
    tco_usd: float | None  # purchase + power over the life
    usd_per_hour: float | None  # purchase: TCO / hours of the life; cloud: the rent
    usd_per_conversation: float | None  # purchase: TCO dollars; cloud: dollars per hour
    usd_per_million_output_tokens: float | None
    price_basis: str
    assumed_costs: tuple[str, ...] = ()  # cost figures that rest on an assumption (host price, host power, GPU price)
    quality_caveat: str | None = None
    assumptions: dict[str, str]
    warnings: tuple[str, ...] = ()
    undermining: tuple[str, ...] = ()

    @property
    def counted_tokens_per_s_per_user(self) -> float | None:
        """The speed per user a buyer can count on: the modelled one, at most the share public runs of this model
        on its engine reached where they ran below the model (:attr:`measured_speed_share`)."""
        speed = self.decode_tokens_per_s_per_user
        return None if speed is None else speed * (self.measured_speed_share or 1.0)

    @property
    def served_concurrency(self) -> float:
        """:attr:`concurrency`, at most what the engine runs at once on every replica (:attr:`max_running`)."""
        return served(self.concurrency, self.max_running, self.replicas)

    @property
    def split_text(self) -> str:
        if self.split == "layer" and self.tensor_parallel > 1:
            text = f"layer split over {self.tensor_parallel} GPUs"
        else:
            text = f"TP {self.tensor_parallel}"
        if self.replicas > 1 and self.experts_shared:
            return text + f" x {self.replicas} data-parallel ranks, experts split over {self.gpu_count} GPUs"
        return text + (f" x {self.replicas} replicas" if self.replicas > 1 else "")

    @property
    def replica_word(self) -> str:
        """What one of :attr:`replicas` is: a data-parallel rank where they share the experts, else a replica."""
        return "data-parallel rank" if self.experts_shared else "replica"

    @property
    def label(self) -> str:
        split = f"{self.gpu_count} x {self.gpu_name} ({self.split_text})"
        return f"{split}, {self.weights} weights, {self.kv_words} KV{self.launch_text}"

    @property
    def kv_words(self) -> str:
        """The KV dtype, with the engine's own name for a block-quantized cache (``int8 (q8_0)``: llama.cpp's
        ``--cache-type-k/v q8_0``), so that the label names the cache the engine runs."""
        own = get_engine(self.engine).support.kv_cache_names.get(self.kv_dtype)
        return f"{self.kv_dtype} ({own})" if self.kv_dtype in ("int8", "int4") and own else self.kv_dtype

    @property
    def launch_text(self) -> str:
        """The launch settings the option needs beyond the engine's defaults, in the engine's own flags
        (``", --max-num-seqs 8"``; TensorRT-LLM's ``--max_batch_size``), or ``""``."""
        engine, version = get_engine(self.engine), self.engine_version
        changed = self.engine_fraction_lowered or self.engine_fraction_raised
        seqs = f", {engine.fraction_flag} {self.engine_fraction:.2f}" if changed and engine.fraction_flag else ""
        if self.engine_max_num_seqs:
            seqs += f", {engine.flag_for('max_num_seqs', version)} {self.engine_max_num_seqs}"
        step = self.engine_max_num_batched_tokens
        return seqs + (f", {engine.flag_for('max_num_batched_tokens', version)} {step}" if step else "")

    @property
    def key(self) -> tuple[str, int, int, str, str]:
        return (self.gpu_id, self.gpu_count, self.tensor_parallel, self.weights, self.kv_dtype)

    @property
    def cost(self) -> float | None:
        """The cost the ranking sorts by: the total cost of ownership of a purchase, or cloud dollars per hour."""
        return self.tco_usd if self.price_basis.startswith("purchase") else self.usd_per_hour

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


class NearMiss(BaseModel, frozen=True, extra="forbid"):
    """Set-ups that serve the workload but one of the buyer's own conditions left out (``reason``): how many, and
    the one closest to passing it at the default precisions (the model's own and 8 bits), else among the 4-bit
    fallback's (:mod:`planner.advisor.near`)."""

    reason: FilterReason
    count: int  # every set-up the condition left out, the 4-bit fallback's included (as the rejection counts)
    closest: Option
    # the closest 4-bit set-up (tried because nothing at 8 bits or more passed), where it is closer than
    # ``closest`` or is ``closest`` (none at the default precisions serves); None: none
    four_bit: Option | None = None


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
    left_out: tuple[str, ...] = ()  # GPUs offered only when asked for (region-restricted, desktops and laptops)
    four_bit_fallback: bool = False  # nothing served at 8 bits or more, so 4-bit weights were tried
    best_overflow_probability: float | None = None  # the best option's pool running out at the target
    near_misses: tuple[NearMiss, ...] = ()  # with no option left: what the buyer's own conditions left out
    beyond_reach: str | None = None  # with no option: the target's KV cache beyond every set-up (planner.advisor.reach)

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
        return float(o.conversations) if against == "capacity" else o.decode_tokens_per_s_total

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


class Candidate(NamedTuple):
    """One set-up to evaluate; ``problem`` says why its split is illegal (``None``: legal)."""

    gpu: GpuSpec
    gpu_count: int
    tensor_parallel: int
    replicas: int
    weights: str
    kv_dtype: str
    problem: str | None


def purchase_problem(c: Candidate, pricing: str) -> str | None:
    """Why the set-up cannot be bought as planned (purchase pricing only; renting is per GPU)."""
    unit = c.gpu.purchase
    if pricing != "purchase":
        return None
    if not unit.buyable:
        return f"{c.gpu.name} is not sold: {unit.description}; rent it (pricing cloud)"
    if c.gpu_count % unit.gpus_per_unit:
        return f"{c.gpu.name} is sold as {unit.description}: plan a multiple of {unit.gpus_per_unit} GPUs, or rent them"
    gone = c.gpu.discontinued
    if gone is not None and not gone.used_price(c.gpu.price):  # a new machine's price is not an offer anyone takes
        return f"{c.gpu.name} is no longer sold new (since {gone.since}) and the catalog has no used price for it"
    return None


def unit_size(gpu: GpuSpec, count: int) -> int:
    """The GPUs of one unit bought for ``count`` of them: the catalog's unit, but a 4-GPU board family also comes
    with 8, so eight or more are bought as the larger boards."""
    size = gpu.purchase.gpus_per_unit
    return 8 if gpu.purchase.kind == "baseboard" and size <= 8 and count % 8 == 0 else size


def purchase_text(gpu: GpuSpec, count: int, host: str | None, hosts: int, priced: bool) -> str:
    """What is bought, in whole units with the machine around them, or why it is rent-only."""
    unit = gpu.purchase
    if not unit.buyable:
        return f"rent-only: {unit.description}"
    size = unit_size(gpu, count)
    n = max(1, count // size)
    s = "s" if n > 1 else ""
    # A passive card has no fan of its own: why a single one is bought with a GPU server around it.
    them = "it" if unit.kind == "card" and count == 1 else "them"
    passive = f" (passive: the server's fans cool {them})" if unit.cooling == "passive" else ""
    used = "used " if gpu.price is not None and gpu.price.used else ""  # priced second-hand: bought so
    gpus = {
        "card": f"{count} x {used}{gpu.name} PCIe card{'s' if count > 1 else ''}{passive}",
        "pair": f"{n} x {used}{gpu.name} NVLink pair{s}{passive}",
        "baseboard": f"{n} x {size}-GPU {gpu.name} baseboard{s}",
        "machine": f"{n} x {gpu.name} machine{s} ({unit.description})",
        "rack": f"{n} x {size}-GPU {gpu.name} rack{s} ({unit.description})",
    }[unit.kind]
    if host is not None:
        gpus += f" in {hosts} x {host}"
    return gpus if priced else f"{gpus}, at no sourced price"


def reject(c: Candidate, reason: RejectReason, detail: str) -> Rejected:
    """The rejection of candidate ``c`` for ``reason``, said in ``detail``: its fields those of a validated candidate
    and a reason the type checker holds to :data:`RejectReason`, so not validated again (hundreds a ranking:
    :func:`planner.bounds.trusted.assembled`)."""
    fields = {
        "gpu_id": c.gpu.id,
        "gpu_count": c.gpu_count,
        "tensor_parallel": c.tensor_parallel,
        "weights": c.weights,
        "kv_dtype": c.kv_dtype,
        "reason": reason,
        "detail": detail,
    }
    return assembled(Rejected, fields)
