"""What ``fit`` is told that an engine does not do is refused in one named line, not planned as if it did (an
outside engineer's review on a clean clone, 2026-12-06)."""

from __future__ import annotations

import json

import pytest

from planner.cli import main

LLAMA_70B_L40S = ["fit", "--model", "meta-llama/Llama-3.1-70B", "--gpu", "l40s", "--gpus", "4", "--weights", "q4_k_m"]


def _error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    return capsys.readouterr().err.strip()


def test_llamacpp_takes_no_pipeline_parallel_size(capsys: pytest.CaptureFixture[str]) -> None:
    """``--tp 2 --pp 2`` was planned as TP 2 x PP 2 in the JSON (10.67 GB of weights a GPU) and "layers split over
    4 GPUs" in the text, where the default split of the same four GPUs gives 10.51 GB: llama.cpp has one layer
    split, no TP x PP."""
    error = _error(capsys, *LLAMA_70B_L40S, "--engine", "llamacpp", "--tp", "2", "--pp", "2")
    assert error.startswith("error: --pp: llama.cpp has no pipeline-parallel size:"), error
    assert main([*LLAMA_70B_L40S, "--engine", "llamacpp", "--tp", "2", "--json"]) == 0  # two servers of two GPUs
    data = json.loads(capsys.readouterr().out)
    assert data["replicas"] == 2 and data["split"] == "layer"


def test_a_text_only_model_takes_no_multimodal_limit(capsys: pytest.CaptureFixture[str]) -> None:
    """vLLM 0.9 and earlier stop at ``--limit-mm-per-prompt`` for a model without a vision or audio tower; the plan
    said FITS with the flag in its launch command."""
    base = ["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--engine", "vllm"]
    error = _error(capsys, *base, "--engine-version", "0.9.2", "--limit-mm-per-prompt", "2")
    assert "--limit-mm-per-prompt: Llama 3.1 8B has no vision or audio tower, and vLLM 0.9.2 stops" in error, error
    assert main([*base, "--engine-version", "0.10.0", "--limit-mm-per-prompt", "2", "--json"]) in (0, 1)  # not read
    gemma = ["fit", "--model", "google/gemma-3-27b-it", "--gpu", "h100-sxm-80gb", "--engine", "vllm", "--json"]
    assert main([*gemma, "--limit-mm-per-prompt", "2"]) == 0  # a vision-language model takes it


def test_an_engine_s_own_flag_not_planned_is_not_said_to_be_missing(capsys: pytest.CaptureFixture[str]) -> None:
    """SGLang has a ``--load-format``; the refusal said it had none."""
    base = ["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--engine", "sglang"]
    error = _error(capsys, *base, "--load-format", "fastsafetensors")
    assert error.startswith("error: engine: SGLang's --load-format is not planned here:"), error
    assert "has no" not in error


def test_sglang_refusing_a_long_context_prints_no_pool(capsys: pytest.CaptureFixture[str]) -> None:
    """SGLang's ModelConfig refuses a ``--context-length`` above the model's before any weight is loaded; the plan
    printed the pool's "KV Cache is allocated" and scheduler lines before the refusal."""
    base = ["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--engine", "sglang"]
    assert main([*base, "--context", "200000", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    lines = data["engine_lines"]
    assert len(lines) == 1 and lines[0].startswith("ValueError: User-specified context_length (200000)"), lines


def test_vllm_before_0_30_does_not_speculate_under_pipeline_parallelism(capsys: pytest.CaptureFixture[str]) -> None:
    """Through 0.29 the stages' sampled-token broadcast asserts one token a request (vllm-project/vllm#57755, the
    0.28.0 and 0.29.0 sources): a draft model at PP 2 was planned as FITS with its launch command."""
    base = ["fit", "--model", "meta-llama/Llama-3.1-70B", "--gpu", "h100-sxm-80gb", "--gpus", "4", "--engine", "vllm"]
    draft = ["--draft-model", "meta-llama/Llama-3.2-1B"]
    error = _error(capsys, *base, "--tp", "2", "--pp", "2", "--engine-version", "0.28.0", *draft)
    assert "vLLM 0.28.0 does not start speculative decoding under pipeline parallelism" in error, error
    assert main([*base, "--tp", "4", "--engine-version", "0.28.0", *draft, "--json"]) == 0  # PP 1 runs it
    capsys.readouterr()
    assert main([*base, "--tp", "2", "--pp", "2", "--engine-version", "0.31.0", *draft, "--json"]) == 0
