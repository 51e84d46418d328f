"""KV bytes per token and per sequence (planner.core.kv), by hand from the configs: sliding and full layers of their
own geometry, shared KV layers, MLA latents with DeepSeek's sparse-attention indexer, hybrid state layers."""

from __future__ import annotations

import pytest

from model_catalog import load_models
from planner.core.kv import kv_bytes_per_sequence, kv_bytes_per_token, kv_heads_per_gpu
from planner.core.params import decoder_layer_params

MODELS = load_models()


def _entry(model_id: str):
    return MODELS[model_id].spec


# -- MLA with DeepSeek sparse attention ------------------------------------------------------------------------
def test_deepseek_v3_2_indexer_by_hand() -> None:
    spec = _entry("deepseek-ai/DeepSeek-V3.2")
    v3 = _entry("deepseek-ai/DeepSeek-V3.1")
    indexer = 1536 * 64 * 128 + 7168 * 128 + 7168 * 64 + 2 * 128  # wq_b, wk, weights_proj, k_norm
    assert decoder_layer_params(spec, 0).attention + decoder_layer_params(spec, 0).small == (
        decoder_layer_params(v3, 0).attention + decoder_layer_params(v3, 0).small + indexer
    )
    # per token and layer: the 576-value latent + 128 FP8 keys and one fp32 scale
    assert kv_bytes_per_token(spec, "bf16") == 61 * (576 * 2 + 128 + 4) == 78_324
    # An FP8 cache is the sparse kernels' 656-byte record (vLLM flashmla_sparse.py: "fp8" is an alias for
    # fp8_ds_mla, "V3.2 main MLA: 656-byte custom storage format"): 512 FP8 latent values, 4 fp32 scales, 64 BF16
    # RoPE values. It had been planned as 576 FP8 values (an outside review, 2026-12-05: 1,047,568 tokens on eight
    # H200s where the record gives 941,216).
    assert kv_bytes_per_token(spec, "fp8") == 61 * (512 + 4 * 4 + 64 * 2 + 132) == 48_068
    assert kv_bytes_per_token(v3, "fp8") == 61 * 576  # dense MLA keeps plain FP8 values


@pytest.mark.parametrize(
    ("model_id", "bf16", "source"),
    [
        # 2 (K, V) x 32 layers x 32 heads x 128 dims x 2 bytes: "about 0.5 MB per token" (The Memory Math of Serving
        # a Model); vLLM's FullAttentionSpec page size per token.
        ("meta-llama/Llama-2-7b-hf", 524_288, "MHA"),
        ("meta-llama/Meta-Llama-3-8B", 131_072, "GQA, 8 KV heads: 128 KiB"),  # same text: GQA cuts it 4x
        ("meta-llama/Llama-3.1-70B", 327_680, "80 layers x 8 KV heads: 320 KiB"),  # Memory Planning for LLMs
        # MLA caches the compressed latent: kv_lora_rank 512 + qk_rope_head_dim 64 per layer, 61 layers
        # (vLLM MLAAttentionSpec; DeepSeek-V3 config.json).
        ("deepseek-ai/DeepSeek-V3", 61 * (512 + 64) * 2, "MLA"),
        ("Qwen/Qwen3-30B-A3B", 48 * 4 * 128 * 2 * 2, "48 layers x 4 KV heads"),
    ],
)
def test_bytes_per_token_of_the_standard_layouts(model_id: str, bf16: int, source: str) -> None:
    spec = MODELS[model_id].spec
    assert kv_bytes_per_token(spec, "bf16") == bf16, source
    assert kv_bytes_per_token(spec, "fp8") == bf16 // 2  # FP8 halves it
    # ggml's cache blocks: q8_0 is 34 bytes per 32 values (8.5 bits), q4_0 18 bytes per 32 (4.5 bits)
    assert kv_bytes_per_token(spec, "int8") == bf16 * 34 // 64
    assert kv_bytes_per_token(spec, "int4") == bf16 * 18 // 64


def test_a_kv_head_is_replicated_when_tensor_parallel_exceeds_the_kv_heads() -> None:
    """vLLM replicates KV heads over ranks when TP > num_key_value_heads (each rank keeps at least one)."""
    spec = MODELS["meta-llama/Meta-Llama-3-8B"].spec
    assert [kv_heads_per_gpu(spec, tp) for tp in (1, 2, 8, 16)] == [8, 4, 1, 1]


def test_sliding_window_layers_cap_a_sequence_at_their_window() -> None:
    """Gemma 3 27B: 62 layers, every sixth global; the 52 local layers keep the last 1,024 tokens (sliding_window)."""
    spec = MODELS["google/gemma-3-27b-it"].spec
    per_layer = 2 * 16 * 128 * 2  # K and V, 16 KV heads x head_dim 128, BF16
    local, full = 52, 10
    for tokens in (4096, 32768):
        assert kv_bytes_per_sequence(spec, "bf16", tokens) == (local * 1024 + full * tokens) * per_layer
