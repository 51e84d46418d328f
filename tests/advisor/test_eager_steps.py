"""Steps SGLang runs outside its CUDA graphs (planner.advisor.eager_steps): the graphs' batch limit as sglang
0.4.3.post2 sets it, the measured eager time of DeepSeek-V3 over 8 x H200, the drain paying it on each eager step,
and what it does to DataCrunch's 10,000-request DeepSeek-V3 bursts (unseen-2026-12c.toml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.advisor.benchmarks import load_rows
from planner.advisor.drain import Eager, Limits, drain
from planner.advisor.eager_steps import eager_forward
from planner.advisor.validation import drained
from planner.engines.graphs import graph_max_batch

BLIND_C = Path(__file__).resolve().parent / "benchmarks" / "unseen-2026-12c.toml"
DEEPSEEK = "datacrunch-8xh200-deepseek-v3-sglang-random-256-32-10000-"


def test_sglang_043_graphs_decode_batches_up_to_160_on_a_large_gpu() -> None:
    """sglang 0.4.3.post2 ``srt/server_args.py:215-223``: 160 at 25,000 MB and more, 80 below it at TP 4 and up, 8
    below it at TP 1-2; a release not read gives ``None`` (nothing priced)."""
    assert graph_max_batch("sglang", "0.4.3", 143_771, 8) == 160
    assert graph_max_batch("sglang", "0.4.3", 24_576, 4) == 80
    assert graph_max_batch("sglang", "0.4.3", 24_576, 2) == 8
    assert graph_max_batch("sglang", "0.5.6", 143_771, 8) is None


def test_deepseek_v3_eager_time_is_datacrunchs_bench_one_batch() -> None:
    """DataCrunch's bench_one_batch of DeepSeek-V3 over 8 x H200 (batch 1, 256 in, 32 out): 7.322 s in all with CUDA
    graphs disabled, 1.256 s with them, the prefill 0.21180 / 0.25809 s; 31 decode steps: 229.4 ms eager, 32.2 ms
    replayed, 197.2 ms the difference. A set-up not measured gets nothing."""
    rows = {r.id: r for r in load_rows((BLIND_C,))}
    eager = eager_forward(rows[DEEPSEEK + "overlap"])
    assert eager.seconds == pytest.approx(0.19717, abs=1e-5)
    assert eager.graph_max_batch == 160
    assert eager_forward(rows["sglcookbook-qwen3next80b-8xb200-sharegpt-1000-c100"]).seconds == 0.0


def test_the_drain_pays_the_eager_time_on_prefill_steps_and_large_decodes() -> None:
    """Four requests of 100 + 10, two running at most, decode graphs up to one request: each wave's prefill step
    and its nine two-request decode steps run eagerly (20 eager steps of 0.5 s on top of the run's 0.22 s); with
    graphs up to two requests only the two prefill steps do."""
    base = drain([(100, 10)] * 4, Limits(10_000, 2, 512), lambda b, c: 0.01, 0.0001)
    every = drain([(100, 10)] * 4, Limits(10_000, 2, 512), lambda b, c: 0.01, 0.0001, eager=Eager(0.5, 1))
    prefills = drain([(100, 10)] * 4, Limits(10_000, 2, 512), lambda b, c: 0.01, 0.0001, eager=Eager(0.5, 2))
    assert base.seconds == pytest.approx(0.22)
    assert every.seconds == pytest.approx(0.22 + 20 * 0.5)
    assert prefills.seconds == pytest.approx(0.22 + 2 * 0.5)
    assert every.output_tokens == base.output_tokens == 40


@pytest.mark.parametrize(("tail", "measured"), [("overlap", 1051.99), ("no-overlap", 1090.1)])
def test_deepseek_v3_bursts_with_their_eager_steps(tail: str, measured: float) -> None:
    """10,000 fixed 256 / 32 prompts at once under sglang 0.4.3.post2 (the post's duration 304.19 / 293.55 s; median
    inter-token latency 235 / 251 ms, the eager step): drained at +130 / +122 % without the eager steps, +48 / +43 %
    with them (within 2 points)."""
    row = next(r for r in load_rows((BLIND_C,)) if r.id == DEEPSEEK + tail)
    assert row.value == measured
    error = drained(row).output_tokens_per_s / row.value - 1
    assert error == pytest.approx({"overlap": 0.477, "no-overlap": 0.426}[tail], abs=0.02)
