"""Memory other processes hold on the GPU (``DeploymentOptions.used_memory_bytes``), as each engine that sizes its
pool from free memory sees it."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.deploy.options import DeploymentOptions, LoraOptions, SpeculativeOptions
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


def test_tensorrt_llm_plan_and_report_agree_with_adapters_and_a_drafter() -> None:
    """TensorRT-LLM sizes its pool from the memory left after the weights, the LoRA slots and the drafter: the plan
    took its free fraction of memory the adapters and drafter already held (before, the plan's KV was (1 - 0.9) x
    their bytes under the report's)."""
    options = DeploymentOptions(
        lora=LoraOptions(max_loras=4, max_lora_rank=64),
        speculative=SpeculativeOptions(method="draft", draft_model=get_model("meta-llama/Llama-3.2-1B").spec),
    )
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.1-8B").spec, gpu=H100, gpu_memory_bytes=H100.memory_bytes_for(True),
        context_tokens=8192, max_model_len=8192, overhead=overhead_profile("trtllm"), deployment=options,
    )  # fmt: skip
    result = plan(request)
    stage = result.stages[0]
    assert stage.lora_bytes + stage.draft_bytes > 2 * 2**30  # a 1B drafter in BF16 and four rank-64 slots
    report = get_engine("trtllm").report(request, result, request.overhead)  # type: ignore[arg-type]
    assert stage.kv_cache_bytes == pytest.approx(report.available_kv_cache_bytes_per_gpu, abs=2**20)


def test_a_device_other_processes_fill_fails_at_its_cuda_context_not_with_negative_free_memory() -> None:
    """79 GiB held on a 79.19 GiB H100: vLLM had been predicted to print "Free memory on device (-0.32/79.19 GiB)"
    (an outside review, 2026-12-05); CUDA reports no negative free memory: the worker's context is not created."""
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.1-8B").spec, gpu=H100, gpu_memory_bytes=H100.memory_bytes_for(True),
        context_tokens=8192, max_model_len=8192, overhead=overhead_profile("vllm"),
        deployment=DeploymentOptions(used_memory_bytes=79 * 2**30),
    )  # fmt: skip
    report = get_engine("vllm").report(request, plan(request), request.overhead)  # type: ignore[arg-type]
    assert report.failure_kind == "free-memory"
    assert report.failure == (
        "RuntimeError: CUDA error: out of memory (other processes leave the worker no room for its CUDA context on "
        "the 79.19 GiB device)."
    )
    held = request.model_copy(update={"deployment": DeploymentOptions(used_memory_bytes=20 * 2**30)})
    failure = get_engine("vllm").report(held, plan(held), held.overhead).failure  # type: ignore[arg-type]
    assert failure is not None and failure.startswith("ValueError: Free memory on device (")  # vLLM's own check
