"""vLLM disables chunked multimodal input for a prefix-LM model (Gemma 4) and refuses a --max-num-batched-tokens
below its largest item: "Chunked MM input disabled but max_tokens_per_mm_item (2496) is larger than
max_num_batched_tokens (2048)" (0.34.0 v1/core/encoder_cache_manager.py:358-367); a defaulted step is raised to the
item instead (0.34.0 engine/arg_utils.py:3238-3253). The planner had planned the given 2,048 as it was."""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.assessment.assess import VerdictState, assess
from planner.engines.logscan import Lines, find_failure
from planner.engines.registry import overhead_profile
from planner.planning.plan import PlanRequest

GPU = get_gpu("rtx-pro-6000-blackwell-max-q")
GEMMA = get_model("google/gemma-4-31B-it").spec


def _assessed(**settings: object) -> object:
    request = PlanRequest(
        model=GEMMA, gpu=GPU, gpu_memory_bytes=GPU.memory_bytes_for(True), gpu_count=4, tensor_parallel=4,
        weights="fp8", kv_dtype="fp8", context_tokens=32_768, max_model_len=32_768,
        overhead=overhead_profile("vllm", **settings),
    )  # fmt: skip
    return assess(request, 50)


def test_a_step_under_the_largest_item_is_refused_with_vllms_words() -> None:
    a = _assessed(max_num_batched_tokens=2048)
    assert a.state is VerdictState.ENGINE_REFUSES and a.report is not None  # type: ignore[attr-defined]
    assert a.report.failure_kind == "mm-item-batch"  # type: ignore[attr-defined]
    assert "max_tokens_per_mm_item (2496) is larger than max_num_batched_tokens (2048)" in a.report.failure  # type: ignore[attr-defined]


def test_the_item_the_text_only_model_and_the_default_start() -> None:
    for settings in (
        {"max_num_batched_tokens": 2496},
        {"max_num_batched_tokens": 2048, "language_model_only": True},
        {},
    ):
        a = _assessed(**settings)
        assert a.state is not VerdictState.ENGINE_REFUSES, settings  # type: ignore[attr-defined]


def test_a_pasted_log_with_the_refusal_is_read_as_it() -> None:
    line = (
        "ValueError: Chunked MM input disabled but max_tokens_per_mm_item (2496) is larger than "
        "max_num_batched_tokens (2048). Please increase max_num_batched_tokens."
    )
    found = find_failure(Lines(line))
    assert found is not None and found[0] == "mm-item-batch"


def test_the_refusal_is_offered_the_item_as_its_step() -> None:
    """The Memory page had said 'Nothing close does ... try a GPU with more memory' (review, 2026-12-05)."""
    from planner.assessment.alternatives import nearest_fitting

    refused = _assessed(max_num_batched_tokens=2048)
    offered = nearest_fitting(refused.request, 50)  # type: ignore[attr-defined]
    assert offered and offered[0].change == "--max-num-batched-tokens 2496 (the model's largest multimodal item)"
    assert offered[0].assessment.conversations == 84
