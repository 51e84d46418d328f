"""vLLM's windowed layers hold their window and every batch in flight (0.26 on: two batches of 8,192 tokens on a
96 GB card), so Gemma 4 31B held 37 conversations of 32k on four RTX PRO 6000 Max-Q where --max-num-batched-tokens
2496 (vLLM's 2,048 below 70 GiB, raised to Gemma 4's largest image or video, which vLLM will not split and refuses a
step under: 0.34.0 v1/core/encoder_cache_manager.py:358-367) holds 84 (outside review, 2026-12-05: the advisor
bought eight cards where four do). The Memory page and
``fit`` offer the step as a nearest set-up; the advisor plans it where the default misses the target."""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.advisor import ContextDistribution, Workload, rank
from planner.assessment.alternatives import nearest_fitting
from planner.assessment.assess import assess
from planner.assessment.window_lever import with_small_step
from planner.engines.registry import overhead_profile
from planner.planning.plan import PlanRequest
from ui.advisor_rows import option_link, option_selection
from ui.state import Selection

MAX_Q = get_gpu("rtx-pro-6000-blackwell-max-q")
GEMMA = get_model("google/gemma-4-31B-it").spec


def _request(**settings: object) -> PlanRequest:
    return PlanRequest(
        model=GEMMA, gpu=MAX_Q, gpu_memory_bytes=MAX_Q.memory_bytes_for(True), gpu_count=4, tensor_parallel=4,
        weights="fp8", kv_dtype="fp8", context_tokens=32_768, max_model_len=32_768,
        overhead=overhead_profile("vllm", **settings),
    )  # fmt: skip


def test_the_smaller_step_is_offered_where_the_windows_keep_the_target_out() -> None:
    request = _request()
    assert assess(request, 50).conversations == 37
    offered = nearest_fitting(request, 50)
    assert offered[0].change.startswith("--max-num-batched-tokens 2496"), [o.change for o in offered]
    assert offered[0].assessment.conversations == 84


def test_no_step_lever_without_windows_or_with_the_flag_given() -> None:
    assert with_small_step(_request(max_num_batched_tokens=4096)) is None
    llama = _request().model_copy(update={"model": get_model("meta-llama/Llama-3.1-70B").spec})
    assert with_small_step(llama) is None
    l40s = get_gpu("l40s")  # 44.4 GiB: vLLM's default step there is 2,048 already
    on_l40s = _request().model_copy(update={"gpu": l40s, "gpu_memory_bytes": l40s.memory_bytes_for(True)})
    assert with_small_step(on_l40s) is None


def test_the_advisor_buys_four_cards_not_eight_and_its_link_opens_the_same() -> None:
    dist = ContextDistribution(mean_tokens=32_768, p95_tokens=32_768, max_tokens=32_768)
    ranking = rank(GEMMA, Workload(concurrent_conversations=50, context=dist))
    best = ranking.best
    assert best is not None and best.gpu_count == 4 and best.engine_max_num_batched_tokens == 2496, best.label
    assert best.label.endswith("--max-num-batched-tokens 2496")
    sel = option_selection(Selection(model_id="google/gemma-4-31B-it"), best)
    assert sel.assessment().conversations == best.conversations
    assert "max_num_batched_tokens=2496" in option_link(Selection(model_id="google/gemma-4-31B-it"), best, None)
