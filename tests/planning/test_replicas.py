"""Data-parallel replicas: each replica holds whole conversations of its own; pools never add up across
replicas (issue "one answer", case 4)."""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.planning.plan import PlanRequest, plan

LLAMA_70B = get_model("meta-llama/Llama-3.1-70B").spec
H100 = get_gpu("h100-sxm-80gb")


def _request(context: int, gpus: int = 2, tp: int = 1) -> PlanRequest:
    return PlanRequest(
        model=LLAMA_70B,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes,
        gpu_count=gpus,
        tensor_parallel=tp,
        weights="fp8",
        kv_dtype="fp8",
        context_tokens=context,
    )


def test_two_half_sequences_are_not_one_conversation() -> None:
    one = plan(_request(4096, gpus=1))
    pool = one.kv_budget_tokens_per_replica
    assert 0 < pool < 8192
    # a context longer than one replica's pool but shorter than the two pools together
    context = pool + pool // 2
    two = plan(_request(context, gpus=2))
    assert two.replicas == 2
    assert two.capacity.sequences_per_replica < 1
    assert two.capacity.conversations == 0
    assert not two.fits and two.fit_status == "no-room-for-one-sequence"


def test_conversations_are_whole_per_replica() -> None:
    result = plan(_request(2048, gpus=2))
    per_replica = result.capacity.sequences_per_replica
    assert result.capacity.conversations == int(per_replica) * 2
    assert result.max_concurrency == result.capacity.sequences_paged
    assert result.capacity.sequences_paged == per_replica * 2
