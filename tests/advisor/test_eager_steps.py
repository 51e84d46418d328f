"""Steps SGLang runs outside its CUDA graphs (planner.advisor.eager_steps): the graphs' batch limit as sglang
0.4.3.post2 and 0.5.6 set it, the measured eager time of DeepSeek-V3 over 8 x H200 and of Qwen3-Next-80B over
8 x B200, the drain paying it on each eager step, and what it does to DataCrunch's 10,000-request DeepSeek-V3 bursts
and the cookbook's Qwen3-Next burst (unseen-2026-12c.toml)."""

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
    assert graph_max_batch("sglang", "0.5.5", 143_771, 8) is None


@pytest.mark.parametrize(
    ("mib", "tp", "limit"),
    [
        (183_359, 8, 512),  # B200: 160 GiB and more, any TP
        (183_359, 1, 512),
        (143_771, 8, 512),  # H200: under 160 GiB, TP 4 and up
        (143_771, 2, 256),
        (81_559, 4, 512),  # H100: under 90 GiB
        (81_559, 1, 256),
        (46_068, 4, 160),  # L40S: under 60 GiB
        (46_068, 2, 32),
        (24_564, 4, 80),  # RTX 4090: under 35 GiB
        (24_564, 1, 24),
        (16_384, 8, 8),  # under 20 GiB
    ],
)
def test_sglang_056_graph_limit_by_memory_and_tp(mib: int, tp: int, limit: int) -> None:
    """sglang 0.5.6 ``srt/server_args.py:725-785`` (``_handle_gpu_memory_settings``, nvidia-smi's memory.total in
    MiB, ``utils/common.py:1610-1628``): 8 under 20 GiB; 24 / 80 under 35; 32 / 160 under 60; 256 / 512 under 160
    (TP under 4 / TP 4 and up); 512 above."""
    assert graph_max_batch("sglang", "0.5.6", mib, tp) == limit


def test_deepseek_v3_eager_time_is_datacrunchs_bench_one_batch() -> None:
    """DataCrunch's bench_one_batch of DeepSeek-V3 over 8 x H200 (batch 1, 256 in, 32 out): 7.322 s in all with CUDA
    graphs disabled, 1.256 s with them, the prefill 0.21180 / 0.25809 s; 31 decode steps: 229.4 ms eager, 32.2 ms
    replayed, 197.2 ms the difference. A set-up not measured gets nothing."""
    rows = {r.id: r for r in load_rows((BLIND_C,))}
    eager = eager_forward(rows[DEEPSEEK + "overlap"])
    assert eager.seconds == pytest.approx(0.19717, abs=1e-5)
    assert eager.graph_max_batch == 160
    assert eager_forward(rows["sglcookbook-gptoss120b-8xb200-sharegpt-1000-c100"]).seconds == 0.0


def test_qwen3_next_eager_prefill_is_the_cookbooks_one_user_first_token_over_gpt_oss() -> None:
    """sgl-cookbook@7b5bd9c05e3d, the one-user runs (5.1.1) of the same 8 x B200 TP 8 server at SGLang 0.5.6 and the
    same harness (100 ShareGPT prompts, --max-concurrency 1): Qwen3-Next-80B-A3B mean first token 127.88 ms (338
    prompt tokens a request), gpt-oss-120b 33.71 ms (332): 94.17 ms more a prefill pass; decode batches replayed up
    to 512 on a B200."""
    rows = {r.id: r for r in load_rows((BLIND_C,))}
    eager = eager_forward(rows["sglcookbook-qwen3next80b-8xb200-sharegpt-1000-c100"])
    assert eager.seconds == pytest.approx(0.09417, abs=1e-5)
    assert eager.graph_max_batch == 512


def test_qwen3_next_burst_with_its_eager_prefills() -> None:
    """1,000 ShareGPT prompts, 100 in flight (the cookbook's 5.1.2: 1,951.6 output tokens/s over 100.32 s, median
    inter-token gap 13.84 ms, mean 47.11 ms, P95 195 ms: the prefill batches): drained at +268 % without the eager
    prefills, +7.9 % with them (within half a point)."""
    row = next(r for r in load_rows((BLIND_C,)) if r.id == "sglcookbook-qwen3next80b-8xb200-sharegpt-1000-c100")
    assert row.value == 1951.6
    error = drained(row).output_tokens_per_s / row.value - 1
    assert error == pytest.approx(0.079, abs=0.005)


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
