"""``estimate_max_len`` (vLLM's ``estimate_max_model_len``) first probes the whole blocks every rank holds and the
length after them: the answer is the plain binary search's (hypothesis over dense, sliding-window, hybrid and MoE
models, splits, KV dtypes, limits and KV budgets), in three probes for full attention."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.bounds.errors import PlannerError
from planner.engines import vllm
from planner.engines.base import engine_total_bytes
from planner.engines.vllm.blocks import VllmStage, estimate_max_len, needed_bytes
from tests.engines.vllm_planned import planned

MODELS = (
    "meta-llama/Llama-3.1-8B",  # full attention
    "meta-llama/Llama-3.1-70B",
    "Qwen/Qwen3-30B-A3B",  # MoE
    "google/gemma-3-27b-it",  # sliding window: pages capped by the window
    "openai/gpt-oss-20b",  # sliding window, MXFP4
    "Qwen/Qwen3-Next-80B-A3B-Instruct",  # linear attention: state pages
    "ibm-granite/granite-4.0-h-small",  # Mamba hybrid
)
GPUS = ("h100-sxm-80gb", "a100-sxm-80gb", "l40s", "rtx-4090", "b200-sxm")


def _plain(stages: list[VllmStage], limit: int, batched: int) -> int:
    """vLLM's binary search as written (0.19.0 ``vllm/v1/core/kv_cache_utils.py`` ``estimate_max_model_len``)."""
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        if all(needed_bytes(s, mid, batched) <= s.available for s in stages):
            low = mid
        else:
            high = mid - 1
    return low


def _stages(model: str, gpu: str, tp: int, kv: str, context: int) -> tuple[list[VllmStage], int]:
    setup = planned(model, gpu, tp, kv, context)
    batched, _ = setup.profile.batch(engine_total_bytes(setup.request), setup.request.gpu.name, context)
    return setup.stages, batched


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model=st.sampled_from(MODELS),
    gpu=st.sampled_from(GPUS),
    tp=st.sampled_from((1, 2, 4, 8)),
    kv=st.sampled_from(("bf16", "fp8")),
    context=st.integers(256, 131072),
    limit=st.integers(0, 1_000_000),
    budget=st.none() | st.integers(-(2**30), 80 * 2**30),  # another KV budget on every rank
)
def test_the_probed_search_is_the_plain_search(
    model: str, gpu: str, tp: int, kv: str, context: int, limit: int, budget: int | None
) -> None:
    try:
        stages, batched = _stages(model, gpu, tp, kv, context)
    except PlannerError as illegal:  # a split the model does not divide by
        pytest.skip(str(illegal))
    if budget is not None:
        stages = [s.model_copy(update={"available": budget}) for s in stages]
    assert estimate_max_len(stages, limit, batched) == _plain(stages, limit, batched)


def test_full_attention_takes_three_probes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Llama 3.1 70B at TP 2 on H100s at 131,072 tokens (which it cannot hold): the whole blocks
    of its pool (5,296: 0.81 GiB of KV memory), found with one probe of a block and two of the length (the
    plain search: ~17)."""
    stages, batched = _stages("meta-llama/Llama-3.1-70B", "h100-sxm-80gb", 2, "bf16", 131072)
    calls: list[int] = []

    def counted(stage: VllmStage, length: int, tokens: int) -> int:
        calls.append(length)
        return needed_bytes(stage, length, tokens)

    expected = _plain(stages, 131072, batched)
    assert 0 < expected < 131072
    monkeypatch.setattr(vllm.blocks, "needed_bytes", counted)
    assert estimate_max_len(stages, 131072, batched) == expected
    assert len(calls) == 3
    assert expected % stages[0].block_size == 0
