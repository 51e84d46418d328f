"""Replicas an engine does not serve from one process are said, not left out. Before: two replicas of TP 1 under
llama.cpp or TensorRT-LLM got one command for one GPU, with nothing saying that the plan's capacity counts two
(llama-server serves one model instance a process; trtllm-serve has no data-parallel setting for a dense model,
only attention data parallelism inside a MoE's TP group: one server a replica); vLLM before 0.8.3 got a flag it
does not define. And
TensorRT-LLM before 0.16 got a ``trtllm-serve`` command, which those releases do not have (NVIDIA/TensorRT-LLM
issue #2667 runs it on 0.16.0; in September 2024 the project pointed OpenAI-API users to ``examples/apps``,
issue #2237): their engines are built by ``trtllm-build`` and served by Triton's tensorrtllm backend."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.engines.registry import get_engine, overhead_profile
from planner.planning.plan import PlanRequest, plan

H100 = get_gpu("h100-sxm-80gb")
LLAMA = get_model("meta-llama/Llama-3.1-8B").spec


def _lines(engine: str, weights: str, kv: str, version: str | None = None, tp: int = 1) -> list[str]:
    request = PlanRequest(
        model=LLAMA,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        gpu_count=4,
        tensor_parallel=tp,
        weights=weights,  # type: ignore[arg-type]
        kv_dtype=kv,  # type: ignore[arg-type]
        context_tokens=8192,
        overhead=overhead_profile(engine, version=version),
    )
    result = plan(request)
    return get_engine(engine).launch_command(request, result, request.overhead).splitlines()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("engine", "weights", "kv", "why"),
    [
        ("llamacpp", "q4_k_m", "fp16", "llama-server serves one replica a process"),
        ("trtllm", "bf16", "bf16", "trtllm-serve serves one replica a process"),
    ],
)
def test_replicas_are_one_command_each(engine: str, weights: str, kv: str, why: str) -> None:
    lines = _lines(engine, weights, kv, tp=2)
    assert (
        f"# {why}: run this command once per replica, 2 in all, each on its own 2 GPUs (CUDA_VISIBLE_DEVICES), "
        "behind a load balancer" in lines
    )
    assert not _lines(engine, weights, kv, tp=4)[0].startswith(f"# {why}")  # one replica: one command, no note


def test_sglang_and_vllm_serve_replicas_themselves() -> None:
    assert "--dp 2" in _lines("sglang", "bf16", "bf16", tp=2)[-1]
    assert "--data-parallel-size 2" in _lines("vllm", "bf16", "bf16", tp=2)[-1]


@pytest.mark.parametrize("version", ["0.5.0", "0.9.0"])
def test_tensorrt_llm_before_trtllm_serve_is_built_and_served_by_triton(version: str) -> None:
    lines = _lines("trtllm", "bf16", "bf16", version=version, tp=4)
    assert all(line.startswith("#") for line in lines), lines  # nothing to paste that the release does not have
    text = " ".join(lines)
    assert f"TensorRT-LLM {version} has no trtllm-serve" in text and "trtllm-build" in text
    assert "kv_cache_free_gpu_mem_fraction 0.9" in text and "tp_size 4" in text
    assert _lines("trtllm", "bf16", "bf16", version="1.0.0", tp=4)[-1].startswith("trtllm-serve ")


def test_tensorrt_llm_before_trtllm_serve_refuses_speculation_it_builds_in() -> None:
    """Before trtllm-serve the speculative mode is built into the engine (``trtllm-build --speculative_decoding_mode``):
    there is no options file to write it to, so the planner refuses it rather than print one."""
    from planner.deploy.options import DeploymentOptions, SpeculativeOptions

    draft = get_model("meta-llama/Llama-3.2-1B").spec
    options = DeploymentOptions(speculative=SpeculativeOptions(method="draft", draft_model=draft))
    for version, refused in (("0.9.0", True), ("1.0.0", False)):
        request = PlanRequest(
            model=LLAMA,
            gpu=H100,
            gpu_memory_bytes=H100.memory_bytes_for(True),
            overhead=overhead_profile("trtllm", version=version),
            deployment=options,
        )
        reason = get_engine("trtllm").refusal(request)
        assert (reason is not None) == refused, reason
        assert reason is None or reason.startswith("TensorRT-LLM 0.9.0 builds speculative decoding into the engine")
