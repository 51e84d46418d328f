"""An attention-DP step waits for its busiest rank's prompts (planner/advisor/rank_balance.py): the iteration time is
the most loaded rank's (NVIDIA/TensorRT-LLM ``docs/source/blogs/tech_blog/blog10_ADP_Balance_Strategy.md``,
"Mathematical Modeling"; round-robin admission, ``AttentionDpConfig.enable_balance`` off by default). Figures from
the TensorRT-LLM v1.0 perf overview (``tests/advisor/benchmarks/unseen-2026-12.toml``: 8 x H200 Qwen3-235B-A22B FP8
at 5000/500 3,623 output tokens/s, 20000/2000 1,876; 8 x H100 at 5000/500 3,225; 8 x B200 NVFP4 at 5000/500
8,190)."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_catalog import get_gpu
from planner.advisor.benchmarks import BenchmarkRow, load_rows
from planner.advisor.rank_balance import busiest_rank_share, rank_wait_seconds
from planner.advisor.throughput import Setup
from planner.advisor.validation import predict

UNSEEN = Path(__file__).parent / "benchmarks" / "unseen-2026-12.toml"
H200 = Setup(get_gpu("h200-sxm-141gb"), "fused", "fp8", 8, "tensor", False, attention_dp=True)


def _row(row_id: str) -> BenchmarkRow:
    return next(r for r in load_rows((UNSEEN,)) if r.id == row_id)


@pytest.mark.parametrize(
    ("prompts", "ranks", "share"),
    [(0.17, 8, 1.0), (1.0, 8, 1.0), (2.0, 8, 0.5), (17.0, 8, 3 / 17), (16.0, 8, 0.125), (6.0, 4, 2 / 6)],
)
def test_the_busiest_rank_holds_ceil_n_over_r_prompts(prompts: float, ranks: int, share: float) -> None:
    assert busiest_rank_share(prompts, ranks) == pytest.approx(share, rel=1e-12)


def test_only_trtllm_attention_dp_over_several_ranks_waits() -> None:
    assert rank_wait_seconds(H200, 0.08, 0.5) == pytest.approx(0.08 - 0.01, rel=1e-12)
    assert rank_wait_seconds(H200._replace(attention_dp=False), 0.08, 0.5) == 0.0
    assert rank_wait_seconds(H200._replace(family="paged"), 0.08, 0.5) == 0.0
    assert rank_wait_seconds(H200._replace(attention_tp=8), 0.08, 0.5) == 0.0


@pytest.mark.parametrize(
    ("row_id", "measured", "within"),
    [  # without the wait: +92.4 %, +100.2 %, +72.0 %, +29.1 %
        ("trtllm-h200x8-qwen3-235b-fp8-5000-500", 3623.0, 0.15),
        ("trtllm-h200x8-qwen3-235b-fp8-20000-2000", 1876.0, 0.30),
        ("trtllm-h100x8-qwen3-235b-fp8-5000-500", 3225.0, 0.25),
        ("trtllm-b200x8-qwen3-235b-fp4-5000-500", 8190.0, 0.10),
    ],
)
def test_prompt_heavy_attention_dp_cells_count_the_ranks_wait(row_id: str, measured: float, within: float) -> None:
    row = _row(row_id)
    assert row.value == measured
    predicted = predict(row)
    assert predicted is not None and abs(predicted / measured - 1) < within
