"""Under TensorRT-LLM's attention data parallelism every rank holds and reads the layers it runs by itself whole
(planner/advisor/rank_balance.py, ``replicated_dense_seconds``): ``Attention.__init__`` sets ``tp_size = 1`` when
``mapping.enable_attention_dp`` (``tensorrt_llm/_torch/modules/attention.py``, search-index file id 55090639134),
Llama 4's dense MLPs and shared experts are built with ``overridden_tp_size=1 if self.enable_attention_dp``
(``tensorrt_llm/_torch/models/modeling_llama.py``, ``Llama4DecoderLayer.__init__`` / ``Llama4MoE.__init__``, file id
3642749976), and the embedding and LM head take no tensor-parallel mode ("Attention DP doesn't work with embedding
parallelization", ``tensorrt_llm/_torch/modules/embedding.py``, file id 55163191102; ``enable_lm_head_tp_in_adp``
off by default). Figures: the catalog's FP8 bytes of Llama 4 Maverick's non-expert weights, H100 SXM's 3.35 TB/s,
and the TensorRT-LLM v1.0 perf overview's 8 x H100 Maverick FP8 cells (``tests/advisor/benchmarks/
unseen-2026-12.toml``: 128/4096 6,744 output tokens/s, 128/2048 10,829)."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor.benchmarks import BenchmarkRow, load_rows
from planner.advisor.engine_speed import FITTED, step
from planner.advisor.gemm_tables import decode_gemm_seconds, gemm_seconds, tables
from planner.advisor.kernel_grid import along
from planner.advisor.rank_balance import replicated_dense_seconds
from planner.advisor.throughput import Setup, decode_load
from planner.advisor.validation import predict

UNSEEN = Path(__file__).parent / "benchmarks" / "unseen-2026-12.toml"
MAVERICK = "meta-llama/Llama-4-Maverick-17B-128E-Instruct"
H100 = Setup(get_gpu("h100-sxm-80gb"), "fused", "fp8", 8, "tensor", False, attention_dp=True)


def _split(n: int, k: int, parallel: str) -> tuple[int, int]:
    return (n // 8, k) if parallel == "column" else (n, k // 8)


def _row(row_id: str) -> BenchmarkRow:
    return next(r for r in load_rows((UNSEEN,)) if r.id == row_id)


def test_an_attention_dp_rank_reads_the_non_expert_weights_whole() -> None:
    load = decode_load(get_model(MAVERICK).spec, "fp8", "fp8", 608, 2176)
    assert load.dense_bytes == pytest.approx(14.18e9, rel=1e-3)  # attention 3.02 + dense MLPs and shared 9.06 + head
    bandwidth = 3.35e12 * FITTED.trt_bw_hbm
    extra = replicated_dense_seconds(H100, load, bandwidth)
    assert extra == pytest.approx(load.dense_bytes * (1 - 1 / 8) / bandwidth, rel=1e-12)
    assert extra == pytest.approx(3.78e-3, rel=2e-3)  # 14.18 GB x 7/8 at 0.98 x 3.35 TB/s
    tensor = step(H100._replace(attention_dp=False), load).memory_seconds
    assert step(H100, load).memory_seconds == pytest.approx(tensor + extra, rel=1e-12)


def test_only_trtllm_attention_dp_over_several_ranks_replicates() -> None:
    load = decode_load(get_model(MAVERICK).spec, "fp8", "fp8", 608, 2176)
    for setup in (H100._replace(attention_dp=False), H100._replace(family="paged"), H100._replace(attention_tp=8)):
        assert replicated_dense_seconds(setup, load, 3.35e12) == 0.0
    assert replicated_dense_seconds(H100._replace(attention_tp=2), load, 1.0) == pytest.approx(
        load.dense_bytes * (1 / 2 - 1 / 8), rel=1e-12
    )


def test_measured_dense_gemms_under_attention_dp_run_whole_on_each_ranks_tokens() -> None:
    b200 = Setup(get_gpu("b200-sxm"), "fused", "fp4", 8, "tensor", False, attention_dp=True)
    load = decode_load(get_model(MAVERICK).spec, "nvfp4", "fp8", 4096, 256)
    times, shapes = tables()[("b200-sxm", "fp4")], load.matmuls
    assert shapes is not None and shapes.moe is not None
    dense = sum(mm.repeats * gemm_seconds(times, 512, mm.n, mm.k) for mm in (*shapes.dense, shapes.head))
    with_tp = decode_gemm_seconds(b200._replace(attention_dp=False), load)
    measured = decode_gemm_seconds(b200, load)
    assert measured is not None and with_tp is not None
    experts = shapes.moe_layers * along(times.moe_tokens, times.moe[(*shapes.moe, 8)], 4096)  # EP 8, all tokens
    assert measured == pytest.approx(dense + experts, rel=1e-12)
    split = sum(mm.repeats * gemm_seconds(times, 4096, *_split(mm.n, mm.k, mm.parallel)) for mm in shapes.dense)
    assert with_tp > split  # tensor parallel: 1/8 of each matrix at all 4,096 tokens (and the head)


@pytest.mark.parametrize(
    ("row_id", "measured", "low", "high"),
    [  # before: +231.2 %, +180.4 %
        ("trtllm-h100x8-llama4-maverick-fp8-128-4096", 6744.0, 1.85, 1.95),
        ("trtllm-h100x8-llama4-maverick-fp8-128-2048", 10829.0, 1.50, 1.60),
    ],
)
def test_h100_maverick_cells_pay_the_replicated_read(row_id: str, measured: float, low: float, high: float) -> None:
    row = _row(row_id)
    assert row.value == measured
    predicted = predict(row)
    assert predicted is not None and low < predicted / measured - 1 < high
