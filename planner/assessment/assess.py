"""One set-up, one answer: the figures and the verdict every surface shows (pages, links, CLI, exports).

:func:`assess` plans a request and, when it uses an engine profile, asks that engine what it prints at
start-up. The engine's accounting then decides the KV budget and the concurrency (vLLM's hybrid sliding-window
groups, block rounding and start-up check are what a deployment gets), and a start-up failure is part of the
verdict; a generic overhead model keeps the planner's own paged capacity (seed 001's formula in blocks).

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

from planner.bounds.errors import PlannerError
from planner.bounds.walltime import check
from planner.core.overhead import EngineProfile
from planner.core.units import format_bytes, format_tokens
from planner.engines.base import EngineReport
from planner.engines.registry import engine_of
from planner.planning.plan import PlanRequest, plan
from planner.planning.results import PlanResult


class VerdictState(StrEnum):
    MEETS_TARGET = "meets-target"
    MISSES_TARGET = "misses-target"
    WEIGHTS_DO_NOT_FIT = "weights-do-not-fit"
    NO_ROOM = "no-room-for-one-sequence"
    ENGINE_REFUSES = "engine-refuses-to-start"


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
    concurrency: float  # sequences of the context held at once, all replicas
    conversations: int  # whole conversations held at once, all replicas
    replicas: int

    @property
    def tone(self) -> Tone:
        return TONES[self.state]

    @property
    def fits(self) -> bool:
        """It starts and holds at least one conversation of the chosen context (target met or not)."""
        return self.state in (VerdictState.MEETS_TARGET, VerdictState.MISSES_TARGET)

    @property
    def conversations_per_replica(self) -> int:
        return self.conversations // self.replicas if self.replicas else 0

    def sentence(self, unit: str = "GiB") -> str:
        """The verdict in one or two sentences a manager can paste into an email."""
        return verdict_sentence(self, unit)


def _engine_capacity(report: EngineReport) -> tuple[int, float]:
    """(KV tokens, concurrency) of one replica as the engine reports them; nothing when it cannot start."""
    if report.min_available_kv_cache_bytes <= 0:
        return 0, 0.0
    return report.kv_cache_tokens, report.max_concurrency


def _state(result: PlanResult, report: EngineReport | None, per_replica: float, target: int | None) -> VerdictState:
    if result.fit_status == "weights-do-not-fit":
        return VerdictState.WEIGHTS_DO_NOT_FIT
    if report is not None and not report.fits:
        return VerdictState.ENGINE_REFUSES
    if math.floor(per_replica + 1e-9) < 1:  # whole conversations: paged, per replica, as the count shows
        return VerdictState.NO_ROOM
    conversations = math.floor(per_replica + 1e-9) * result.replicas
    if target is not None and conversations < target:
        return VerdictState.MISSES_TARGET
    return VerdictState.MEETS_TARGET


def for_users(request: PlanRequest, result: PlanResult, users: int | None) -> PlanRequest:
    """``request`` as its engine is launched for ``users`` at once, spread over the replicas
    (:meth:`planner.engines.base.Engine.for_users`: llama.cpp's ``-np``); unchanged without a target."""
    if users is None or not isinstance(request.overhead, EngineProfile):
        return request
    engine, profile = engine_of(request.overhead)
    sized = engine.for_users(request, result, profile, math.ceil(users / result.replicas))
    return request if sized == profile else request.model_copy(update={"overhead": sized})


def assess(request: PlanRequest, target_users: int | None = None, result: PlanResult | None = None) -> Assessment:
    """Plan ``request`` (or take its ``result``), ask its engine, and give the verdict against ``target_users``.
    A request its engine does not run (weights, KV dtype or deployment options on this GPU) raises
    :class:`PlannerError` with the engine's reason (:meth:`planner.engines.base.Engine.refusal`)."""
    check()  # every loop of assessments (curves, alternatives, the advisor) stops at the run's budget
    if isinstance(request.overhead, EngineProfile):
        engine_of(request.overhead)[0].check(request)  # what the engine does not run is refused, with its reason
    result = result or plan(request)
    launched = for_users(request, result, target_users)
    if launched is not request:
        request, result = launched, plan(launched)
    report, label = None, None
    if isinstance(request.overhead, EngineProfile):
        engine, profile = engine_of(request.overhead)
        report, label = engine.report(request, result, profile), engine.label
        tokens, per_replica = _engine_capacity(report)
    else:
        tokens, per_replica = result.kv_budget_tokens_per_replica, result.capacity.sequences_per_replica
    replicas = result.replicas
    state = _state(result, report, per_replica, target_users)
    if state in (VerdictState.WEIGHTS_DO_NOT_FIT, VerdictState.ENGINE_REFUSES):
        per_replica = 0.0  # nothing is served: the engine does not start or the weights do not load
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
        conversations=math.floor(per_replica + 1e-9) * replicas,
        replicas=replicas,
    )


# -- words ------------------------------------------------------------------------------------------------


def context_label(tokens: int) -> str:
    """Context sizes as they are quoted (k = 1,024 tokens).

    >>> context_label(32768)
    '32k'
    >>> context_label(5000)
    '5,000'
    """
    if tokens >= 1024 and tokens % 1024 == 0:
        return f"{tokens // 1024}k"
    return f"{tokens:,}"


def mem(n_bytes: float, unit: str) -> str:
    """A memory figure in the chosen unit, one decimal from 10 GiB up.

    >>> mem(80 * 2**30, "GiB")
    '80.0 GiB'
    >>> mem(1.5e9, "GB")
    '1.50 GB'
    """
    return format_bytes(n_bytes, unit, digits=1 if abs(n_bytes) >= 10 * 2**30 else 2)


def setup_label(request: PlanRequest) -> str:
    """``'2 × H100 SXM5 80GB'``."""
    gpu = request.gpu
    name = gpu.name if gpu is not None else f"{request.gpu_memory_bytes / 1e9:g} GB GPU"
    if request.deployment is not None and request.deployment.stage_gpus:  # mixed GPUs, one per pipeline stage
        return " + ".join(stage.name for stage in request.deployment.stage_gpus)
    return f"{request.gpu_count} × {name}"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


REFUSALS: dict[str, str] = {
    "free-memory": "because less memory is free on the GPU than its memory fraction asks for (another process holds "
    "some of it)",
    "sampler-oom": "running out of memory while warming up its sampler (the memory fraction leaves too little)",
    "tp-indivisible": "because the tensor-parallel size does not divide the model's heads or vocabulary",
    "max-model-len": "because the context is longer than the model's maximum",
    "kv-cache-too-small": "because one conversation of the chosen context needs more KV cache than is left",
    "no-kv-memory": "because weights and working memory leave no room for the KV cache",
    "weights-oom": "because the weights do not fit in its share of the memory",
    "out-of-memory": "running out of memory at start-up",
    "mamba-blocks": "because more sequences may run at once (max_num_seqs) than its KV pool has state blocks; lower "
    "max_num_seqs or raise the memory fraction",
}


def _refusal(report: EngineReport) -> str:
    """Why the engine would not start, in words, with the longest context that would."""
    reason = REFUSALS.get(report.failure_kind or "", "as its start-up check fails")
    longest = report.estimated_max_model_len
    tail = f"; the longest context that fits is about {longest:,} tokens." if longest else "."
    return f"{reason}{tail if report.failure_kind in ('kv-cache-too-small', 'no-kv-memory', None) else '.'}"


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
        return f"{name} in {precision} on {where}: {a.engine_label} would refuse to start, {_refusal(a.report)}"
    tokens = format_tokens(a.kv_budget_tokens)
    replicas = f" ({format_tokens(a.kv_budget_tokens_per_replica)} per replica)" if a.replicas > 1 else ""
    if a.state is VerdictState.NO_ROOM:
        return (
            f"{name} in {precision} loads on {where}, but its {tokens} tokens of KV cache{replicas} cannot hold "
            f"one conversation of {context} tokens."
        )
    text = (
        f"{name} in {precision} on {where} holds {tokens} tokens of KV cache{replicas}: "
        f"{_plural(a.conversations, 'concurrent conversation')} of {context} tokens."
    )
    if a.target_users:
        target, held = a.target_users, a.conversations
        if a.state is VerdictState.MEETS_TARGET:
            text += f" That covers the target of {target:,} users with {held - target:,} to spare."
        else:
            text += f" That is {target - held:,} short of the target of {target:,} users."
    return text


class CurvePoint(BaseModel, frozen=True, extra="forbid"):
    """The set-up at one context length: the figures :func:`assess` gives there."""

    context_tokens: int
    concurrency: float  # all replicas
    conversations: int  # whole conversations, all replicas
    contiguous: int  # conversations if each reserved its whole length up front (naive allocation)
    kv_bytes_per_sequence: int


def concurrency_curve(request: PlanRequest, contexts: list[int], users: int | None = None) -> list[CurvePoint]:
    """:func:`assess` at each context length in ``contexts`` against ``users`` (an engine's ``max_model_len``
    follows the context), so the curve at the chosen context is the figure every other surface shows."""
    if any(c <= 0 for c in contexts):
        raise PlannerError("contexts: every context length must be a positive number of tokens")
    points = []
    for tokens in contexts:
        a = assess(request.at_context(tokens), users)
        points.append(
            CurvePoint(
                context_tokens=tokens,
                concurrency=a.concurrency,
                conversations=a.conversations,
                contiguous=a.result.capacity.sequences_contiguous,
                kv_bytes_per_sequence=a.result.capacity.kv_bytes_per_sequence,
            )
        )
    return points
