"""What an option reads of no user count (:func:`planner.advisor.build.build_option`), made once per set-up and
kept across rankings, so a ranking for another number of users at a context seen before (the advisor's users field,
its slider) computes only what reads the count: the batch a replica serves, the speed at it, the verdict's margins
and the fields and notes made from them.

Read of no user count (each as :func:`planner.advisor.build.build_option` had read it): the ranks sharing the
experts (:func:`planner.advisor.reuse.expert_group`: the candidate, the profile, the model); the speed set-up and
its prompts (:meth:`planner.advisor.build.Built.setup`: the candidate's GPU, split and precisions, the row's engine,
compute path and other bits, the model as cached, the prompts' tokens); the whole-system cost and what it buys
(:meth:`Built.cost`, :meth:`Built.purchase`: the GPU, its count, the hosts, the pricing's terms); the engine's
release, fraction and launch values (the profile); what the assessment holds (conversations, pool, budget, weights,
memory, the engine's label, the slots it launches: :func:`planner.advisor.option_notes.slots_note`); the windows'
and YaRN's notes (the model, the profile, the assessment's model); the quality caveat (the weights); the context.
The known speed gap is not among them: it holds from a batch on (planner.engines.support.SpeedGap.from_batch).

Kept (:data:`planner.advisor.reuse.OPTION_BASES`) by all of these: the assessment and the support row by identity
(each frozen; the entry holds both, so their ids name no other object while it lives; an assessment is itself kept
across rankings at its length, :class:`planner.advisor.reuse.Kept`, and a new one, at another length or for other
slots, is another key), and by value the candidate (its GPU, not the GPU's id), the profile, the hosts, the model,
the context, the pricing with its running-cost assumptions or cloud tier, and the prompts' tokens.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from planner.advisor.costs import Assumptions, HostChoice, SystemCost
from planner.advisor.engine_speed import bandwidth_efficiency
from planner.advisor.option_notes import slots_note, window_notes
from planner.advisor.options import Candidate, unit_size
from planner.advisor.quality import quality_caveat
from planner.advisor.reuse import OPTION_BASES, PROFILES, expert_group
from planner.advisor.support import ENGINE_LABELS, SupportRow
from planner.advisor.throughput import Setup
from planner.advisor.workload import Workload
from planner.assessment.assess import Assessment
from planner.bounds.memo import Scope
from planner.core.model import ModelSpec
from planner.core.overhead import OverheadModel
from planner.core.serving import serving_weights
from planner.planning.context_extension import yarn_note


class Built(Protocol):
    """What :func:`base_of` reads of :class:`planner.advisor.build.Built`."""

    @property
    def model(self) -> ModelSpec: ...

    @property
    def workload(self) -> Workload: ...

    @property
    def prompt_tokens(self) -> int: ...

    @property
    def new_tokens(self) -> int: ...

    def setup(
        self, c: Candidate, row: SupportRow, cached: ModelSpec | None = None, group: int = 1
    ) -> tuple[Setup, float | None, float]: ...

    def cost(self, c: Candidate, host: HostChoice | None, assumptions: Assumptions) -> SystemCost: ...

    def purchase(self, c: Candidate, host: HostChoice | None, cost: SystemCost) -> str: ...

    def engine_settings(self, overhead: OverheadModel) -> tuple[str | None, float | None, bool, bool]: ...

    def launch(self, overhead: OverheadModel) -> tuple[int | None, int | None]: ...

    def memory_note(self, label: str | None, launch: tuple[int | None, int | None]) -> str: ...

    def engine_note(self, row: SupportRow) -> str: ...

    @property
    def bases(self) -> Scopes: ...


class Base(NamedTuple):
    """An option's parts that read no user count (the module docstring)."""

    assessment: Assessment  # held: the key names it by its id
    row: SupportRow  # likewise
    cached: ModelSpec  # the model as the engine caches it (OverheadModelBase.kv_model)
    group: int  # ranks sharing the experts (expert_group)
    found: tuple[Setup, float | None, float]  # Built.setup: the set-up, a prompt alone, a prompt in serving
    cost: SystemCost
    efficiency: float  # bandwidth_efficiency of the set-up
    launch: tuple[int | None, int | None]
    fields: dict[str, Any]  # the Option's fields that read no user count (never changed once made)
    tail: tuple[str, ...]  # the last notes: the windows', YaRN's, a fixed-slot engine's slots
    engine_note: str  # the assumption "engine"
    memory_head: str  # the assumption "memory" but its slots and its close


class Scopes:
    """One ranking's scope of :data:`OPTION_BASES` (:class:`planner.bounds.memo.ScopedMemo`): what all its options
    share, hashed once a ranking (:func:`ranking_key`); an option's own inputs key its entry (:func:`base_key`)."""

    def __init__(self) -> None:
        self._made: tuple[Assumptions, Scope[tuple[object, ...], Base]] | None = None
        self._profiles: dict[int, tuple[OverheadModel, OverheadModel]] = {}

    def profile(self, overhead: OverheadModel) -> OverheadModel:
        """The first profile kept equal to ``overhead`` (:data:`PROFILES`): a ranking's profiles are new objects
        equal to the last ranking's, and the key's look-up compares one found by identity before its fields."""
        held = self._profiles.get(id(overhead))
        if held is None or held[0] is not overhead:  # held: its id names no other object while this ranking lives
            kept = PROFILES.get(overhead) or PROFILES.put(overhead, overhead)
            held = self._profiles[id(overhead)] = (overhead, kept)
        return held[1]

    def scope(self, b: Built, assumptions: Assumptions) -> Scope[tuple[object, ...], Base]:
        if self._made is None or self._made[0] is not assumptions:
            self._made = (assumptions, OPTION_BASES.scope(ranking_key(b, assumptions)))
        return self._made[1]


def ranking_key(b: Built, assumptions: Assumptions) -> tuple[object, ...]:
    """What :func:`base_of` reads of the ranking (the module docstring): the model, the context, the pricing with a
    purchase's running-cost assumptions or a rental's tier, and the prompts' tokens."""
    w = b.workload
    terms = assumptions if w.pricing == "purchase" else w.cloud_tier
    return (b.model, w.context_tokens, w.pricing, terms, b.prompt_tokens, b.new_tokens)


def base_key(
    c: Candidate, row: SupportRow, a: Assessment, overhead: OverheadModel, host: HostChoice | None
) -> tuple[object, ...]:
    """What :func:`base_of` reads of the option (the module docstring), in its ranking's scope."""
    return (id(a), id(row), c, overhead, host)


def base_of(
    b: Built,
    c: Candidate,
    row: SupportRow,
    a: Assessment,
    overhead: OverheadModel,
    host: HostChoice | None,
    assumptions: Assumptions,
) -> Base:
    """The option's parts that read no user count, kept across rankings by all they read (:func:`ranking_key`,
    :func:`base_key`): the kept ones, or made here and kept."""
    scope, key = b.bases.scope(b, assumptions), base_key(c, row, a, b.bases.profile(overhead), host)
    kept = scope.get(key)
    if kept is not None:
        return kept
    group = expert_group(c, overhead, b.model)  # ranks sharing the experts
    cached = overhead.kv_model(b.model)
    found = b.setup(c, row, cached, group)
    cost = b.cost(c, host, assumptions)
    efficiency = bandwidth_efficiency(found[0])
    launch = b.launch(overhead)
    tail = list(window_notes(b.model, overhead))  # a copy: the notes' list is not this option's to extend
    tail += [note] if (note := yarn_note(a.request.model)) else []  # a documented YaRN, switched on: a note
    slots = slots_note(a, overhead, c.replicas)  # a fixed-slot engine's conversations are its slots
    tail += [slots] if slots else []
    fields = _fields(b, c, row, a, overhead, host, cost, found[0], group, launch)
    memory_head = b.memory_note(a.engine_label, launch)
    made = Base(
        a, row, cached, group, found, cost, efficiency, launch, fields, tuple(tail), b.engine_note(row), memory_head
    )
    return scope.put(key, made)


def _fields(
    b: Built,
    c: Candidate,
    row: SupportRow,
    a: Assessment,
    overhead: OverheadModel,
    host: HostChoice | None,
    cost: SystemCost,
    setup: Setup,
    group: int,
    launch: tuple[int | None, int | None],
) -> dict[str, Any]:
    """The Option's fields that read no user count: the set-up, its engine, what it holds and what it costs."""
    version, fraction, lowered, raised = b.engine_settings(overhead)
    return {
        "gpu_id": c.gpu.id,
        "gpu_card": c.gpu.variant_of or c.gpu.id,
        "gpu_name": c.gpu.name,
        "vendor": c.gpu.vendor,
        "gpu_count": c.gpu_count,
        "tensor_parallel": c.tensor_parallel,
        "replicas": c.replicas,
        "experts_shared": group > 1,
        "split": "layer" if setup.split == "layer" else "tensor",
        "weights": c.weights,
        "kv_dtype": c.kv_dtype,
        "context_tokens": b.workload.context_tokens,
        "engine": row.engine,
        "engine_label": ENGINE_LABELS[row.engine],
        "engine_version": version,
        "engine_fraction": fraction,
        "engine_fraction_lowered": lowered,
        "engine_fraction_raised": raised,
        "engine_max_num_seqs": launch[0],
        "engine_max_num_batched_tokens": launch[1],
        **_held(c, a),
        **_costs(c, cost, a.conversations * c.replicas, b.workload),
        "compute_path": row.compute,
        "purchase_unit": cost.rented or b.purchase(c, host, cost),  # a rental: its provider's GPUs and rate
        "quality_caveat": None if c.weights == serving_weights(b.model) else quality_caveat(c.weights),
    }


def _held(c: Candidate, a: Assessment) -> dict[str, Any]:
    """What the set-up holds, as assess() gives it under its engine (all replicas counted)."""
    pool = a.report.available_kv_cache_bytes_per_gpu if a.report is not None else a.result.per_gpu.kv_cache_bytes
    return {
        "concurrency": a.concurrency * c.replicas,
        "conversations": a.conversations * c.replicas,
        "max_running": a.report.max_running if a.report is not None else None,
        "kv_pool_bytes_per_gpu": max(0, pool),
        "kv_budget_tokens": a.kv_budget_tokens_per_replica * c.replicas,
        "kv_budget_tokens_per_replica": a.kv_budget_tokens_per_replica,
        "weights_bytes_per_gpu": a.result.per_gpu.weights_bytes,
        "memory_bytes_per_gpu": a.request.gpu_memory_bytes,
    }


def _costs(c: Candidate, cost: SystemCost, conversations: int, w: Workload) -> dict[str, Any]:
    """The hosts, power over the life and the cost of a conversation (the cost of a token reads the speed)."""
    sort_cost = cost.tco_usd if w.pricing == "purchase" else cost.usd_per_hour
    return {
        "purchase_kind": c.gpu.purchase.kind,
        "gpus_per_unit": unit_size(c.gpu, c.gpu_count),
        "assumed_costs": cost.unverified,
        "host_id": cost.host_id,
        "host_name": cost.host_name,
        "hosts": cost.hosts,
        "rack_units": cost.rack_units,
        "power_watts": cost.power_watts,
        "gpus_usd": cost.gpus_usd,
        "hosts_usd": cost.hosts_usd,
        "purchase_usd": cost.purchase_usd,
        "energy_usd": cost.energy_usd,
        "tco_usd": cost.tco_usd,
        "usd_per_hour": cost.usd_per_hour,
        "usd_per_conversation": sort_cost / conversations if sort_cost is not None and conversations else None,
        "price_basis": cost.basis,
    }
