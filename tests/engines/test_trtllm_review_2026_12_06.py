"""TensorRT-LLM, an outside engine-maintainer review (2026-12-06).

A KV cache too small for one sequence of ``max_seq_len`` does not stop TensorRT-LLM: the PyTorch flow's
``KVCacheManager.__init__`` (``tensorrt_llm/_torch/pyexecutor/resource_manager.py``) warns "maxAttentionWindow and
maxSequenceLen are too large for at least one sequence to fit in kvCache. They are reduced to N", N from
``get_max_atten_window_upper_bound`` (the pool's blocks x tokens_per_block, beam 1, no sink tokens), and starts
with ``max_seq_len`` N; it only asserts when not one block is left. The planner said it would refuse to start.
"""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.assessment.assess import VerdictState, assess, verdict_sentence
from planner.engines.registry import engine_profile
from planner.engines.trtllm_options import cache_config_lines
from planner.planning.plan import PlanRequest, plan

H100 = get_gpu("h100-sxm-80gb")


def _request(context: int) -> PlanRequest:
    return PlanRequest(
        model=get_model("meta-llama/Llama-3.1-70B").spec, gpu=H100, gpu_memory_bytes=H100.memory_bytes_for(True),
        gpu_count=2, context_tokens=context, max_model_len=context, overhead=engine_profile("trtllm"),
    )  # fmt: skip


def test_a_sequence_longer_than_the_pool_starts_with_a_shorter_maximum_length() -> None:
    """Llama 3.1 70B in BF16 on two H100s: 69,056 tokens (2,158 blocks of 32) under a max_seq_len of 131,072."""
    a = assess(_request(131_072), 4)
    report = a.report
    assert report is not None and report.fits and report.failure is None
    assert not report.fits_max_model_len
    assert report.estimated_max_model_len == report.max_model_len == 69_056 == report.kv_cache_tokens
    assert report.lines[-1] == (
        "[TensorRT-LLM][WARNING] maxAttentionWindow and maxSequenceLen are too large for at least one sequence to fit "
        "in kvCache. They are reduced to 69056"
    )
    assert a.state is VerdictState.NO_ROOM  # the target context does not fit: not a verdict that it does
    sentence = verdict_sentence(a)
    assert "would refuse to start" not in sentence
    assert "cannot hold one conversation of 128k tokens" in sentence
    assert "TensorRT-LLM starts with its maximum length cut to 69,056 tokens" in sentence


def test_a_pool_that_holds_the_sequence_prints_no_warning() -> None:
    report = assess(_request(32_768), 4).report
    assert report is not None and report.fits and report.fits_max_model_len
    assert report.estimated_max_model_len is None and report.max_model_len == 32_768
    assert not any("reduced to" in line for line in report.lines)


def _options(gpu_id: str, weights: str, gpus: int = 8) -> list[str]:
    gpu = get_gpu(gpu_id)
    request = PlanRequest(
        model=get_model("deepseek-ai/DeepSeek-R1").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True),
        gpu_count=gpus, weights=weights, kv_dtype="fp8", context_tokens=16_384, max_model_len=16_384,
        overhead=engine_profile("trtllm"),
    )  # fmt: skip
    return cache_config_lines(request, plan(request), False, False, 0.9, 8192)


def test_deepseek_r1_fp8_on_b200_asks_for_the_deepgemm_moe_backend() -> None:
    """NVIDIA's DeepSeek-R1 quick-start recipe (docs/source/deployment-guide/quick-start-recipe-for-deepseek-r1-on-
    trtllm.md, MoE backend support matrix): B200/GB200 runs the FP8 checkpoint with DEEPGEMM only, and "the default
    moe backend is CUTLASS, so ... one must set the moe_config.backend explicitly"; Hopper's FP8 and Blackwell's
    NVFP4 run on the default."""
    assert _options("b200-sxm", "fp8")[-2:] == ["moe_config:", "  backend: DEEPGEMM"]
    assert "moe_config:" not in _options("b200-sxm", "nvfp4")
    assert "moe_config:" not in _options("h200-sxm-141gb", "fp8")
