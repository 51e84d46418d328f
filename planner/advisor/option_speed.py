"""An option's speed under its engine at the target load (:mod:`planner.advisor.engine_speed`), the part of
:mod:`planner.advisor.build` that reads the speed model."""

from __future__ import annotations

from typing import NamedTuple, Protocol

from planner.advisor.engine_speed import Step, prefill_in_serving, prompt_rank_wait_seconds, step
from planner.advisor.moe_priced import Priced, experts_priced
from planner.advisor.moe_transfer import Transfer
from planner.advisor.options import Candidate
from planner.advisor.paged_moe import measured_beside
from planner.advisor.serving_cycle import served
from planner.advisor.support import SupportRow
from planner.advisor.throughput import Load, Setup
from planner.advisor.workload import Workload
from planner.core.model import ModelSpec


class Built(Protocol):
    """What :func:`speed_of` reads of :class:`planner.advisor.build.Built`: its workload and kept loads."""

    @property
    def workload(self) -> Workload: ...

    @property
    def new_tokens(self) -> int: ...

    def setup(
        self, c: Candidate, row: SupportRow, cached: ModelSpec | None = None, group: int = 1
    ) -> tuple[Setup, float | None, float]: ...

    def prefill(
        self, weights: str, tokens: int, cached: ModelSpec | None = None, other_bits: float | None = None
    ) -> Load: ...

    def decode(
        self, weights: str, kv_dtype: str, batch: int, cached: ModelSpec | None = None, other_bits: float | None = None
    ) -> Load: ...


class Speed(NamedTuple):
    setup: Setup
    decode: Step
    per_user: float | None
    total: float | None
    prefill: float | None
    prefill_share: float | None
    measured_beside: tuple[str, ...] = ()  # formats measured where this one's experts are not (paged_moe)
    experts: Priced | None = None  # how the routed experts are priced (planner.advisor.moe_priced)
    transfer: Transfer | None = None  # where a measured kernel's efficiency prices them (planner.advisor.moe_transfer)


def speed_of(
    b: Built,
    c: Candidate,
    row: SupportRow,
    batch: int,
    cached: ModelSpec | None = None,
    group: int = 1,
    found: tuple[Setup, float | None, float] | None = None,
) -> Speed:
    """Decode at the target load (``batch`` users per replica) and a typical prompt, under the option's engine.
    A user's speed counts the pauses for the other users' prompts (each user sends one prompt per reply): a cycle
    of ``output`` decode steps and ``batch`` prefills (:func:`planner.advisor.serving_cycle.serving`), what a
    serving benchmark's time per output token measures at that concurrency. ``cached``: the model as the engine
    caches and attends to it (TensorRT-LLM: every token of windowed layers, its KV read and attention included).
    ``group``: replicas that share their experts (vLLM's data-parallel ranks of a MoE model), run as one step of
    ``batch x group`` sequences over all their GPUs (:meth:`Built.setup`). ``found``: :meth:`Built.setup`'s answer
    for these, where the caller has it."""
    setup, alone, per_prompt = found or b.setup(c, row, cached, group)
    batch *= group
    decode_load = b.decode(c.weights, c.kv_dtype, batch, cached, row.other_bits)
    decode = step(setup, decode_load)
    if decode.bound == "unknown":
        return Speed(setup, decode, None, None, alone, None)
    if setup.family == "fused" and decode_load.moe is not None:  # its experts beside the batch (gemm_tables)
        prompt = b.prefill(c.weights, b.new_tokens, cached, row.other_bits)
        per_prompt = prefill_in_serving(setup, prompt, batch=decode_load.tokens) or per_prompt
        per_prompt += prompt_rank_wait_seconds(setup, prompt, decode_load.tokens / b.workload.mean_output_tokens)
    run = served(decode, decode_load.tokens, per_prompt, b.workload.mean_output_tokens)  # what serving() gives
    cycle = b.workload.mean_output_tokens / run.per_user_tokens_per_s
    share = 1.0 - b.workload.mean_output_tokens * decode.seconds / cycle
    total = run.total_tokens_per_s * (c.replicas // group)
    moved = decode.transfer  # as the step priced its experts
    beside = () if moved is not None else measured_beside(setup, decode_load)
    priced = experts_priced(setup, decode_load)
    return Speed(setup, decode, run.per_user_tokens_per_s, total, alone, share, beside, priced, moved)
