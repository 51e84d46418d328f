"""An engine that cannot serve a set-up hands it to the next one that can (issue 21: "the advisor does not fall back
to a second engine when the first refuses"). vLLM is tried first; where its pool at its defaults holds fewer than
the target (its 0.92 of the card, less its activations and graphs) and TensorRT-LLM's (0.9 of what the weights
leave free) holds them, the set-up is offered under TensorRT-LLM with why in its notes, planned as the Memory page
plans it under that engine; where vLLM serves it, nothing changes."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor import Option, Workload, rank
from planner.advisor.levers import pool_could_hold
from planner.assessment.assess import assess
from planner.engines.registry import engine_profile
from planner.planning.request import PlanRequest
from tests.advisor.pair_request import tp2_fp8_request

QWEN3_30B = get_model("Qwen/Qwen3-30B-A3B").spec
RTX_4090 = get_gpu("rtx-4090")
# eight users on 3-slot RTX 4090s: an open frame, asked for (no rack server's dual-slot bays take them)
EIGHT_AT_32K = Workload.fixed_length(32_768, concurrent_conversations=8, gpu_ids=("rtx-4090",), include_personal=True)


def _pair(options: Sequence[Option]) -> Option:
    return next(o for o in options if (o.gpu_count, o.tensor_parallel, o.weights, o.kv_dtype) == (2, 2, "fp8", "fp8"))


def test_vllm_alone_does_not_hold_the_target() -> None:
    """Asked for vLLM alone, two RTX 4090s at TP 2 hold 6 of the 8 conversations: left out, with vLLM's count."""
    ranking = rank(QWEN3_30B, EIGHT_AT_32K.model_copy(update={"engines": ("vllm",)}))
    left = [
        r for r in ranking.rejected if (r.gpu_count, r.tensor_parallel, r.weights, r.kv_dtype) == (2, 2, "fp8", "fp8")
    ]
    assert [(r.reason, r.detail) for r in left] == [
        ("below-target", "holds 6 conversations of 32,768 tokens, target 8")
    ]


def test_the_next_engine_serves_it_and_says_why() -> None:
    option = _pair(rank(QWEN3_30B, EIGHT_AT_32K).options)
    assert option.engine == "trtllm"
    assert option.warnings[0] == (
        "vLLM does not serve it as planned (holds 6 conversations of 32,768 tokens, target 8): TensorRT-LLM does"
    )
    # The Memory page's answer under TensorRT-LLM at its defaults, for one replica of the set-up.
    request = tp2_fp8_request(QWEN3_30B, RTX_4090, 32_768, "trtllm")
    assert option.conversations == assess(request).conversations == 9


@pytest.mark.parametrize("engines", [None, ("vllm", "sglang", "trtllm")])
def test_an_engine_that_serves_it_is_kept(engines: tuple[str, ...] | None) -> None:
    """Llama 3.1 8B on one RTX 4090 for 7 users at 8k: vLLM holds them, so vLLM runs it, with no fallback note (8
    users until FlashInfer's decode workspace was planned in vLLM's graph estimate, 2026-12-07: one card in BF16 with
    an FP8 cache then holds 7, and SGLang, which holds 8, serves that one as the fallback)."""
    workload = Workload.fixed_length(
        8_192, concurrent_conversations=7, gpu_ids=("rtx-4090",), engines=engines, include_personal=True
    )
    options = rank(get_model("meta-llama/Llama-3.1-8B").spec, workload).options
    assert options and all(o.engine == "vllm" for o in options)
    assert not any("does not serve it as planned" in w for o in options for w in o.warnings)


def test_a_fallback_held_only_by_an_unchecked_figure_is_a_caveat() -> None:
    """TensorRT-LLM's memory figure is checked by no public start-up (planner/engines/accuracy.toml): a set-up only
    it holds is offered amber, ranked after those nothing undermines (a regression review, 2026-12-05)."""
    option = _pair(rank(QWEN3_30B, EIGHT_AT_32K).options)
    assert option.engine == "trtllm" and option.warnings[0] in option.undermining


def test_vllm_on_a_headless_gpu_is_planned_at_a_raised_fraction_before_another_engine() -> None:
    """Llama 3.1 70B in FP8 on two B200s for 50 users at 32k: vLLM's default 0.92 holds 48 and TensorRT-LLM had been
    chosen; an engineer sets --gpu-memory-utilization 0.94 (the lowest that holds 50), as the Memory page's nearest
    set-up would. A desktop card is not raised (its display shares it)."""
    workload = Workload.fixed_length(32_768, concurrent_conversations=50, pricing="cloud", gpu_ids=("b200-sxm",))
    option = next(o for o in rank(get_model("meta-llama/Llama-3.1-70B").spec, workload).options if o.gpu_count == 2)
    assert (option.engine, option.engine_fraction, option.engine_fraction_raised) == ("vllm", 0.94, True)
    assert option.conversations == 50 and ", --gpu-memory-utilization 0.94" in option.label
    desktop = rank(QWEN3_30B, EIGHT_AT_32K.model_copy(update={"engines": ("vllm",)}))
    assert not any(o.engine_fraction_raised for o in desktop.options)


def test_a_pool_refused_as_too_small_is_bounded_like_one_that_starts() -> None:
    """Llama-3.1-70B in FP8 on 2 x L40S at 131,072 tokens: vLLM refuses, its pool (4.88 GiB a GPU) holding 0.24 of
    one conversation. Even all of a GPU's memory past the weights would hold 0.55 of one, so neither a raised
    fraction nor another engine is assessed; the bound had said "assess it" for every refused pool (90 of the 682
    assessments of a ranking at that context). A pool that starts is bounded as before."""
    gpu = get_gpu("l40s")
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.1-70B").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes, gpu_count=2,
        tensor_parallel=2, weights="fp8", kv_dtype="bf16", context_tokens=131072, max_model_len=131072,
        overhead=engine_profile("vllm"),
    )  # fmt: skip
    refused = assess(request)
    assert refused.report is not None
    assert (refused.report.failure_kind, round(refused.report.max_concurrency, 2)) == ("kv-cache-too-small", 0.24)
    whole = refused.result.per_gpu.gpu_memory_bytes - refused.result.per_gpu.weights_bytes
    assert refused.report.max_concurrency * whole / refused.report.available_kv_cache_bytes_per_gpu == pytest.approx(
        0.55, abs=0.01
    )
    assert not pool_could_hold(refused, whole, 1, 1)
    assert pool_could_hold(refused, whole, 2, 1)  # two replicas of 0.55
    started = assess(request.model_copy(update={"context_tokens": 8192, "max_model_len": 8192}))
    assert started.fits and not pool_could_hold(started, started.report.available_kv_cache_bytes_per_gpu, 1, 10**4)  # type: ignore[union-attr]


def test_no_other_engine_is_tried_where_no_pool_could_hold_the_target(monkeypatch: pytest.MonkeyPatch) -> None:
    """Llama-3.1-70B at 131,072 tokens for 33 users on L40S cards: the vLLM set-ups whose weights fit are refused
    for a cache too small for one conversation (25) or hold 2-8 conversations, and none could hold 33 even with all
    of a GPU's memory at the least a conversation's KV cache takes, so neither SGLang nor TensorRT-LLM is assessed
    (each had been, for every refused one: 172 of a catalog ranking's 682 assessments at that context); the refused
    ones keep vLLM's reason."""
    from planner.advisor import kept_memory

    engines: list[str] = []
    original = kept_memory.assess

    def counted(request: PlanRequest, *args: object, **kwargs: object) -> object:
        engines.append(getattr(request.overhead, "engine_name", ""))
        return original(request, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(kept_memory, "assess", counted)
    workload = Workload.fixed_length(131_072, concurrent_conversations=33)
    ranking = rank(get_model("meta-llama/Llama-3.1-70B").spec, workload, gpus=[get_gpu("l40s")])
    assert not ranking.options and engines and set(engines) == {"vllm"}
    refused = [r for r in ranking.rejected if r.detail.startswith("vLLM would not start: ValueError: To serve")]
    assert len(refused) == 25


def test_another_engine_is_tried_where_it_stores_a_conversation_in_less() -> None:
    """Gemma 3 27B in FP8 with an FP8 cache on one H100, 33 users of the support-chat workload (6,000 tokens):
    vLLM's pool holds 25 and a pool of all the memory its weights leave, at vLLM's cost of a conversation, 32; the
    fallback had been skipped on that bound, though TensorRT-LLM at a raised memory fraction holds all 33. An
    engine's own cost is no bound on another's: only one under the least any engine stores (the model's KV cache,
    windows capped) keeps the others from being tried."""
    workload = Workload.from_preset(
        "support-chat", concurrent_conversations=33, pricing="cloud", gpu_ids=("h100-sxm-80gb",)
    )
    ranking = rank(get_model("google/gemma-3-27b-it").spec, workload, kv_dtypes=("fp8",))
    option = next(o for o in ranking.options if (o.gpu_count, o.weights) == (1, "fp8"))
    assert (option.engine, option.engine_fraction, option.conversations) == ("trtllm", 0.94, 33)
