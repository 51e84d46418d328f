"""The batch a TensorRT-LLM max-throughput row is scored at: the sequences the pool holds, capped where trtllm-bench
caps them (its own tuning heuristic, planner.engines.trtllm_bench), not at the planner's ``max_batch_size`` default
of 2,048 the scoring used before."""

from __future__ import annotations

from pathlib import Path

from model_catalog import get_gpu, get_model
from planner.advisor.benchmarks import load_rows
from planner.advisor.row_batch import bench_running_limit
from planner.advisor.validation import case
from planner.core.params import parameter_breakdown
from planner.engines.trtllm_bench import bench_settings, kv_cache_requests, running_limit

UNSEEN = Path(__file__).parent / "benchmarks" / "unseen-2026-12.toml"


def test_the_heuristic_gives_what_trtllm_bench_logged() -> None:
    """TensorRT-LLM 0.17's perf-benchmarking.md (search-index file id 661882647) logs ``trtllm-bench build`` of
    Llama-3.1-8B FP8 on one H200 at 128/128: "Estimated total available memory for KV cache: 132.37 GB", "Estimated
    max number of requests in KV cache memory: 8048.16", max batch size 4096, max num tokens 8192. The catalog's
    H200 (143,771 MiB, as NVML reports it) and the model's checkpoint count give the same, to the log's digits."""
    spec, h200 = get_model("meta-llama/Llama-3.1-8B").spec, get_gpu("h200-sxm-141gb")
    params = parameter_breakdown(spec).total
    assert round(h200.memory_bytes / 1024**3 - params / 1000**3, 2) == 132.37
    requests = kv_cache_requests(spec, params, "fp8", "fp8", h200.memory_bytes, (1, 1), (128, 128), "0.17")
    assert abs(requests - 8048.16) < 0.01
    assert bench_settings(requests, 128, 128, 1)[1:] == (4096, 8192)


def test_the_executor_runs_a_batch_per_stage_and_per_attention_dp_rank() -> None:
    """``get_max_num_sequences`` is ``pp_size x max_batch_size`` and attention DP admits ``tp_size x`` it (the
    module docstring's sources), while trtllm-bench divides its estimate by the stages."""
    assert running_limit(512, 1, 8, attention_dp=False) == 4096
    assert running_limit(3584, 8, 1, attention_dp=True) == 28672
    assert running_limit(3584, 8, 1, attention_dp=False) == 3584


def test_the_perf_overview_rows_run_at_trtllm_bench_batches() -> None:
    """Maverick on 8 x H200 at 128/2048: trtllm-bench's max_batch_size is 3,584 per attention-DP rank, so the pool
    (3,493 sequences) bounds the batch, not the 2,048 the scoring capped it at; on 8 x H100 it is 1,280 per rank
    (the figure HOPPER_FULL_MEMORY traced) and the pool holds 1,181. Mixtral-8x7B on 8 x H200 at 128/128 (0.17, no
    attention DP) runs at trtllm-bench's cap of 4,096 where its pool holds 64,826; Llama-3.3-70B over a pipeline of
    8 RTX PRO 6000 at 128/128 at 512 a stage, 4,096."""
    rows = {row.id: row for row in load_rows((UNSEEN,))}
    expected = {
        "trtllm-h200x8-llama4-maverick-fp8-128-2048": (3493, 28672),
        "trtllm-h100x8-llama4-maverick-fp8-128-2048": (1181, 10240),
        "trtllm017-h200x8-mixtral-8x7b-fp8-128-128": (4096, 4096),
        "trtllm-rtxpro6000x8-pp8-llama33-70b-fp4-128-128": (4096, 4096),
    }
    for row_id, (batch, limit) in expected.items():
        assert (case(rows[row_id]).batch, bench_running_limit(rows[row_id])) == (batch, limit), row_id
