"""One set-up, one answer: the figures and the verdict every surface shows (pages, links, CLI, exports).

:func:`assess` plans a request and, when it uses an engine profile, asks that engine what it prints at
start-up. The engine's accounting then decides the KV budget and the concurrency (vLLM's hybrid sliding-window
groups, block rounding and start-up check are what a deployment gets), and a start-up failure is part of the
verdict; a generic overhead model keeps the planner's own paged capacity (Memory Planning for LLMs' formula in blocks).

The verdict has explicit states, each with one tone:

- ``meets-target`` (success): it fits and holds the target users (or no target is given);
- ``misses-target`` (warning): it fits but holds fewer conversations than the target;
- ``weights-do-not-fit``, ``no-room-for-one-sequence``, ``engine-refuses-to-start`` (error).

Per-replica and total figures are named as such: ``kv_budget_tokens_per_replica`` is one replica's pool (what an
engine prints), ``concurrency`` and ``conversations`` count every replica.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel

from planner.assessment.launched import for_users
from planner.assessment.words import (
    cache_words,
    context_label,
    mem,
    plural,
    refusal,
    replica_word,
    setup_label,
    shares_experts,
    shortened,
    stand_in_words,
    why_not_divided,
)
from planner.bounds.walltime import check
from planner.core.overhead import EngineProfile
from planner.core.units import format_tokens
from planner.engines.accuracy import DEVICE_WORDS, KvAccuracy, device_class, kv_accuracy, widest_measured
from planner.engines.base import EngineReport
from planner.engines.registry import engine_of, get_engine
from planner.engines.served import unserved_warning
from planner.planning.plan import PlanRequest, plan
from planner.planning.results import PlanResult

__all__ = [
    "Assessment",
    "VerdictState",
    "assess",
    "context_label",
    "mem",
    "setup_label",
    "verdict_sentence",
]


class VerdictState(StrEnum):
    MEETS_TARGET = "meets-target"
    MISSES_TARGET = "misses-target"
    WEIGHTS_DO_NOT_FIT = "weights-do-not-fit"
    NO_ROOM = "no-room-for-one-sequence"
    ENGINE_REFUSES = "engine-refuses-to-start"


# The verdicts in a reader's words (the keys stay in CSV files and JSON, for programs)
STATE_WORDS: dict[VerdictState, str] = {
    VerdictState.MEETS_TARGET: "meets the target",
    VerdictState.MISSES_TARGET: "misses the target",
    VerdictState.WEIGHTS_DO_NOT_FIT: "weights do not fit",
    VerdictState.NO_ROOM: "no room for one conversation",
    VerdictState.ENGINE_REFUSES: "the engine refuses to start",
}
Tone = Literal["success", "warning", "error"]
TONES: dict[VerdictState, Tone] = {
    VerdictState.MEETS_TARGET: "success",
    VerdictState.MISSES_TARGET: "warning",
    VerdictState.WEIGHTS_DO_NOT_FIT: "error",
    VerdictState.NO_ROOM: "error",
    VerdictState.ENGINE_REFUSES: "error",
}


class Assessment(BaseModel, frozen=True, extra="forbid"):
    """A planned set-up with the figures people read and its verdict."""

    request: PlanRequest
    result: PlanResult
    report: EngineReport | None  # what the engine prints, when an engine profile is used
    engine_label: str | None
    state: VerdictState
    target_users: int | None
    kv_budget_tokens_per_replica: int
    kv_budget_tokens: int  # all replicas
    concurrency: float  # sequences of the context the KV pool holds at once, all replicas
    conversations: int  # whole conversations served at once, all replicas (at most the engine runs: running_cap)
    replicas: int
    # How close public start-ups like this one came (planner.engines.accuracy), and the conversations its pool would
    # hold after that group's miss (None: no engine, a fixed-slot engine, or a pool that does not start). Where no
    # group is like it (an engine no public start-up measures, ranks sharing the experts), the widest miss measured
    # on its kind of device, any engine's, stands in for its error (unchecked_miss), and the count is after that.
    accuracy: KvAccuracy | None = None
    conversations_after_miss: int | None = None
    unchecked_miss: KvAccuracy | None = None

    @property
    def tone(self) -> Tone:
        """The verdict's colour: its state's, but a met target whose margin is within the planner's own KV error
        (:attr:`margin_within_error`) is a warning, not a success."""
        return "warning" if self.margin_within_error else TONES[self.state]

    @property
    def margin_within_error(self) -> bool:
        """The target is met, but the miss public start-ups like this one have shown (or, where none is like it, the
        widest measured on its kind of device) would leave it short."""
        after, target = self.conversations_after_miss, self.target_users
        if self.state is not VerdictState.MEETS_TARGET or after is None or target is None:
            return False
        return after < target

    @property
    def fits(self) -> bool:
        """It starts and holds at least one conversation of the chosen context (target met or not)."""
        return self.state in (VerdictState.MEETS_TARGET, VerdictState.MISSES_TARGET)

    @property
    def conversations_per_replica(self) -> int:
        return self.conversations // self.replicas if self.replicas else 0

    @property
    def running(self) -> int | None:
        """The sequences one replica of the engine runs at once (:attr:`EngineReport.max_running`); None: no limit."""
        return self.report.max_running if self.report is not None else None

    @property
    def served_concurrency(self) -> float:
        """The pool's concurrency (all replicas), at most what the engine runs at once (:func:`served`): what a curve
        of conversations at once plots."""
        return served(self.concurrency, self.running, self.replicas)

    @property
    def running_cap(self) -> int | None:
        """The engine's limit on sequences run at once per replica when it, not the pool, sets the conversations
        served; None when the pool does."""
        running = self.running
        if running is None or not self.fits or math.floor(self.concurrency / self.replicas + 1e-9) <= running:
            return None
        return running

    @property
    def allocated(self) -> PlanResult:
        """The plan as the engine leaves each GPU (what the Memory chart, its table and ``fit --json`` show): no
        KV pool when the engine refuses to start (it allocates none), the cache an engine sizes itself when it
        starts (llama.cpp's ``-c`` cells, not everything that is free), otherwise the plan."""
        if self.state is VerdictState.ENGINE_REFUSES:
            sized: tuple[int, ...] = (0,) * len(self.result.stages)
        elif self.report is not None and self.report.kv_cache_bytes_per_stage:
            sized = self.report.kv_cache_bytes_per_stage
        else:
            return self.result
        stages = tuple(
            s.model_copy(update={"kv_cache_bytes": max(0, min(s.kv_cache_bytes, kv))})
            for s, kv in zip(self.result.stages, sized, strict=True)
        )
        limiting = next(s for s in stages if s.stage == self.result.per_gpu.stage)
        update: dict[str, object] = {"stages": stages, "per_gpu": limiting}
        if self.state is VerdictState.ENGINE_REFUSES:
            update |= {"kv_budget_tokens": 0, "kv_budget_tokens_per_replica": 0, "max_concurrency": 0.0}
        return self.result.model_copy(update=update)

    def sentence(self, unit: str = "GiB") -> str:
        """The verdict in one or two sentences a manager can paste into an email."""
        return verdict_sentence(self, unit)


def _engine_capacity(report: EngineReport) -> tuple[int, float]:
    """(KV tokens, concurrency) of one replica as the engine reports them; nothing when it cannot start."""
    if report.min_available_kv_cache_bytes <= 0:
        return 0, 0.0
    return report.kv_cache_tokens, report.max_concurrency


def served(concurrency: float, running: int | None, replicas: int) -> float:
    """``concurrency`` (all replicas) at most ``running`` sequences a replica (None: no limit).

    >>> served(49.99, 4, 2), served(49.99, None, 2)
    (8.0, 49.99)
    """
    return concurrency if running is None else min(concurrency, float(running * replicas))


def served_per_replica(per_replica: float, report: EngineReport | None) -> int:
    """Whole conversations one replica serves at once: those its pool holds (paged, as the count shows), at most
    the sequences the engine runs at once (:attr:`EngineReport.max_running`: vLLM's ``--max-num-seqs``, set or by
    default); more wait in its queue.

    >>> served_per_replica(49.99, None)
    49
    """
    held = math.floor(per_replica + 1e-9)
    running = report.max_running if report is not None else None
    return held if running is None else min(held, running)


def _state(result: PlanResult, report: EngineReport | None, per_replica: float, target: int | None) -> VerdictState:
    if result.fit_status == "weights-do-not-fit":
        return VerdictState.WEIGHTS_DO_NOT_FIT
    if report is not None and not report.fits:
        return VerdictState.ENGINE_REFUSES
    if math.floor(per_replica + 1e-9) < 1:  # whole conversations: paged, per replica, as the count shows
        return VerdictState.NO_ROOM
    conversations = served_per_replica(per_replica, report) * result.replicas
    if target is not None and conversations < target:
        return VerdictState.MISSES_TARGET
    return VerdictState.MEETS_TARGET


def conversations_after(report: EngineReport | None, per_replica: float, replicas: int, miss_bytes: int) -> int | None:
    """Whole conversations at once (all replicas) if the engine's KV cache per GPU came out ``miss_bytes`` smaller,
    counted as :func:`assess` counts them (:func:`served_per_replica`); a paged pool's concurrency scales with its
    size. ``None`` for an engine that gives each conversation a fixed slot (llama.cpp) or a pool that does not start.

    >>> conversations_after(None, 3.0, 1, 0) is None
    True
    """
    if report is None or get_engine(report.engine).fixed_slots or report.available_kv_cache_bytes_per_gpu <= 0:
        return None
    pool = report.available_kv_cache_bytes_per_gpu
    return served_per_replica(per_replica * max(0, pool - miss_bytes) / pool, report) * replicas


def assess(
    request: PlanRequest,
    target_users: int | None = None,
    result: PlanResult | None = None,
    *,
    notes: bool = True,
    engine_checked: bool = False,
) -> Assessment:
    """Plan ``request`` (or take its ``result``), ask its engine, and give the verdict against ``target_users``.
    A request its engine does not run (weights, KV dtype or deployment options on this GPU) raises
    :class:`PlannerError` with the engine's reason (:meth:`planner.engines.base.Engine.refusal`). ``notes`` False:
    the engine's report without its notes (:meth:`planner.engines.base.Engine.report_figures`), every figure and
    the verdict the same (the advisor reads no notes). ``engine_checked``: the caller has asked that refusal
    already (the advisor keeps it across lengths: :class:`planner.advisor.reuse.KeptRefusal`)."""
    check()  # every loop of assessments (curves, alternatives, the advisor) stops at the run's budget
    if isinstance(request.overhead, EngineProfile) and not engine_checked:
        engine_of(request.overhead)[0].check(request)  # what the engine does not run is refused, with its reason
    result = result or plan(request)
    launched = for_users(request, result, target_users)
    if launched is not request:
        request, result = launched, plan(launched)
    report, label = None, None
    unserved = None if isinstance(request.overhead, EngineProfile) else unserved_warning(request)  # a generic one
    result = result.model_copy(update={"warnings": (*result.warnings, unserved)}) if unserved else result
    if isinstance(request.overhead, EngineProfile):
        engine, profile = engine_of(request.overhead)
        report = engine.report(request, result, profile) if notes else engine.report_figures(request, result, profile)
        label = engine.label
        tokens, per_replica = _engine_capacity(report)
    else:
        tokens, per_replica = result.kv_budget_tokens_per_replica, result.capacity.sequences_per_replica
    replicas = result.replicas
    state = _state(result, report, per_replica, target_users)
    if state in (VerdictState.WEIGHTS_DO_NOT_FIT, VerdictState.ENGINE_REFUSES):
        tokens, per_replica = 0, 0.0  # nothing is served: the engine does not start or the weights do not load
    checked = report is not None and not shares_experts(request, replicas)  # no public start-up splits them so
    group = kv_accuracy(report.engine, report.engine_version, request.gpu) if checked and report else None
    stand_in = widest_measured(device_class(request.gpu)) if report is not None and group is None else None
    measure = group or stand_in  # a stand-in's miss alone: what unchecked_clause names
    first_boot = report.first_boot_bytes if group is not None and report is not None else 0
    miss = max(measure.miss_bytes, first_boot) if measure is not None else 0
    after = conversations_after(report, per_replica, replicas, miss) if measure is not None else None
    return Assessment(
        request=request,
        result=result,
        report=report,
        engine_label=label,
        state=state,
        target_users=target_users,
        kv_budget_tokens_per_replica=tokens,
        kv_budget_tokens=tokens * replicas,
        concurrency=per_replica * replicas,
        conversations=served_per_replica(per_replica, report) * replicas,
        replicas=replicas,
        accuracy=group,
        conversations_after_miss=after,
        unchecked_miss=stand_in,
    )


# -- words ------------------------------------------------------------------------------------------------


def verdict_sentence(a: Assessment, unit: str = "GiB") -> str:
    """One plain sentence (two when a target is given), with the numbers shown beside it."""
    result, request = a.result, a.request
    name, where = request.model.display_name, setup_label(request)
    precision = result.weights.upper()
    context = context_label(result.context_tokens)
    if a.state is VerdictState.WEIGHTS_DO_NOT_FIT:
        short = -result.per_gpu.headroom_bytes
        return (
            f"{name} in {precision} does not fit on {where}: weights and working memory need "
            f"{mem(short, unit)} more per GPU than the {mem(result.per_gpu.gpu_memory_bytes, unit)} each GPU has."
        )
    if a.state is VerdictState.ENGINE_REFUSES:
        assert a.report is not None
        why = refusal(a.report, request.gpu)
        return f"{name} in {precision} on {where}: {a.engine_label} would refuse to start, {why}"
    tokens = format_tokens(a.kv_budget_tokens)
    each = replica_word(a.request, a.replicas)
    replicas = f" ({format_tokens(a.kv_budget_tokens_per_replica)} per {each})" if a.replicas > 1 else ""
    cache = cache_words(result.kv_dtype)
    if a.state is VerdictState.NO_ROOM:
        return (
            f"{name} in {precision} loads on {where}, but its {tokens} tokens of {cache}{replicas} cannot hold "
            f"one conversation of {context} tokens.{shortened(a.report, a.engine_label)}"
        )
    allotment = f"whole blocks of {result.block_size} tokens"
    if a.report is not None:
        slots = get_engine(a.report.engine).fixed_slots  # llama.cpp: one slot of -c / -np tokens each
        allotment = (
            f"a slot of {a.report.max_model_len:,} tokens" if slots else f"whole blocks of {a.report.block_size} tokens"
        )
    why = ""  # when the engine's limit, not the pool's rounding, sets the count
    if not a.running_cap:
        budget, held = a.kv_budget_tokens_per_replica, a.conversations
        why = why_not_divided(request.model, budget, result.context_tokens, held, a.replicas, allotment)
    text = (
        f"{name} in {precision} on {where} holds {tokens} tokens of {cache}{replicas}: "
        f"{plural(a.conversations, 'concurrent conversation')} of {context} tokens{why}{running_words(a)}."
    )
    if a.target_users:
        target, held = a.target_users, a.conversations
        if a.state is VerdictState.MEETS_TARGET:
            text += f" That covers the target of {plural(target, 'user')} with {held - target:,} to spare."
            text += thin_margin(a, unit)
        else:
            text += f" That is {target - held:,} short of the target of {plural(target, 'user')}."
    return text


def thin_margin(a: Assessment, unit: str = "GiB", replicas: int = 1, target: int | None = None) -> str:
    """Where the target (``target``, else :attr:`Assessment.target_users`) is met but the miss public start-ups like
    this one have shown (:attr:`Assessment.accuracy`) would leave it short, a sentence that says so; else nothing.
    ``replicas``: copies of ``a``'s set-up served side by side (the advisor's), their conversations summed."""
    after, group, target = a.conversations_after_miss, a.accuracy, target or a.target_users
    if after is None or (group is None and a.unchecked_miss is None) or target is None or after * replicas >= target:
        return ""
    if group is None:
        clause = unchecked_clause(a, unit, after * replicas, target)
        return f" {clause[:1].upper()}{clause[1:]}."
    boot = a.report.first_boot_bytes if a.report is not None else 0
    if boot > group.miss_bytes:  # the first boot's transient, quoted in the engine's notes, is the larger miss
        return (
            f" The margin is thinner than a first boot's transient: public first boots like this one held up to "
            f"{mem(boot, unit)} less KV cache per GPU than planned, which would hold "
            f"{plural(after * replicas, 'conversation')}."
        )
    return (
        f" The margin is thinner than the planner's error: on {group.miss_share} of {group.cases} public start-ups "
        "like this "
        f"one its KV cache was within {mem(group.miss_bytes, unit)} per GPU of the engine's, and "
        f"{mem(group.miss_bytes, unit)} less would hold {plural(after * replicas, 'conversation')}."
    )


def unchecked_words(a: Assessment) -> str:
    """That no public start-up checks the memory figure of ``a``'s engine set-up (:attr:`Assessment.unchecked_miss`)."""
    label = get_engine(a.report.engine).label if a.report is not None else "the estimate"
    how = " with data-parallel ranks sharing the experts" if shares_experts(a.request, a.replicas) else ""
    return f"no public start-up of {label}{how} on {DEVICE_WORDS[device_class(a.request.gpu)]} checks its memory figure"


def unchecked_clause(a: Assessment, unit: str, after: int, target: int) -> str:
    """:func:`unchecked_words`, and the ``after`` conversations the widest miss measured there would leave."""
    widest = a.unchecked_miss
    assert widest is not None
    held = f"it would hold {after:,} against the target of {target:,}"
    return f"{unchecked_words(a)}, and {stand_in_words(widest, get_engine(widest.engine).label, unit)} {held}"


def running_words(a: Assessment) -> str:
    """Why fewer conversations are served than the pool holds: the engine's limit on sequences run at once
    (:attr:`Assessment.running_cap`), by its own flag; empty when the pool sets the count."""
    cap = a.running_cap
    if cap is None or a.report is None:
        return ""
    held = math.floor(a.concurrency / a.replicas + 1e-9)
    each = " per replica" if a.replicas > 1 else ""
    flag = get_engine(a.report.engine).running_flag
    return f" ({a.engine_label} runs at most {cap:,} at once{each}, {flag}; the pool would hold {held:,}{each})"
