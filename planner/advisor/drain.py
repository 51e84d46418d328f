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
``max_num_seqs`` run and budget is left. A request whose prompt is complete writes a token in the same step. Under
vLLM (``Limits.cached_prefix``) the request that finds no room is itself preempted when it is the last admitted, and
a preempted request's tokens stay in the prefix cache until other requests' allocations evict them, first freed
first evicted: it resumes from the prefix left (:class:`_Pool`). Without that, the one prompt filling the pool
exactly was preempted whole by the next decode token of another request, its prefill lost, and the run's time
jumped with a few tokens' change of prompt length (issue 21).

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
    """What bounds the running batch: the KV pool (tokens), the running requests, the tokens of one step; and
    whether a preempted request's tokens stay in a prefix cache it resumes from (vLLM V1's default, chunked prefill
    and prefix caching on for a generating model: vllm 0.11.0 ``engine/arg_utils.py:1544-1561``, 0.10.2
    ``:1621-1625``)."""

    pool_tokens: int
    max_seqs: int
    step_tokens: int
    cached_prefix: bool = False


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
    (its prompt; one more after each token it writes; its prompt and answer so far after a preemption), ``cached``
    the tokens a preemption left in the prefix cache that are not yet evicted."""

    __slots__ = ("cached", "goal", "kept", "output", "prompt", "written")

    def __init__(self, prompt: int, output: int) -> None:
        self.prompt, self.output, self.goal, self.kept, self.written = prompt, output, prompt, 0, 0
        self.cached = 0


class _Free:
    """Free tokens of the pool, in the order they were freed: ``owner`` the preempted request whose prefix they still
    cache (``None``: no request will find them again)."""

    __slots__ = ("owner", "tokens")

    def __init__(self, owner: _Request | None, tokens: int) -> None:
        self.owner, self.tokens = owner, tokens


class _Pool:
    """The KV pool in tokens: those in use and the free ones as a queue, the first freed evicted first (vLLM 0.11.0
    ``v1/core/block_pool.py:257-277``, ``get_new_blocks`` pops the free queue's head and evicts a cached block it
    takes; ``:338-350``, ``free_blocks`` appends to its tail; a request's blocks are freed tail first,
    ``v1/core/single_type_kv_cache_manager.py:156-170``, so what it loses first is the end of its prefix)."""

    def __init__(self, size: int) -> None:
        self.size, self.used, self.free = size, 0, deque([_Free(None, size)])

    def room(self) -> int:
        return self.size - self.used

    def take(self, tokens: int) -> None:
        """``tokens`` leave the free queue from its head, evicting what they find cached there."""
        self.used += tokens
        while tokens:
            head = self.free[0]
            n = min(tokens, head.tokens)
            head.tokens, tokens = head.tokens - n, tokens - n
            if head.owner is not None:
                head.owner.cached -= n
            if not head.tokens:
                self.free.popleft()

    def give(self, r: _Request, cache: bool) -> int:
        """``r``'s tokens back to the queue's tail, still cached for it if ``cache``; the tokens freed."""
        freed, self.used, r.kept = r.kept, self.used - r.kept, 0
        self.free.append(_Free(r if cache else None, freed))
        r.cached = freed if cache else 0
        return freed

    def reuse(self, r: _Request) -> int:
        """The prefix ``r`` finds cached (all but its last token to compute: vLLM 0.11.0
        ``v1/core/kv_cache_manager.py:175-183``, ``max_cache_hit_length = request.num_tokens - 1``) back in use."""
        hit = min(r.cached, r.goal - 1)
        if r.cached:
            spot = next(f for f in self.free if f.owner is r)
            spot.owner, spot.tokens, r.cached = None, spot.tokens - hit, 0
            self.used += hit
        return hit


class _Step(NamedTuple):
    decoding: int
    context_tokens: int  # summed over the decoding requests
    prefilled: int
    preempted: int


def _preempt(running: list[_Request], waiting: deque[_Request], pool: _Pool, cache: bool) -> None:
    """Preempt the request admitted last: its tokens leave the pool (still cached for it if ``cache``); it waits
    first in line."""
    victim = running.pop()
    pool.give(victim, cache)
    victim.goal = victim.prompt + victim.written
    waiting.appendleft(victim)


def _schedule(running: list[_Request], waiting: deque[_Request], limits: Limits, pool: _Pool) -> _Step:
    """One step of the scheduler (see the module docstring). Under ``limits.cached_prefix`` a request whose tokens the
    pool cannot hold preempts the last admitted, itself if it is the last (vLLM 0.11.0
    ``v1/core/sched/scheduler.py:255-287``; 0.10.2 ``:269-284``), and a waiting request resumes from the prefix it
    finds cached (:meth:`_Pool.reuse`); else it stops there, keeping its tokens."""
    budget, decoding, context, prefilled, preempted = limits.step_tokens, 0, 0, 0, 0
    cache, i = limits.cached_prefix, 0
    while i < len(running) and budget > 0:
        r = running[i]
        need = min(r.goal - r.kept, budget)
        while need > pool.room() and len(running) > i + 1:
            _preempt(running, waiting, pool, cache)
            preempted += 1
        if need > pool.room():
            if cache:
                _preempt(running, waiting, pool, cache)
                preempted += 1
            break
        pool.take(need)
        budget, r.kept = budget - need, r.kept + need
        if r.written and need == 1:
            decoding, context = decoding + 1, context + r.kept
        else:
            prefilled += need
        i += 1
    while not preempted and waiting and len(running) < limits.max_seqs and budget > 0:  # scheduler.py:335
        r = waiting[0]
        hit = min(r.cached, r.goal - 1)
        need = min(r.goal - hit, budget)
        if hit + need > pool.room():
            break
        running.append(waiting.popleft())
        pool.reuse(r)
        pool.take(need)
        r.kept, budget, prefilled = hit + need, budget - need, prefilled + need
    return _Step(decoding, context, prefilled, preempted)


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
    pool, seconds, written, preemptions, firsts = _Pool(limits.pool_tokens), start_seconds, 0, 0, []
    while waiting or running:
        step = _schedule(running, waiting, limits, pool)
        if not (step.decoding or step.prefilled or step.preempted):  # a request larger than the pool: none can run
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
                pool.give(r, cache=False)
                written += r.output
            else:
                still.append(r)
        running = still
    return Drained(seconds, written, statistics.median(firsts) if firsts else 0.0, preemptions)
