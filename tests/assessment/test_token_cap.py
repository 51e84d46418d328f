"""SGLang's ``--max-total-tokens`` caps its pool (``model_runner.py:1690-1697``, 0.5.4): a set-up that misses its
target because of the cap, not its memory, is offered the cap that holds the target as its nearest set-up, under
SGLang's own flag (before: a larger memory fraction or more GPUs, which the cap would have kept as small)."""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.assessment.alternatives import nearest_fitting
from planner.assessment.assess import VerdictState, assess
from planner.engines.registry import overhead_profile
from planner.planning.plan import PlanRequest

H100 = get_gpu("h100-sxm-80gb")
QWEN = get_model("Qwen/Qwen3-8B").spec


def _request(**settings: object) -> PlanRequest:
    return PlanRequest(
        model=QWEN, gpu=H100, gpu_memory_bytes=H100.memory_bytes_for(True), context_tokens=8192, max_model_len=8192,
        overhead=overhead_profile("sglang", **settings),
    )  # fmt: skip


def test_a_binding_cap_is_raised_to_what_the_target_needs() -> None:
    capped = _request(max_total_tokens=20_000)
    found = assess(capped, target_users=10)
    assert found.kv_budget_tokens == 20_000 and found.conversations == 2
    assert found.state is VerdictState.MISSES_TARGET
    offered = nearest_fitting(capped, 10)
    assert offered[0].change == "--max-total-tokens 81920", [o.change for o in offered]
    assert offered[0].assessment.kv_budget_tokens == 81_920 and offered[0].assessment.conversations == 10


def test_a_cap_above_the_pool_offers_nothing_of_its_own() -> None:
    """A cap the profiled pool is under (SGLang drops it) is not the reason: no cap is offered."""
    request = _request(max_total_tokens=10_000_000)
    assert not any("--max-total-tokens" in o.change for o in nearest_fitting(request, 100))
