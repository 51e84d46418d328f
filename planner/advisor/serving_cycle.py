"""A replica serving a steady batch: each user's cycle of decode steps and the batch's prompts, and what a user and
the replica get from it (the steady state :mod:`planner.advisor.drain` starts from). Split from
:mod:`planner.advisor.engine_speed`, which prices the steps and prompts this combines."""

from __future__ import annotations

from typing import NamedTuple

from planner.advisor.engine_speed import FITTED, Roofline, Step, prefill_in_serving, prompt_rank_wait_seconds, step
from planner.advisor.throughput import Load, Setup


class Serving(NamedTuple):
    """Users in flight on one replica and what they get."""

    batch: int
    per_user_tokens_per_s: float  # output tokens/s one user sees while generating (prefill stalls counted)
    total_tokens_per_s: float  # output tokens/s of the replica
    decode: Step


def serving(setup: Setup, decode: Load, prefill: Load | None, output_tokens: int, r: Roofline = FITTED) -> Serving:
    """``decode.tokens`` users in flight, each writing ``output_tokens`` after a prompt (``prefill``; ``None``:
    decode only): a cycle of ``output_tokens`` steps and the batch's prefills; under TensorRT-LLM's attention data
    parallelism each prompt also holds the step on its rank (:func:`planner.advisor.rank_balance.rank_wait_seconds`
    at ``decode.tokens / output_tokens`` prompts a step)."""
    per_prompt = 0.0 if prefill is None else (prefill_in_serving(setup, prefill, r, decode.tokens) or 0.0)
    if prefill is not None and per_prompt:
        per_prompt += prompt_rank_wait_seconds(setup, prefill, decode.tokens / output_tokens, r)
    return served(step(setup, decode, r), decode.tokens, per_prompt, output_tokens)


def served(d: Step, batch: int, per_prompt: float, output_tokens: int) -> Serving:
    """:func:`serving` from its parts: the decode step ``d`` of ``batch`` users and the GPU seconds of one prompt
    in the run (:func:`planner.advisor.engine_speed.prefill_in_serving`, 0 when unknown or without prompts), for a
    caller that has them."""
    cycle = output_tokens * d.seconds + per_prompt * batch
    per_user = output_tokens / cycle
    return Serving(batch, per_user, per_user * batch, d)
