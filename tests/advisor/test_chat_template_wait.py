"""A burst of chat requests waits on vLLM 0.11.0's API server, which parses the model's chat template for each one
(planner.advisor.frontend), before the engine drains it (planner.advisor.drain)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.advisor.benchmarks import BenchmarkRow, load_rows
from planner.advisor.drain import Limits, drain
from planner.advisor.frontend import CHAT_TEMPLATE_PARSE_S, burst_wait_seconds
from planner.advisor.validation import drained

DECODE_S, PREFILL_S = 0.01, 0.0001
BLIND_FILES = tuple(sorted((Path(__file__).parent / "benchmarks").glob("unseen-2026-12[bc].toml")))


def _row(row_id: str) -> BenchmarkRow:
    return next(r for r in load_rows(BLIND_FILES) if r.id == row_id)


def test_a_wait_before_the_queue_moves_the_run_and_its_first_tokens() -> None:
    """The two-wave queue of test_drain, its requests reaching the engine 1 s late: every time 1 s later."""
    base = drain([(100, 10)] * 4, Limits(10_000, 2, 512), lambda b, c: DECODE_S, PREFILL_S)
    late = drain([(100, 10)] * 4, Limits(10_000, 2, 512), lambda b, c: DECODE_S, PREFILL_S, start_seconds=1.0)
    assert late.seconds == pytest.approx(base.seconds + 1.0)
    assert late.median_first_token_s == pytest.approx(base.median_first_token_s + 1.0)
    assert late.output_tokens == base.output_tokens


def test_the_parse_time_is_vllm_pr_20065s() -> None:
    """vLLM PR 20065: 1,000 chat requests, '6-8 seconds delay before prompts actually are started to process'."""
    assert 6.0 <= 1000 * CHAT_TEMPLATE_PARSE_S <= 8.0


@pytest.mark.parametrize(
    ("row_id", "seconds"),
    [
        ("gpustack-a100-qwen332b-vllm-random-128-4", 7.0),  # vLLM 0.11.0, openai-chat, 1,000 requests
        ("gpustack-h100-qwen314b-vllm-random-2000-100", 3.5),  # 500 requests
        ("gpustack-h200x8-deepseekr1-vllm-sharegpt-max", 7.0),
        ("gpustack-h100-gptoss20b-vllm-random-128-4", 0.0),  # gpt-oss: Harmony renders its chat, no jinja template
        ("gpustack-h100-qwen314b-fp8-sglang-random-128-4", 0.0),  # SGLang: not this release's API server
        ("vllm-issue17788-h100nvl-qwen3-32b-sharegpt-1000", 0.0),  # vLLM 0.8.5 on /v1/completions: no template
    ],
)
def test_which_bursts_wait(row_id: str, seconds: float) -> None:
    assert burst_wait_seconds(_row(row_id)) == pytest.approx(seconds)


# GPUStack's 128-in / 4-out runs (docs/performance-lab/<model>/<gpu>.md at 47277d79, baseline vLLM 0.11.0):
# duration (s), median TTFT (s), median TPOT (s), the prompt tokens of a step (vLLM's default on the GPU), prompt
# tokens. Every request's later tokens are written while the queue is prefilled, so a step is a full chunk and the
# median TPOT its time; what the run's duration and its median first token add to those steps is a dead time.
RUNS = {
    "Qwen3-14B, H100": (22.72, 18.06113, 0.59729, 8192, 127_698),
    "Qwen3-14B, A100": (26.79, 19.15052, 0.23861, 2048, 127_698),
    "Qwen3-32B, H100": (32.88, 21.34236, 1.29278, 8192, 127_698),
    "Qwen3-32B, A100": (49.57, 31.07376, 0.54455, 2048, 127_698),
    "gpt-oss-20b, H100": (4.70, 2.89224, 0.20803, 8192, 127_755),
    "gpt-oss-20b, A100": (5.44, 1.97128, 0.06544, 2048, 127_755),
}


def _dead_seconds(run: str) -> tuple[float, float]:
    """The dead time as the duration shows it and as the median first token shows it."""
    duration, ttft, tpot, chunk, prompts = RUNS[run]
    busy = (prompts + 3 * 1000) / chunk * tpot
    return duration - busy, ttft - busy / 2


def test_the_runs_own_figures_show_a_dead_time_where_a_template_is_parsed() -> None:
    """The Qwen3 runs (jinja template) show 11.0-14.8 s of dead time, the two estimates within 1.3 s of each other;
    the gpt-oss runs (Harmony) at most 1.4 s. The modelled wait (7.0 s) is less than any Qwen3 run's: a lower bound
    (the rest of the API server's work per request is not modelled)."""
    for run in ("Qwen3-14B, H100", "Qwen3-14B, A100", "Qwen3-32B, H100", "Qwen3-32B, A100"):
        by_duration, by_ttft = _dead_seconds(run)
        assert min(by_duration, by_ttft) >= 11.0 and max(by_duration, by_ttft) <= 14.85
        assert abs(by_duration - by_ttft) <= 1.3
        assert min(by_duration, by_ttft) > 1000 * CHAT_TEMPLATE_PARSE_S
    for run in ("gpt-oss-20b, H100", "gpt-oss-20b, A100"):
        assert max(_dead_seconds(run)) <= 1.4


def test_the_a100_qwen3_32b_run_now_waits() -> None:
    """GPUStack's A100 Qwen3-32B 128 / 4 run: 49.57 s measured; drained 39.7 s before the wait, 46.7 s with it,
    47.2 s since the shared constants' refit (2026-12-07)."""
    run = drained(_row("gpustack-a100-qwen332b-vllm-random-128-4"))
    assert run.seconds == pytest.approx(47.2, abs=0.2)
