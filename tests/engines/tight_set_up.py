"""The set-up the accuracy tests share: Qwen3-8B under vLLM on one RTX 3090, whose pool at 8k holds 3
conversations, fewer after the GeForce/RTX group's 90th-percentile miss (tests/engines/test_accuracy.py,
tests/advisor/test_memory_margin.py)."""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.engines.registry import engine_profile
from planner.planning.plan import PlanRequest


def qwen3_8b_on_an_rtx_3090(context: int) -> PlanRequest:
    """Qwen3-8B in BF16 on one RTX 3090 under vLLM's defaults at ``context`` tokens."""
    gpu = get_gpu("rtx-3090")
    return PlanRequest(
        model=get_model("Qwen/Qwen3-8B").spec,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes_for(True),
        context_tokens=context,
        max_model_len=context,
        overhead=engine_profile("vllm"),
    )
