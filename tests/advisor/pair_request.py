"""The request the Memory page plans for one replica of an advisor's pair: two GPUs at TP 2, FP8 weights and KV
cache, a conversation's context as the engine's max_model_len, under an engine at its defaults on the memory an
engine sees (:meth:`planner.core.gpu.GpuSpec.memory_bytes_for`)."""

from __future__ import annotations

from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.engines.registry import engine_profile
from planner.planning.request import PlanRequest


def tp2_fp8_request(model: ModelSpec, gpu: GpuSpec, context: int, engine: str) -> PlanRequest:
    """The pair's request at ``context`` tokens under ``engine`` (its profile's defaults)."""
    return PlanRequest(
        model=model,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes_for(True, None),
        gpu_count=2,
        tensor_parallel=2,
        weights="fp8",
        kv_dtype="fp8",
        context_tokens=context,
        max_model_len=context,
        overhead=engine_profile(engine),
    )
