"""A prompt's attention FLOPs from each layer's attended span (planner/advisor/attended.py), against hand sums over
layers from the models' configs.

Llama 4 Maverick (config.json: 48 layers, ``no_rope_layers`` every fourth 0, ``attention_chunk_size`` 8192, 40
query heads of 128): its 36 RoPE layers attend within 8,192-token chunks (vLLM 0.22.0
``model_executor/models/llama4.py:255``, ``use_chunked_local_attn = not self.nope and config.attention_chunk_size``;
TensorRT-LLM ``tensorrt_llm/_torch/models/modeling_llama.py`` ``Llama4DecoderLayer.__init__`` passes the same chunk
to its TRTLLM attention op), its 12 NoPE layers globally; TensorRT-LLM caches every token of the chunked layers but
still attends within chunks. gpt-oss-120b (18 sliding layers of 128 tokens, 18 full, 64 heads of 64).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from model_catalog import get_model
from planner.advisor.attended import attended_model
from planner.advisor.benchmarks import load_rows
from planner.advisor.throughput import prefill_load
from planner.advisor.validation import case
from planner.engines.registry import engine_profile

MAVERICK = "meta-llama/Llama-4-Maverick-17B-128E-Instruct"
UNSEEN = Path(__file__).parent / "benchmarks" / "unseen-2026-12.toml"

# 20,000 tokens: two whole 8,192-token chunks and 3,616 tokens of a third, each chunk's pairs c^2 / 2.
MAVERICK_20000_PAIRS = 36 * (2 * 8192**2 / 2 + 3616**2 / 2) + 12 * 20000**2 / 2
MAVERICK_Q_WIDTH = 40 * 128


def test_maverick_prompt_attends_within_its_chunks() -> None:
    spec = get_model(MAVERICK).spec
    load = prefill_load(spec, "bf16", 20000)
    assert load.attention_flops == pytest.approx(4 * MAVERICK_Q_WIDTH * MAVERICK_20000_PAIRS, rel=1e-12)
    # 1.0345e14 FLOPs: the cached-span pricing (a chunked layer at min(t, 8192) on the trapezoid) gave 1.0955e14,
    # and TensorRT-LLM's every-token cache priced as attended 1.9661e14 (every layer all 20,000 tokens).
    assert load.attention_flops == pytest.approx(1.0345e14, rel=1e-4)


def test_trtllm_keeps_every_token_but_attends_within_chunks() -> None:
    spec = get_model(MAVERICK).spec
    cached = engine_profile("trtllm").kv_model(spec)
    assert cached.attention_chunk_size != 8192  # every token cached (planner.core.kv.every_token_cached)
    attends = attended_model(cached, spec)
    assert attends.attention_chunk_size == 8192
    load = prefill_load(attends, "nvfp4", 20000)
    assert load.attention_flops == pytest.approx(4 * MAVERICK_Q_WIDTH * MAVERICK_20000_PAIRS, rel=1e-12)


def test_the_adp_long_prompt_rows_price_chunked_attention() -> None:
    """The two rows ADP_LONG_PROMPT_WAIT names: their prompt's attention is the hand sum, not every layer over
    all 20,000 tokens."""
    rows = {r.id: r for r in load_rows((UNSEEN,))}
    for rid in ("trtllm-b200x8-llama4-maverick-fp4-20000-2000", "trtllm-h200x8-llama4-maverick-fp8-20000-2000"):
        prefill = case(rows[rid]).prefill
        assert prefill is not None
        assert prefill.attention_flops == pytest.approx(4 * MAVERICK_Q_WIDTH * MAVERICK_20000_PAIRS, rel=1e-12)


def test_sliding_window_prompt_pairs() -> None:
    """gpt-oss-120b at 20,000 tokens: a 128-token window's layer scores 128^2 / 2 + 128 x 19,872 pairs."""
    spec = get_model("openai/gpt-oss-120b").spec
    pairs = 18 * (128**2 / 2 + 128 * (20000 - 128)) + 18 * 20000**2 / 2
    assert prefill_load(spec, "mxfp4", 20000).attention_flops == pytest.approx(4 * 64 * 64 * pairs, rel=1e-12)


def test_full_attention_after_cached_tokens_is_unchanged() -> None:
    """Full layers keep the mean over the prompt: ``2 x q-width x n x (n + 2 depth)`` per layer."""
    spec = get_model("meta-llama/Llama-3.1-8B").spec
    n, depth = 5000, 1000
    expected = 32 * 2 * 32 * 128 * n * (n + 2 * depth)
    assert prefill_load(spec, "bf16", n, depth).attention_flops == pytest.approx(expected, rel=1e-12)
