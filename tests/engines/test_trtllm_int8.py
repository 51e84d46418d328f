"""TensorRT-LLM's PyTorch flow (trtllm-serve, the flow planned) has no INT8 recipe: its quantization page lists FP4,
FP8 (per tensor, block, rowwise), the FP8 KV cache and 4-bit AWQ / GPTQ weights (docs/source/features/quantization.md,
1.1.0). Found by an outside review (2026-12-05): an INT8 KV cache was planned (871,488 tokens for Llama 3.1 8B on an
H100) and launched with no cache setting, which runs a BF16 cache (462,976 tokens): now refused with the reason, as
INT8 weights are, and the FP8 cache offered instead."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.engines.registry import engine_profile, get_engine
from planner.planning.plan import PlanRequest

H100 = get_gpu("h100-sxm-80gb")
LLAMA_8B = get_model("meta-llama/Llama-3.1-8B").spec


@pytest.mark.parametrize(("weights", "kv", "words"), [("bf16", "int8", "INT8 KV cache"), ("int8", "bf16", "INT8")])
def test_int8_is_refused_with_the_pytorch_flows_reason(weights: str, kv: str, words: str) -> None:
    request = PlanRequest(
        model=LLAMA_8B,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes,
        weights=weights,  # type: ignore[arg-type]
        kv_dtype=kv,  # type: ignore[arg-type]
        overhead=engine_profile("trtllm"),
    )
    reason = get_engine("trtllm").refusal(request)
    assert reason is not None and words in reason and "PyTorch flow" in reason and "FP8" in reason


def test_the_fp8_cache_is_still_run_and_set_in_the_command() -> None:
    request = PlanRequest(
        model=LLAMA_8B, gpu=H100, gpu_memory_bytes=H100.memory_bytes, kv_dtype="fp8", overhead=engine_profile("trtllm")
    )
    assert get_engine("trtllm").refusal(request) is None
