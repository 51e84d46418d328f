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
    """The Memory page had said 'Nothing close does ... try a GPU with more memory' (review, 2026-12-05). 84
    conversations until the allocator's segment tails were counted with the weights (2026-12-07), 83 until the
    mechanistic non-torch model (the same day, fifty-third session)."""
    from planner.assessment.alternatives import nearest_fitting

    refused = _assessed(max_num_batched_tokens=2048)
    offered = nearest_fitting(refused.request, 50)  # type: ignore[attr-defined]
    assert offered and offered[0].change == "--max-num-batched-tokens 2496 (the model's largest multimodal item)"
    assert offered[0].assessment.conversations == 84


def test_text_only_starts_with_a_small_step_in_every_release(capsys: object) -> None:
    """Review 45c, finding 6: with --language-model-only or --limit-mm-per-prompt 0 (every modality at 0) vLLM runs in
    text-only mode (supports_multimodal_inputs False, 0.22.0 and 0.26.0 multimodal/registry.py:123-136) and builds
    no encoder budget, so the check of the item against a given step (v1/core/encoder_cache_manager.py:298-307) is
    never reached. The planner had refused Gemma 4 26B-A4B at 0.22-0.26 with a given 2,048 ("prefix-LM floor"); it
    starts as at 0.27.0 (245,385 tokens at 0.26, two batches in flight; 374,007 before 0.26, one; 244,707 and 372,974
    until the V slot of the k_eq_v global layers was planned, 2026-12-06, 244,514 and 372,678 until the desktop cards'
    share was refitted beside FlashInfer's decode workspace, 2026-12-07, 245,456 and 374,114 until the allocator's
    segment tails were counted with the weights, the same day; 252,829 and 385,352 since the mechanistic non-torch
    model plans no desktop share, the same day; 252,433 and 384,748 since the Triton sampler's cached buffer,
    2026-12-07, fifty-sixth session). With multimodal input on, the refusal stays."""
    import json

    from planner.cli import main

    base = ["fit", "--model", "google/gemma-4-26B-A4B-it", "--gpu", "rtx-pro-6000-blackwell"]
    base += ["--max-num-batched-tokens", "2048", "--json"]
    for version, flag, tokens in (
        ("0.22.0", "--limit-mm-per-prompt 0", "384,748"),
        ("0.25.1", "--limit-mm-per-prompt 0", "384,748"),
        ("0.26.0", "--limit-mm-per-prompt 0", "252,433"),
        ("0.22.0", "--language-model-only", "384,748"),
        ("0.26.0", "--language-model-only", "252,433"),
        ("0.27.0", "--language-model-only", "252,433"),
    ):
        main([*base, "--engine-version", version, *flag.split()])
        data = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
        assert data["engine_starts"] and data["engine_failure"] is None, (version, flag, data["engine_failure"])
        assert data["engine_lines"][1] == f"GPU KV cache size: {tokens} tokens", (version, flag)
        assert not any("multimodal item" in n["change"] for n in data["nearest"]), data["nearest"]
    for version in ("0.22.0", "0.26.0", "0.27.0"):
        main([*base, "--engine-version", version, "--limit-mm-per-prompt", "1"])
        data = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
        assert data["engine_failure"] == (
            "ValueError: Chunked MM input disabled but max_tokens_per_mm_item (2496) is larger than "
            "max_num_batched_tokens (2048). Please increase max_num_batched_tokens."
        )
