"""Memory other processes hold on the GPU (``DeploymentOptions.used_memory_bytes``), as each engine that sizes its
pool from free memory sees it."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.deploy.options import DeploymentOptions
from planner.engines.registry import get_engine, overhead_profile
from planner.planning.plan import PlanRequest, plan

H100 = get_gpu("h100-sxm-80gb")


@pytest.mark.parametrize("engine", ["sglang", "trtllm"])
def test_the_plan_and_the_engine_report_agree_beside_other_processes(engine: str) -> None:
    """Both engines size their pool from the memory other processes leave (SGLang f x it, TensorRT-LLM its free
    fraction of it): the plan's KV (the Memory page's breakdown) is the report's, with 20 GiB held or none (before,
    TensorRT-LLM's plan reserved its share of memory it never saw: 36.31 GiB against the report's 38.31)."""
    for held in (0, 20 * 2**30):
        request = PlanRequest(
            model=get_model("Qwen/Qwen3-8B").spec, gpu=H100, gpu_memory_bytes=H100.memory_bytes_for(True),
            context_tokens=8192, max_model_len=8192, overhead=overhead_profile(engine),
            deployment=DeploymentOptions(used_memory_bytes=held),
        )  # fmt: skip
        result = plan(request)
        report = get_engine(engine).report(request, result, request.overhead)  # type: ignore[arg-type]
        assert result.stages[0].kv_cache_bytes == pytest.approx(report.available_kv_cache_bytes_per_gpu, abs=2**20)
