"""A burst of requests drained through a paged engine's scheduler: what a benchmark that sends every request at once
measures.

``vllm bench serve`` at its default request rate (``inf``) with no concurrency cap sends every prompt at once and
reports the output tokens over the whole run, from the first request to the last answer. That is not the steady
state :func:`planner.advisor.serving_cycle.serving` prices: the run starts with a queue of prompts to prefill and
ends on the longest answers decoding at a small batch. This module runs the queue step by step.

The scheduler is vLLM V1's (``vllm/v1/core/sched/scheduler.py``, ``Scheduler.schedule``): each step first gives
every running request its tokens (one decode token, or the next chunk of its prompt) within the step's token budget
(``max_num_batched_tokens``), taking room in the KV pool as it goes; when the pool has none left the request
admitted last is preempted (its cache freed; later it is recomputed from its prompt and the tokens it had written);
then, if nothing was preempted in the step, waiting requests are admitted in order while fewer than
``max_num_seqs`` run and budget is left. A request whose prompt is complete writes a token in the same step.

A step takes the decode step of the requests that decode (:func:`planner.advisor.engine_speed.step` at their mean
context) plus the GPU seconds of the prompt tokens it prefills (per token, as
:func:`planner.advisor.engine_speed.prefill_in_serving` prices a prompt inside a serving run). The pool is counted
in tokens (block rounding left out). Nothing here is fitted.

SGLang's rows are drained the same way, with its own pool, running limit and chunk: its admission (which keeps room
for the answers by a decaying ``new_token_ratio`` and retracts requests when the pool runs out) is not modelled.
Where the engine runs a step outside its CUDA graphs (a step that prefills, or decodes more requests than its graphs
hold: :mod:`planner.advisor.eager_steps`) and the time that adds is measured, the step pays it (:class:`Eager`).
"""

from __future__ import annotations

import math
import random
import statistics
from collections import deque
from collections.abc import Callable
from typing import NamedTuple

# vLLM's benchmark datasets keep a ShareGPT conversation when its prompt and answer have at least 4 tokens, the
# prompt at most 1,024 and both at most 2,048 (vllm/benchmarks/datasets.py ``is_valid_sequence``, its defaults;
# search-index file id 7730565076).
SHAREGPT_MIN_TOKENS = 4
SHAREGPT_MAX_PROMPT = 1024
SHAREGPT_MAX_TOTAL = 2048
SHUFFLE_SEED = 0  # prompts and answers are paired by this seeded shuffle: the same row gives the same lengths


class Limits(NamedTuple):
    """What bounds the running batch: the KV pool (tokens), the running requests, the tokens of one step."""

    pool_tokens: int
    max_seqs: int
    step_tokens: int


class Eager(NamedTuple):
    """What a step run outside the engine's CUDA graphs adds (seconds), and the largest decode batch its graphs
    replay: a step that prefills, or decodes more requests than that, pays it."""

    seconds: float
    graph_max_batch: int


NO_EAGER = Eager(0.0, 0)  # nothing measured: no step pays anything


class Drained(NamedTuple):
    """The run: its seconds, the tokens written, the median time to a request's first token, the preemptions."""

    seconds: float
    output_tokens: int
    median_first_token_s: float
    preemptions: int

    @property
    def output_tokens_per_s(self) -> float:
        return self.output_tokens / self.seconds if self.seconds > 0 else 0.0


# A drain of a burst (:func:`drain`; another for an A/B, ``bench.drain_sglang``), called with every argument:
# lengths, limits, decode_seconds, prefill_seconds_per_token, start_seconds and eager (NO_EAGER where unmeasured).
Scheduler = Callable[[list[tuple[int, int]], Limits, Callable[[int, int], float], float, float, Eager], Drained]


def truncated_exponential(n: int, mean: float, low: int, high: int) -> list[int]:
    """``n`` lengths at evenly spaced quantiles of an exponential on ``[low, high]`` whose mean is ``mean`` (the
    maximum-entropy distribution of a positive length with a given mean, cut where the source cuts).

    >>> lengths = truncated_exponential(1000, 200, 4, 2044)
    >>> round(statistics.mean(lengths)), min(lengths), max(lengths)
    (200, 4, 1483)
    >>> truncated_exponential(3, 50, 50, 50)
    [50, 50, 50]
    """
    if high <= low or mean <= low:
        return [low] * n
    span, target = high - low, min(mean, (low + high) / 2) - low

    def mean_of(scale: float) -> float:  # an exponential of this scale truncated at span: its mean
        ratio = span / scale
        return scale - (span / math.expm1(ratio) if ratio < 700 else 0.0)

    lo, hi = 1e-6 * span, 1e6 * span
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if mean_of(mid) < target else (lo, mid)
    cut = -math.expm1(-span / lo)
    return [low + round(-lo * math.log1p(-(i + 0.5) / n * cut)) for i in range(n)]


def sharegpt_lengths(n: int, prompt_mean: float, output_mean: float) -> list[tuple[int, int]]:
    """``n`` (prompt, answer) lengths of a ShareGPT run whose means are stated: each drawn as
    :func:`truncated_exponential` on vLLM's filter's range, paired by a seeded shuffle, the answer cut to the total.

    >>> pairs = sharegpt_lengths(1000, 217, 202)
    >>> max(p for p, _ in pairs) <= 1024 and max(p + o for p, o in pairs) <= 2048
    True
    """
    prompts = truncated_exponential(n, prompt_mean, SHAREGPT_MIN_TOKENS, SHAREGPT_MAX_PROMPT)
    answers = truncated_exponential(n, output_mean, SHAREGPT_MIN_TOKENS, SHAREGPT_MAX_TOTAL - SHAREGPT_MIN_TOKENS)
    return [(p, min(o, SHAREGPT_MAX_TOTAL - p)) for p, o in _paired(prompts, answers)]


def uniform_lengths(n: int, prompt_mean: float, output_mean: float) -> list[tuple[int, int]]:
    """``n`` (prompt, answer) lengths each spread evenly from 1 to twice its mean less one (SGLang's ``random``
    dataset at its default range ratio 0 draws them from 1 to the stated length), at evenly spaced quantiles,
    paired by a seeded shuffle.

    >>> pairs = uniform_lengths(1000, 512, 256)
    >>> round(statistics.mean(p for p, _ in pairs)), round(statistics.mean(o for _, o in pairs))
    (512, 256)
    >>> min(p for p, _ in pairs), max(p for p, _ in pairs)
    (1, 1023)
    """

    def spread(mean: float) -> list[int]:  # 1 to top, at the quantiles (top 1: every length 1)
        top = max(1, round(2 * mean - 1))
        return [1 + math.floor(top * (i + 0.5) / n) for i in range(n)]

    return _paired(spread(prompt_mean), spread(output_mean))


def _paired(prompts: list[int], answers: list[int]) -> list[tuple[int, int]]:
    """Prompts and answers (each sorted by quantile) paired at random, by the seeded shuffle of each."""
    rng = random.Random(SHUFFLE_SEED)
    rng.shuffle(prompts)
    rng.shuffle(answers)
    return list(zip(prompts, answers, strict=True))


class _Request:
    """A request in the run: ``kept`` tokens in the pool, ``goal`` the tokens to compute before it writes the next
    (its prompt; one more after each token it writes; its prompt and answer so far after a preemption)."""

    __slots__ = ("goal", "kept", "output", "prompt", "written")

    def __init__(self, prompt: int, output: int) -> None:
        self.prompt, self.output, self.goal, self.kept, self.written = prompt, output, prompt, 0, 0


class _Step(NamedTuple):
    decoding: int
    context_tokens: int  # summed over the decoding requests
    prefilled: int
    preempted: int


def _preempt(running: list[_Request], waiting: deque[_Request]) -> int:
    """Preempt the request admitted last: its tokens leave the pool; it waits first in line. The tokens freed."""
    victim = running.pop()
    freed, victim.kept, victim.goal = victim.kept, 0, victim.prompt + victim.written
    waiting.appendleft(victim)
    return freed


def _schedule(running: list[_Request], waiting: deque[_Request], limits: Limits, used: int) -> tuple[_Step, int]:
    """One step of the scheduler (see the module docstring); the step and the pool's tokens in use after it."""
    budget, decoding, context, prefilled, preempted = limits.step_tokens, 0, 0, 0, 0
    i = 0
    while i < len(running) and budget > 0:
        r = running[i]
        need = min(r.goal - r.kept, budget)
        while used + need > limits.pool_tokens and len(running) > i + 1:
            used -= _preempt(running, waiting)
            preempted += 1
        if used + need > limits.pool_tokens:
            break
        used, budget, r.kept = used + need, budget - need, r.kept + need
        if r.written and need == 1:
            decoding, context = decoding + 1, context + r.kept
        else:
            prefilled += need
        i += 1
    while not preempted and waiting and len(running) < limits.max_seqs and budget > 0:
        r = waiting[0]
        need = min(r.goal, budget)
        if used + need > limits.pool_tokens:
            break
        running.append(waiting.popleft())
        r.kept, used, budget, prefilled = need, used + need, budget - need, prefilled + need
    return _Step(decoding, context, prefilled, preempted), used


def eager_seconds(step: _Step, eager: Eager) -> float:
    """What ``step`` pays outside the CUDA graphs: ``eager.seconds`` if it prefills or decodes more requests than
    the graphs hold (sglang 0.4.3.post2 ``srt/model_executor/model_runner.py:785-796``), else nothing.

    >>> eager_seconds(_Step(200, 0, 0, 0), Eager(0.2, 160)), eager_seconds(_Step(100, 0, 8, 0), Eager(0.2, 160))
    (0.2, 0.2)
    """
    return eager.seconds if step.prefilled or step.decoding > eager.graph_max_batch else 0.0


def drain(
    lengths: list[tuple[int, int]],
    limits: Limits,
    decode_seconds: Callable[[int, int], float],
    prefill_seconds_per_token: float,
    start_seconds: float = 0.0,
    eager: Eager = NO_EAGER,
) -> Drained:
    """Every request of ``lengths`` (prompt, answer) sent at once and run to the end (see the module docstring).
    ``decode_seconds(batch, context)``: one decode step of ``batch`` requests at a mean ``context``;
    ``start_seconds``: the time before the queue reaches the engine (:mod:`planner.advisor.frontend`); ``eager``:
    what a step outside the engine's CUDA graphs adds (:func:`eager_seconds`).

    >>> flat = drain([(100, 10)] * 4, Limits(10_000, 8, 512), lambda batch, context: 0.01, 0.0001)
    >>> flat.output_tokens, round(flat.seconds, 3), flat.preemptions
    (40, 0.13, 0)
    """
    waiting = deque(_Request(p, max(1, o)) for p, o in lengths)
    running: list[_Request] = []
    used, seconds, written, preemptions, firsts = 0, start_seconds, 0, 0, []
    while waiting or running:
        step, used = _schedule(running, waiting, limits, used)
        if not (step.decoding or step.prefilled):  # a request larger than the pool: nothing can run
            break
        decode = decode_seconds(step.decoding, step.context_tokens // step.decoding) if step.decoding else 0.0
        seconds += decode + step.prefilled * prefill_seconds_per_token + eager_seconds(step, eager)
        preemptions += step.preempted
        still: list[_Request] = []
        for r in running:
            if r.kept == r.goal:  # computed up to its next token this step: it writes it
                if not r.written:
                    firsts.append(seconds)
                r.written, r.goal = r.written + 1, r.goal + 1
            if r.written >= r.output:
                used -= r.kept
                written += r.output
            else:
                still.append(r)
        running = still
    return Drained(seconds, written, statistics.median(firsts) if firsts else 0.0, preemptions)
