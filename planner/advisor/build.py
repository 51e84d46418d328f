"""Step 2b of the ranking: a set-up that fits becomes an :class:`~planner.advisor.options.Option`: its speed
(:mod:`planner.advisor.engine_speed`, at the target load, under its engine), its whole-system cost
(:mod:`planner.advisor.costs`), its warnings (every caveat, and which of them undermine the verdict) and what its
figures assume."""

from __future__ import annotations

import math

from planner.advisor.attended import attended_model
from planner.advisor.costs import Assumptions, HostChoice, SystemCost, cloud_cost, purchase_cost
from planner.advisor.engine_speed import prefill_alone, prefill_in_serving
from planner.advisor.option_base import Base, Scopes, base_of
from planner.advisor.option_notes import ranks_note, servers_note
from planner.advisor.option_speed import Speed, speed_of
from planner.advisor.option_warnings import option_warnings
from planner.advisor.options import Candidate, Option, purchase_text
from planner.advisor.reuse import PURCHASE_TEXTS, SPEED_SETUPS, SYSTEM_COSTS
from planner.advisor.support import ENGINE_LABELS, SupportRow
from planner.advisor.throughput import Load, Setup, decode_load, prefill_load, setup_for
from planner.advisor.workload import Workload
from planner.assessment.assess import Assessment
from planner.bounds.trusted import assembled
from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.core.overhead import EngineProfile, OverheadModel
from planner.core.params import ParameterBreakdown
from planner.engines.registry import get_engine, launch_values
from planner.engines.support import Family, family, family_words


class Built:
    """What every option of one model and workload shares: the loads of a decode step and of a prompt."""

    def __init__(self, model: ModelSpec, workload: Workload, params: ParameterBreakdown) -> None:
        self.model, self.workload, self.params = model, workload, params
        self.decode_context = min(workload.context_tokens, workload.context.mean_tokens)
        self.prompt_tokens = max(1, workload.mean_prompt_tokens - workload.shared_prefix_tokens)
        self.new_tokens = workload.uncached_prompt_tokens
        self._decode: dict[tuple[str, str, int, ModelSpec, float | None], Load] = {}
        self._prefill: dict[tuple[str, int, ModelSpec, float | None], Load] = {}
        self._setups: dict[
            tuple[str, str, str, float | None, int, str, ModelSpec, int], tuple[Setup, float | None, float]
        ] = {}
        self._costs: dict[tuple[str, int, HostChoice | None], SystemCost] = {}
        self._purchases: dict[tuple[str, int, HostChoice | None], str] = {}
        self._settings: dict[OverheadModel, tuple[str | None, float | None, bool, bool]] = {}
        self._launches: dict[OverheadModel, tuple[int | None, int | None]] = {}
        self._memory_notes: dict[tuple[str | None, tuple[int | None, int | None]], str] = {}
        self._engine_notes: dict[tuple[str, str, str, str], str] = {}
        self._gaps: dict[tuple[str, str, Family | None, int], tuple[str, float, str | None, str | None] | None] = {}
        self.bases = Scopes()  # this ranking's scope of the options' kept parts (planner.advisor.option_base)
        w = workload
        self.prefill_note = (
            f"first token: one prompt of {self.prompt_tokens:,} tokens alone on the GPUs (compute-bound, no queueing); "
            f"under load each user's reply of {w.mean_output_tokens:,} tokens follows {self.new_tokens:,} new prompt "
            "tokens (the rest in the prefix cache), their prefill counted in the speed per user"
        )

    def decode(
        self, weights: str, kv_dtype: str, batch: int, cached: ModelSpec | None = None, other_bits: float | None = None
    ) -> Load:
        """A decode step of ``batch`` sequences; ``cached``: the model as the engine caches it
        (:meth:`planner.core.overhead.OverheadModelBase.kv_model`), the model itself by default; ``other_bits``: the
        engine's file keeps the tensors but the experts at these bits (:attr:`PlatformRow.other_bits`)."""
        model = cached or self.model
        key = (weights, kv_dtype, batch, model, other_bits)
        if key not in self._decode:
            context, params = self.decode_context, self.params
            self._decode[key] = decode_load(model, weights, kv_dtype, batch, context, params, other_bits=other_bits)
        return self._decode[key]

    def setup(
        self, c: Candidate, row: SupportRow, cached: ModelSpec | None = None, group: int = 1
    ) -> tuple[Setup, float | None, float]:
        """The set-up as the speed model sees it, one prompt alone on it and the GPU seconds of one prompt inside a
        serving run (:func:`planner.advisor.serving_cycle.serving`'s; none reads the KV dtype, the batch or the
        replicas): once per GPU, engine, compute path, the row's other tensors' bits, split, weights, cached model
        and ``group`` (data-parallel ranks that share the experts: one set-up of all their GPUs, each attending its
        own requests, as the benchmark rows with attention data parallelism are priced, :attr:`Setup.attention_dp`)."""
        model = cached or self.model
        key = (c.gpu.id, row.engine, row.compute, row.other_bits, c.tensor_parallel, c.weights, model, group)
        found = self._setups.get(key)
        if found is None:  # kept across rankings too, by the GPU itself and the prompts' tokens (no user count)
            kept = (c.gpu, *key[1:], self.model, self.prompt_tokens, self.new_tokens)
            found = SPEED_SETUPS.get(kept)
            if found is None:
                found = SPEED_SETUPS.put(kept, self._new_setup(c, row, model, group))
            self._setups[key] = found
        return found

    def _new_setup(
        self, c: Candidate, row: SupportRow, model: ModelSpec, group: int
    ) -> tuple[Setup, float | None, float]:
        setup = setup_for(c.gpu, row.engine, row.compute, c.tensor_parallel * group, c.weights)
        setup = setup._replace(attention_dp=True, attention_tp=c.tensor_parallel) if group > 1 else setup
        alone = prefill_alone(setup, self.prefill(c.weights, self.prompt_tokens, model, row.other_bits))
        per_prompt = prefill_in_serving(setup, self.prefill(c.weights, self.new_tokens, model, row.other_bits)) or 0.0
        return setup, alone, per_prompt

    def cost(self, c: Candidate, host: HostChoice | None, assumptions: Assumptions) -> SystemCost:
        """The purchase or the rent of ``c.gpu_count`` GPUs in ``host`` (the same for every precision and split):
        once per GPU, count and hosts, and kept across rankings (:data:`SYSTEM_COSTS`) by all it reads: the GPU
        itself (not its id), the count, the hosts and the running-cost assumptions of a purchase, or the cloud tier
        of a rental."""
        key = (c.gpu.id, c.gpu_count, host)
        found = self._costs.get(key)
        if found is None:
            w = self.workload
            bought = w.pricing == "purchase"
            kept = (
                ("purchase", c.gpu, c.gpu_count, host, assumptions)
                if bought
                else ("cloud", c.gpu, c.gpu_count, w.cloud_tier)
            )
            found = SYSTEM_COSTS.get(kept)
            if found is None and bought:
                found = SYSTEM_COSTS.put(kept, purchase_cost(c.gpu, c.gpu_count, host, assumptions))
            elif found is None:
                found = SYSTEM_COSTS.put(kept, cloud_cost(c.gpu, c.gpu_count, w.cloud_tier))
            self._costs[key] = found
        return found

    def purchase(self, c: Candidate, host: HostChoice | None, cost: SystemCost) -> str:
        """What is bought (:func:`planner.advisor.options.purchase_text`), once per GPU, count and hosts, as
        :meth:`cost` (``cost``: its answer for them, which reads no more than these), and kept across rankings
        (:data:`PURCHASE_TEXTS`) by the GPU itself, the count and the hosts."""
        key = (c.gpu.id, c.gpu_count, host)
        found = self._purchases.get(key)
        if found is None:
            kept = (c.gpu, c.gpu_count, host)
            found = PURCHASE_TEXTS.get(kept)
            if found is None:
                priced = c.gpu.price is not None
                made = purchase_text(c.gpu, c.gpu_count, cost.host_name, cost.hosts, priced)
                found = PURCHASE_TEXTS.put(kept, made)
            self._purchases[key] = found
        return found

    def engine_settings(self, overhead: OverheadModel) -> tuple[str | None, float | None, bool, bool]:
        """:func:`_engine_settings`, once per overhead model (its hash computed once: planner.bounds.hashing)."""
        found = self._settings.get(overhead)
        if found is None:
            found = self._settings[overhead] = _engine_settings(overhead)
        return found

    def launch(self, overhead: OverheadModel) -> tuple[int | None, int | None]:
        """:func:`_launch`, once per overhead model (as :meth:`engine_settings`)."""
        found = self._launches.get(overhead)
        if found is None:
            found = self._launches[overhead] = _launch(overhead)
        return found

    def memory_note(self, label: str | None, launch: tuple[int | None, int | None]) -> str:
        """:func:`_memory_note` at the workload's context, once per profile label and launch values (all it reads)."""
        key = (label, launch)
        found = self._memory_notes.get(key)
        if found is None:
            found = self._memory_notes[key] = _memory_note(label, launch, self.workload.context_tokens)
        return found

    def speed_gap(
        self, engine: str, weights: str, gpu: GpuSpec, batch: int
    ) -> tuple[str, float, str | None, str | None] | None:
        """The engine's known speed gap for the model in ``weights`` on ``gpu`` at ``batch`` users a replica
        (:meth:`EngineSupport.gap_for`): in words, with the most public runs reached (a share of the modelled speed)
        and, where they ran on other GPU families or other models, which; once per engine, weights, GPU family and
        batch (all it reads of the GPU: :meth:`gap_for` and the words read its family alone)."""
        fam = family(gpu)
        key = (engine, weights, fam, batch)
        if key not in self._gaps:
            runs = get_engine(engine)
            gap = runs.support.gap_for(self.model.model_type, weights, gpu, batch)
            where = None if gap is None or fam in gap.families else ", ".join(family_words(f) for f in gap.families)
            models = None if gap is None or gap.model_types is not None else gap.measured_on
            self._gaps[key] = None if gap is None else (gap.words(runs.label, fam), gap.high, where, models)
        return self._gaps[key]

    def engine_note(self, row: SupportRow) -> str:
        """The engine an option runs on, its matmuls and the support table's source: once per support row."""
        key = (row.engine, row.compute, row.note, row.source)  # all it reads (the row's own hash reads every field)
        found = self._engine_notes.get(key)
        if found is None:
            found = f"{ENGINE_LABELS[row.engine]}, {row.compute} matmuls" + (f" ({row.note})" if row.note else "")
            found = self._engine_notes[key] = found + f"; source: {row.source}"
        return found

    def prefill(
        self, weights: str, tokens: int, cached: ModelSpec | None = None, other_bits: float | None = None
    ) -> Load:
        """One prompt of ``tokens`` tokens (the whole prompt for a cold start, the new ones under load); ``cached``
        and ``other_bits`` as for :meth:`decode`."""
        model = attended_model(cached or self.model, self.model)  # chunked layers attend within chunks (attended)
        key = (weights, tokens, model, other_bits)
        if key not in self._prefill:
            self._prefill[key] = prefill_load(model, weights, tokens, 0, self.params, other_bits=other_bits)
        return self._prefill[key]


LAUNCH_FIELDS = ("max_num_seqs", "max_num_batched_tokens")  # vLLM's profile fields, as an Option names them


def _launch(overhead: OverheadModel) -> tuple[int | None, int | None]:
    """(``--max-num-seqs``, ``--max-num-batched-tokens``) the option was planned with (None: the default)."""
    if not isinstance(overhead, EngineProfile):
        return None, None
    fields = type(overhead).model_fields  # a field it lacks costs pydantic's __getattr__ an exception raised
    seqs, tokens = (getattr(overhead, name) if name in fields else None for name in LAUNCH_FIELDS)
    return seqs, tokens


def _engine_settings(overhead: OverheadModel) -> tuple[str | None, float | None, bool, bool]:
    """The engine release and memory fraction the option was planned with (what the Memory-page link carries), and
    whether that fraction was set below the default (the default does not start it) or above it (the default's pool
    misses the target: :meth:`planner.advisor.levers.LaunchLevers.fraction_raised`)."""
    if not isinstance(overhead, EngineProfile):
        return None, None, False, False
    engine = get_engine(overhead.engine_name)
    launch = launch_values(overhead)
    field = engine.setting_fields.get("fraction")
    given = getattr(overhead, field, None) if field else None  # set by the advice (planner.advisor.levers)
    fraction = engine.fraction_default(overhead.engine_version, None, launch) if engine.default_fraction else None
    if given is None or (fraction is not None and float(given) == fraction):  # TensorRT-LLM's profile holds its 0.9
        return overhead.engine_version, fraction, False, False
    lowered = fraction is None or float(given) < fraction
    return overhead.engine_version, float(given), lowered, not lowered


def _memory_note(label: str | None, launch: tuple[int | None, int | None], context: int) -> str:
    """The head of the assumption "memory": the profile ``label`` (None: the estimate) was assessed under, at its
    defaults but the ``launch`` values (:func:`_launch`), at ``context`` tokens a conversation."""
    seqs, step = launch
    settings = (
        f"at its defaults but --max-num-seqs {seqs} (the users a replica serves: the default does not start)"
        if seqs
        else f"at its defaults but --max-num-batched-tokens {step} (its windowed layers hold every batch in flight: "
        "the default step holds fewer than the target; speed counted at the default step)"
        if step
        else "at its defaults"
    )
    return (
        f"assess() under {label or 'the estimate'}'s own profile {settings}: the Memory page's "
        f"answer for this set-up ({context:,}-token conversations"
    )


def _assumptions(b: Built, base: Base, c: Candidate, s: Speed) -> dict[str, str]:
    """What the option's figures assume, in words."""
    d = s.decode
    users = math.ceil(b.workload.target_concurrency / c.replicas)
    return {
        "engine": base.engine_note,
        "memory": base.memory_head
        + (f", {users:,} slots per replica" if s.setup.family == "layer-split" else "")
        + ")",
        "decode": (
            f"batch {users} per replica at {b.decode_context:,} tokens: "
            f"memory {d.memory_seconds * 1e3:.1f} ms, compute "
            + ("unknown" if d.compute_seconds is None else f"{d.compute_seconds * 1e3:.1f} ms")
            + f", all-reduce {d.comm_seconds * 1e3:.1f} ms; {d.bound}-bound; {d.seconds * 1e3:.1f} ms per step "
            f"({base.efficiency:.0%} of the bandwidth; planner.advisor.engine_speed)"
        ),
        "prefill": b.prefill_note,
        "cost": base.cost.basis,
        "cost per conversation": "total cost of ownership (or dollars per hour) / conversations held at once",
        "cost per million output tokens": "dollars per hour / (output tokens/s at the target load x 3,600) x 10^6",
    }


def _servers(engine: str, replicas: int, hosts: int) -> str | None:
    """How replicas bought in several servers are started (:func:`servers_note`, from the engine's declaration)."""
    support = get_engine(engine).support
    return servers_note(support.label, support.replicas_flag, replicas, hosts)


def build_option(
    b: Built,
    c: Candidate,
    row: SupportRow,
    a: Assessment,
    overhead: OverheadModel,
    host: HostChoice | None,
    assumptions: Assumptions,
) -> Option:
    """A set-up that holds the target, with its speed, costs, warnings and assumptions: its parts that read no user
    count made once and kept across rankings (:func:`planner.advisor.option_base.base_of`), the rest here."""
    w = b.workload
    base = base_of(b, c, row, a, overhead, host, assumptions)
    batch = max(1, math.ceil(w.target_concurrency / c.replicas))
    group, cost = base.group, base.cost
    s = speed_of(b, c, row, batch, base.cached, group, base.found)
    gap = b.speed_gap(row.engine, c.weights, c.gpu, batch)  # from the batch on where public runs measured it
    warnings, undermining = option_warnings(b, c, s, cost, row, a, gap)
    warnings += base.tail
    if group > 1:  # the one decode load speed_of read (kept in Built)
        read = b.decode(c.weights, c.kv_dtype, batch * group, base.cached, row.other_bits)
        warnings.append(ranks_note(c.replicas, read.dense_bytes, batch))
    elif not cost.rented and (servers := _servers(row.engine, c.replicas, cost.hosts)):
        warnings.append(servers)  # whole copies bought in several servers: one command a server
    conversations = a.conversations * c.replicas
    per_million = cost.usd_per_hour / (s.total * 3600) * 1e6 if cost.usd_per_hour is not None and s.total else None
    fields = {
        **base.fields,
        "target_concurrency": w.target_concurrency,
        "headroom": conversations / w.target_concurrency - 1,
        "slots": batch if s.setup.family == "layer-split" else None,
        "batch_per_replica": batch,
        "measured_speed_share": None if gap is None else gap[1],
        "measured_speed_on": None if gap is None else gap[2],
        "measured_speed_models": None if gap is None else gap[3],
        "decode_tokens_per_s_per_user": s.per_user,
        "decode_tokens_per_s_total": s.total,
        "decode_bound": s.decode.bound,
        "step_seconds": s.decode.seconds,
        "prefill_seconds": s.prefill,
        "prefill_share": s.prefill_share,
        "experts_priced": s.experts,
        "bandwidth_efficiency": base.efficiency,
        "usd_per_million_output_tokens": per_million,
        "assumptions": _assumptions(b, base, c, s),
        "warnings": tuple(warnings),
        "undermining": tuple(undermining),
    }
    return assembled(Option, fields)  # each field read off a validated model or computed from them: not validated again
