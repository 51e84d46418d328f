"""A unified-memory machine's host holds part of the pool under every engine (planner.deploy.spark_hosts).

Found by an outside review (2026-12-05): on a DGX Spark vLLM's plan kept the 10.90 GiB the median public Spark's
host holds (OS, desktop, services) out of the free memory, while SGLang's and TensorRT-LLM's took the whole 121.69
GiB as free: Llama 3.1 8B's SGLang pool was 92.43 GiB, ~9.7 GiB (~80k tokens) more than the machine has. Both read
free memory as CUDA reports it, the host's MemAvailable on unified memory."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.assess import assess
from planner.core.units import GiB
from planner.deploy.spark_hosts import UMA_HOST_DEFAULT_BYTES, unified_host_bytes
from planner.engines.registry import engine_profile
from planner.engines.sglang import SGLANG_LOAD_OVERHEAD_TP1
from planner.engines.trtllm import TRTLLM_CONTEXT_BYTES
from planner.planning.plan import PlanRequest

SPARK, H100 = get_gpu("dgx-spark-gb10"), get_gpu("h100-sxm-80gb")
LLAMA_8B = get_model("meta-llama/Llama-3.1-8B").spec


def _pool(gpu: object, engine: str) -> int:
    request = PlanRequest(
        model=LLAMA_8B,
        gpu=gpu,  # type: ignore[arg-type]
        gpu_memory_bytes=gpu.usable_memory_bytes(),  # type: ignore[attr-defined]
        context_tokens=8192,
        overhead=engine_profile(engine),
    )
    return assess(request, 4).result.stages[0].kv_cache_bytes


def test_sglang_and_trtllm_leave_the_hosts_share() -> None:
    sglang, trtllm = _pool(SPARK, "sglang"), _pool(SPARK, "trtllm")
    assert sglang == pytest.approx(83.42 * GiB, abs=0.01 * GiB)  # was 92.43 GiB
    assert trtllm == pytest.approx(85.50 * GiB, abs=0.01 * GiB)  # was 94.77 GiB
    # the host's share less each engine's own start-up, which the public figure holds a context of
    assert unified_host_bytes(SGLANG_LOAD_OVERHEAD_TP1) == UMA_HOST_DEFAULT_BYTES - SGLANG_LOAD_OVERHEAD_TP1
    assert unified_host_bytes(TRTLLM_CONTEXT_BYTES) == pytest.approx(10.30 * GiB, abs=0.01 * GiB)


def test_a_discrete_card_is_unchanged() -> None:
    """An H100's pools, as before the change (a discrete card's host holds none of its memory)."""
    assert _pool(H100, "sglang") == pytest.approx(50.519 * GiB, abs=0.001 * GiB)
    assert _pool(H100, "trtllm") == pytest.approx(56.928 * GiB, abs=0.001 * GiB)
    assert unified_host_bytes(0) == UMA_HOST_DEFAULT_BYTES
