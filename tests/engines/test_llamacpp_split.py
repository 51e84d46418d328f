"""llama.cpp on several identical GPUs splits whole layers over them (``--split-mode layer --tensor-split 1,1``,
as its launch command says), so a 70B BF16 model on two H100s loads half on each instead of failing on CUDA0."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.assess import assess
from planner.core.units import MiB
from planner.deploy.offload import embedding_bytes
from planner.engines.launch import launch_commands
from planner.engines.registry import engine_profile
from planner.planning.plan import PlanRequest

H100 = get_gpu("h100-sxm-80gb")


def test_two_gpus_hold_half_the_layers_each() -> None:
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.1-70B").spec,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        gpu_count=2,
        weights="bf16",
        kv_dtype="bf16",
        context_tokens=2048,
        max_model_len=2048,
        overhead=engine_profile("llamacpp"),
    )
    a = assess(request)
    assert a.fits and a.report is not None
    buffers = [line for line in a.report.lines if "buffer size" in line and "CUDA" in line and "KV" not in line]
    sizes = [float(line.split("=")[1].split()[0]) * MiB for line in buffers if "compute" not in line]
    assert len(sizes) == 2 and abs(sizes[0] - sizes[1]) < 0.05 * sizes[0]
    # every weight but token_embd, which llama.cpp keeps in host memory (its CPU_Mapped model buffer)
    embedding = embedding_bytes(request.model, "bf16")
    assert sum(sizes) == pytest.approx(a.result.weights_bytes_total - embedding, rel=0.001)
    assert "--tensor-split 1,1" in launch_commands(request, a.result)["llamacpp"]
