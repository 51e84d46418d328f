"""The nearest set-ups offer a smaller weight format or KV cache only where it saves at least half a bit a value
(planner.assessment.model_levers.MIN_SAVING_BITS): gpt-oss-120b ships in MXFP4 (4.25 bits), and "weights in int4"
(4.0) had been offered for it, its only gain vLLM's MXFP4 padding (an outside review, 2026-12-05)."""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.assessment.alternatives import nearest_for
from planner.assessment.assess import assess
from planner.engines.registry import engine_profile
from planner.planning.plan import PlanRequest


def _nearest(model: str, gpu_id: str, weights: str | None, users: int, context: int) -> list[str]:
    gpu = get_gpu(gpu_id)
    request = PlanRequest(
        model=get_model(model).spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True, None), gpu_count=1,
        weights=weights, kv_dtype="fp8", context_tokens=context, max_model_len=context,
        overhead=engine_profile("vllm"),
    )  # fmt: skip
    return [a.change for a in nearest_for(request, assess(request, users), users)]


def test_a_native_4_bit_checkpoint_is_not_offered_4_bit_weights() -> None:
    labels = _nearest("openai/gpt-oss-120b", "rtx-pro-6000-blackwell-max-q", None, 50, 16384)
    assert labels and not any(label.startswith("weights in") for label in labels)


def test_a_16_bit_checkpoint_is_still_offered_8_bit_weights() -> None:
    labels = _nearest("meta-llama/Llama-3.1-8B", "l4", "bf16", 8, 131072)
    assert "weights in fp8" in labels


def _generic(weights: str, kv: str, users: int) -> tuple[list[str], tuple[str, ...]]:
    gpu = get_gpu("h100-sxm-80gb")
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.3-70B-Instruct").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes,
        gpu_count=2, weights=weights, kv_dtype=kv, context_tokens=32768,
    )  # fmt: skip
    a = assess(request, users)
    return [n.change for n in nearest_for(request, a, users)], a.result.warnings


def test_a_generic_estimate_offers_only_what_some_engine_serves() -> None:
    """Under the generic profile (``fit`` without ``--engine``) FP8 weights on two H100s had been offered an INT4
    (q4_0) KV cache and Q6_K weights beside an FP8 cache, pairs vLLM, SGLang, TensorRT-LLM and llama.cpp each refuse
    (an outside review, 2026-12-05); the pair itself, asked for, plans with a warning saying none serves it."""
    offered, warnings = _generic("fp8", "fp8", 14)
    assert "KV cache in int4" not in offered and "weights in q6_k" not in offered
    assert "weights in int4-g32" in offered and not warnings
    _, warnings = _generic("fp8", "int4", 14)
    assert warnings == (
        "no engine the planner models runs FP8 (block scales) weights with the KV cache in INT4 (q4_0) on this GPU: "
        "the estimate is of a set-up none of them serves (choose an engine to see its reason)",
    )
