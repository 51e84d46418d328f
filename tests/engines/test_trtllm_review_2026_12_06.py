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
from planner.planning.plan import PlanRequest

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
