"""The fixed KV-cache size lever (vLLM ``--kv-cache-memory``, planner.assessment.fixed_kv): the nearest set-up
changes the size itself, to the edge the engine's own checks draw — the largest size that starts when the one
asked for runs out of memory, the smallest that holds the target when it holds too few — and the memory fraction,
which a fixed size ignores, is never offered."""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.assessment.alternatives import nearest_fitting
from planner.assessment.assess import VerdictState, assess
from planner.assessment.fixed_kv import KV_SIZE_STEP_BYTES, with_fixed_kv
from planner.core.units import GiB
from planner.engines.registry import overhead_profile
from planner.planning.plan import PlanRequest

USERS = 40  # 40 conversations of 8,192 tokens at 128 KiB a token (Llama-3.1-8B, BF16 KV): 40 GiB of pool


def _request(size: float) -> PlanRequest:
    gpu = get_gpu("h100-sxm-80gb")
    return PlanRequest(
        model=get_model("meta-llama/Llama-3.1-8B").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True),
        context_tokens=8192, max_model_len=8192,
        overhead=overhead_profile("vllm", kv_cache_memory_bytes=round(size * GiB)),
    )  # fmt: skip


def _first(request: PlanRequest) -> tuple[str, PlanRequest]:
    alternatives = nearest_fitting(request, USERS)
    assert not any("memory fraction" in a.change for a in alternatives), [a.change for a in alternatives]
    kv = next(a for a in alternatives if a.change.startswith("--kv-cache-memory-bytes"))
    return kv.change, kv.request


def test_too_large_a_size_is_offered_the_largest_that_starts() -> None:
    change, request = _first(_request(500))
    assert change.endswith(": the largest that starts"), change
    assert assess(request, USERS).fits
    larger = with_fixed_kv(request, request.overhead.kv_cache_memory_bytes + KV_SIZE_STEP_BYTES)  # type: ignore[attr-defined]
    assert assess(larger, USERS).state is VerdictState.ENGINE_REFUSES


def test_too_small_a_size_is_offered_the_smallest_that_holds_the_target() -> None:
    change, request = _first(_request(4))
    assert change == f"--kv-cache-memory-bytes {40 * GiB} (40 GiB): the smallest that holds {USERS}", (
        change
    )  # 40 x 8,192 x 128 KiB
    assert assess(request, USERS).conversations >= USERS
    smaller = with_fixed_kv(request, 40 * GiB - KV_SIZE_STEP_BYTES)
    assert assess(smaller, USERS).conversations < USERS
