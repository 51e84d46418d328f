"""The SGLang burst rows drained through SGLang's own scheduler as well as vLLM V1's (:mod:`planner.advisor.drain`,
which the speed model uses for every paged row): an A/B, never asserted in tests, kept because its answer is a
negative one. The thirty-first session tried the same rules from SGLang 0.5.5 in scratch (docs/advisor.md,
2026-12-06); this is them from 0.5.4.post2, kept runnable (2026-12-07, fifty-first), with the same answer: SGLang's
rules move the 30 SGLang bursts of the blind sets away from their measurements more often than toward them
(unseen-2026-12c median 53.55 -> 60.79 %, as the scratch's 53.5 -> 60.8 %) and leave their drained
median time to first token where vLLM's rules put it (both about half the measured one on H100): what the model
misses on these runs is the step's time (the prompt rate), not the order the scheduler runs the steps in; so
:func:`planner.advisor.validation.drained` keeps vLLM V1's rules. ``PYTHONPATH=. python -m bench.drain_sglang``.

Read from SGLang 0.5.4.post2 (``srt/managers/scheduler.py``, ``schedule_policy.py``, ``schedule_batch.py``); the
three rules that differ from vLLM V1's:

- **Prefill first, not mixed.** Each loop first tries to build a prefill batch from the waiting queue; only when
  none can be built does the running batch decode one token (``Scheduler.get_next_batch_to_run``, scheduler.py:
  1674-1693; ``enable_mixed_chunk`` is off by default). A prefill step writes no decode token for the running
  requests; the prompt it completes writes its first token.
- **Admission reserves the answer.** ``PrefillAdder`` admits a waiting request only while its prompt plus its
  whole answer (``max_new_tokens``, clipped at ``CLIP_MAX_NEW_TOKENS`` 4,096) fits in the pool less what is in use
  and less, per running request, its tokens still to write times ``new_token_ratio``
  (schedule_policy.py:41-43, 366-392, 565-577). A request that does not fit marks the batch full, and no prefill
  is tried again until a running request ends (scheduler.py:1819, 1937-1938). The ratio starts at 0.7
  (``SGLANG_INIT_NEW_TOKEN_RATIO``), falls by (0.7 - 0.7 x 0.14) / 600 per decode step to 0.7 x 0.14
  (environ.py:142-144, scheduler.py:492-504, 1931-1935).
- **Retraction, not preemption.** When a decode step finds no room for one more token per request, requests are
  retracted, the one with the fewest tokens written first (the longest prompt among equals), until the pool holds
  ``SGLANG_RETRACT_DECODE_STEPS`` (20) more steps of the rest; the ratio becomes (tokens written + 20 x running) /
  (answers asked + 1), at most 1 (schedule_batch.py:1453-1522, environ.py:145). A retracted request waits at the
  end of the queue and recomputes its prompt and what it wrote (scheduler.py:1937-1938).

Each prefill step prefills at most ``chunked_prefill_size`` tokens (``Limits.step_tokens``); a prompt longer than
what is left of it is cut (one such chunked request at a time, continued first). Steps are priced as in
:func:`planner.advisor.drain.drain`. A request's answer is its stated length (the benchmarks send it as
``max_tokens``), so what is reserved is what it writes. The pool is counted in tokens, the radix cache's reuse of
shared prefixes left out (the rows' prompts share none but a chat template's few tokens).
"""

from __future__ import annotations

import re
import statistics
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from planner.advisor.drain import NO_EAGER, Drained, Eager, Limits, _Request

if TYPE_CHECKING:
    from planner.advisor.benchmarks import BenchmarkRow

CLIP_MAX_NEW_TOKENS = 4096  # schedule_policy.py:41-43
INIT_RATIO = 0.7  # environ.py:142
MIN_RATIO = INIT_RATIO * 0.14  # environ.py:143, scheduler.py:497-500
RATIO_DECAY = (INIT_RATIO - MIN_RATIO) / 600  # environ.py:144, scheduler.py:501-503
RETRACT_DECODE_STEPS = 20  # environ.py:145


class _State:
    """The run's queues, pool and ratio, as SGLang's scheduler keeps them."""

    def __init__(self, lengths: list[tuple[int, int]], limits: Limits) -> None:
        self.waiting = deque(_Request(p, max(1, o)) for p, o in lengths)
        self.running: list[_Request] = []
        self.chunked: _Request | None = None
        self.limits, self.used, self.ratio, self.full = limits, 0, INIT_RATIO, False
        self.retracted = 0

    def reserved(self) -> float:
        """The tokens the running requests are expected still to write (``rem_total_token_offset``)."""
        return sum(min(r.output - r.written, CLIP_MAX_NEW_TOKENS) * self.ratio for r in self.running)


def _take(s: _State, r: _Request, room: float, chunk: int, most: int) -> tuple[int, float, int]:
    """Admit at most ``most`` of ``r``'s next prompt tokens: (tokens prefilled, room left, chunk left); its answer is
    reserved once its prompt is complete."""
    need = r.goal - r.kept
    n = min(need, most)
    answer = min(r.output - r.written, CLIP_MAX_NEW_TOKENS) if n == need else 0
    r.kept += n
    s.used += n
    return n, room - n - answer, chunk - n


def _prefill(s: _State) -> tuple[int, list[_Request]]:
    """One prefill batch (``get_new_batch_prefill``): the prompt tokens it computes and the requests in it."""
    if (s.full or not s.waiting) and s.chunked is None:
        return 0, []
    room, chunk, batch, tokens = s.limits.pool_tokens - s.used - s.reserved(), s.limits.step_tokens, [], 0
    if s.chunked is not None and room >= 1:  # add_chunked_req: at most the chunk and the room left
        r, s.chunked = s.chunked, None
        n, room, chunk = _take(s, r, room, chunk, min(chunk, int(room)))
        batch.append(r)
        tokens += n
    while s.waiting and chunk > 0:
        if len(s.running) + len(batch) >= s.limits.max_seqs:
            s.full = True
            break
        r = s.waiting[0]
        if (r.goal - r.kept) + min(r.output - r.written, CLIP_MAX_NEW_TOKENS) >= room:
            s.full = True  # AddReqResult.NO_TOKEN
            break
        n, room, chunk = _take(s, s.waiting.popleft(), room, chunk, chunk)
        batch.append(r)
        tokens += n
    for r in batch:
        if r.kept < r.goal:
            s.chunked = r
    return tokens, batch


def _retract(s: _State) -> None:
    """``retract_decode``: the fewest written first (longest prompt among equals) until 20 steps fit."""
    order = sorted(s.running, key=lambda r: (r.written, -r.prompt), reverse=True)
    while len(order) > 1 and s.limits.pool_tokens - s.used < len(order) * RETRACT_DECODE_STEPS:
        victim = order.pop()
        s.used -= victim.kept
        victim.kept, victim.goal = 0, victim.prompt + victim.written
        s.waiting.append(victim)
        s.retracted += 1
    kept = {id(r) for r in order}
    s.running, s.full = [r for r in s.running if id(r) in kept], False
    asked = sum(r.output for r in s.running)
    s.ratio = min(1.0, (sum(r.written for r in s.running) + RETRACT_DECODE_STEPS * len(s.running)) / (asked + 1))


def _finish(s: _State, batch: list[_Request]) -> int:
    """Requests of ``batch`` that wrote their last token leave the pool; the tokens they wrote."""
    written = 0
    for r in batch:
        if r.written >= r.output:
            s.used -= r.kept
            written += r.output
            s.full = False
    return written


def drain_sglang(
    lengths: list[tuple[int, int]],
    limits: Limits,
    decode_seconds: Callable[[int, int], float],
    prefill_seconds_per_token: float,
    start_seconds: float = 0.0,
    eager: Eager = NO_EAGER,
) -> Drained:
    """Every request of ``lengths`` sent at once and run to the end under SGLang's rules (the module docstring);
    the arguments as :func:`planner.advisor.drain.drain`'s (a prefill batch, and a decode batch the graphs do not
    hold, pays ``eager.seconds``).

    >>> run = drain_sglang([(100, 10)] * 4, Limits(10_000, 8, 512), lambda batch, context: 0.01, 0.0001)
    >>> run.output_tokens, round(run.seconds, 3), run.preemptions
    (40, 0.13, 0)
    """
    s = _State(lengths, limits)
    seconds, written, firsts = start_seconds, 0, []
    while s.waiting or s.running or s.chunked is not None:
        tokens, batch = _prefill(s)
        if batch:
            seconds += tokens * prefill_seconds_per_token + eager.seconds
            done = [r for r in batch if r.kept == r.goal]
            for r in done:
                firsts += [seconds] if not r.written else []
                r.written, r.goal = r.written + 1, r.goal + 1
            written += _finish(s, done)
            s.running += [r for r in done if r.written < r.output]
            continue
        if not s.running:  # a request larger than the pool: nothing can run
            break
        if s.limits.pool_tokens - s.used < len(s.running):
            _retract(s)
            if s.limits.pool_tokens - s.used < len(s.running):  # not one more token fits
                break
        else:
            s.ratio = max(s.ratio - RATIO_DECAY, MIN_RATIO)
        context = sum(r.kept for r in s.running) // len(s.running)
        seconds += decode_seconds(len(s.running), context)
        seconds += eager.seconds if len(s.running) > eager.graph_max_batch else 0.0
        for r in s.running:
            r.kept, s.used, r.written, r.goal = r.kept + 1, s.used + 1, r.written + 1, r.goal + 1
        written += _finish(s, s.running)
        s.running = [r for r in s.running if r.written < r.output]
    return Drained(seconds, written, statistics.median(firsts) if firsts else 0.0, s.retracted)


BLIND_DIR = Path(__file__).resolve().parents[1] / "tests" / "advisor" / "benchmarks"


def _measured_ttft_s(row: BenchmarkRow) -> float:
    """The median time to first token the row's excerpt prints (vllm bench serve), else NaN."""
    found = re.search(r"Median TTFT \(ms\):\s+([\d.]+)", row.excerpt)
    return float(found.group(1)) / 1000 if found else float("nan")


def main() -> int:
    """Each SGLang burst of the blind sets: its error and drained median time to first token under vLLM V1's
    rules (what the model uses) and under SGLang's, against the measured time to first token."""
    from planner.advisor import validation
    from planner.advisor.benchmarks import load_rows
    from planner.advisor.drain import drain

    print(f"{'row':64} {'vLLM rules':>10} {'SGLang':>8}   TTFT s: measured  vLLM  SGLang")
    for path in sorted(BLIND_DIR.glob("*.toml")):
        for row in load_rows((path,)):
            if row.requests is None or validation.row_engine(row) != "sglang":
                continue
            runs = [validation.drained(row, scheduler=scheduler) for scheduler in (drain, drain_sglang)]
            errors = [run.output_tokens_per_s / row.value - 1 for run in runs]
            print(
                f"{row.id:64} {errors[0]:+10.1%} {errors[1]:+8.1%}   {_measured_ttft_s(row):15.1f} "
                f"{runs[0].median_first_token_s:5.1f} {runs[1].median_first_token_s:7.1f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
