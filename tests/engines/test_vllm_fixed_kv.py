"""``--kv-cache-memory``: a fixed KV-cache size skips vLLM's profile-based sizing and is allocated as asked
(``Worker.determine_available_memory``, 0.31.0 ``vllm/v1/worker/gpu_worker.py:586-607``). A size the GPU cannot
hold after the weights runs out of memory at that allocation; before, the planner blamed the sampler warm-up and
the memory fraction, which this setting does not use.

The figures are the vLLM 0.19.0 log of RedHatAI/Qwen2.5-7B-Instruct-fp8-dynamic on one H100 (llm-d-incubation/
llm-d-planner d3121e059da8, ``accuracy/results/v0.19.0/logs/fp8dyn-redhatai-qwen2-5---h100-80gb--tp1pp1dp1--8192.log``,
in ``tests/fidelity/cases/llmd-planner-v0.19-logs.json``): "Replace gpu_memory_utilization config with
``--kv-cache-memory=68376335360`` (63.68 GiB) to fit into requested memory, or ``--kv-cache-memory=72077382656``
(67.13 GiB) to fully utilize gpu memory", after 8.14 GiB of weights on a 79.19 GiB device.
"""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.assessment.assess import assess
from planner.core.units import GiB
from planner.engines.registry import engine_report, overhead_profile
from planner.planning.plan import PlanRequest, plan

FIT_REQUESTED = 68_376_335_360  # the log's suggestion that fits the 0.95 fraction
FULLY_USED = 72_077_382_656  # the log's suggestion that uses the whole GPU


def _request(kv_cache_memory_bytes: int) -> PlanRequest:
    gpu = get_gpu("h100-sxm-80gb")
    profile = overhead_profile("vllm", version="0.19.0", kv_cache_memory_bytes=kv_cache_memory_bytes)
    return PlanRequest(
        model=get_model("Qwen/Qwen2.5-7B").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True),
        weights="fp8", context_tokens=8192, max_model_len=8192, overhead=profile,
    )  # fmt: skip


def test_the_size_vllm_suggests_to_fit_starts_with_that_pool() -> None:
    request = _request(FIT_REQUESTED)
    report = engine_report(request, plan(request))
    assert report.failure_kind is None, report.failure
    assert report.available_kv_cache_bytes_per_gpu == FIT_REQUESTED  # the pool is the size asked for


def test_the_size_that_uses_the_whole_gpu_misses_by_the_allocator_tails() -> None:
    """The size that fills the device leaves no room for the 0.021 GiB of 2 MiB segment tails the planner counts
    with this model's weights (planner.engines.vllm.allocator: qkv 15.75 and gate_up 129.5 x 1 MiB blocks of FP8
    in each of 28 layers), which this log's 8.14 GiB does not show: it started before the tails (2026-12-07)."""
    request = _request(FULLY_USED)
    report = engine_report(request, plan(request))
    assert report.failure_kind == "sampler-oom"
    assert 0.0 < report.weights_bytes / GiB - 8.14 < 0.03


def test_a_size_the_gpu_cannot_hold_runs_out_of_memory_allocating_the_cache() -> None:
    request = _request(500 * GiB)
    report = engine_report(request, plan(request))
    assert report.failure_kind == "out-of-memory"  # was sampler-oom, "lower gpu_memory_utilization"
    assert "--kv-cache-memory-bytes asks for 500.00 GiB per GPU" in (report.failure or "")
    assert not assess(request, 1).fits


def test_the_start_up_lines_are_the_fixed_size_path() -> None:
    """vLLM prints its "reserved ... as specified by kv_cache_memory_bytes" line instead of "Available KV cache
    memory" (the log's own 78.68 GiB free at start, 0.01 GiB to the planner's device terms)."""
    request = _request(FIT_REQUESTED)
    first = engine_report(request, plan(request)).lines[0]
    assert first.startswith("Initial free memory 78.6") and "reserved 63.68 GiB memory for KV Cache" in first, first
