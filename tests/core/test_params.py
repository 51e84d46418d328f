"""Parameter counts (planner.core.params, planner.core.layer_params) of the late-2026 architectures, each worked out by
hand from its config.json (tests/fixtures/configs/) and the modeling file cited in the module; the catalog entries
hold the official totals."""

from __future__ import annotations

import pytest

from model_catalog import load_models
from planner.core.blocks import LayerKind
from planner.core.kv import kv_bytes_per_sequence, kv_bytes_per_token, linear_state_bytes_per_layer
from planner.core.params import decoder_layer_params, parameter_breakdown

MODELS = load_models()


def _entry(model_id: str):
    return MODELS[model_id].spec


# -- Qwen3.5: hybrid Gated DeltaNet at 3:1, MTP sharing the embedding, vision tower ------------------------------
def test_qwen3_5_27b_by_hand() -> None:
    spec = _entry("Qwen/Qwen3.5-27B")
    h, d, heads, kv, inter, vocab = 5120, 256, 24, 4, 17408, 248_320
    full = h * heads * d * 2 + 2 * h * kv * d + heads * d * h + 2 * d  # gated q (x2), k, v, o, q/k norm
    key_dim, value_dim = 16 * 128, 48 * 128
    linear = h * (2 * key_dim + 2 * value_dim) + h * 2 * 48 + (2 * key_dim + value_dim) * 4 + value_dim * h
    linear += 2 * 48 + 128  # dt_bias, A_log, gated RMSNorm over the value head
    mlp, norms = 3 * h * inter, 2 * h
    text = 16 * (full + mlp + norms) + 48 * (linear + mlp + norms) + 2 * vocab * h + h
    mtp = 2 * h * h + 3 * h + full + mlp + norms  # fc, 3 norms, one full-attention layer; no embedding copy
    breakdown = parameter_breakdown(spec)
    assert breakdown.served - breakdown.attached_loaded == text
    assert breakdown.attached_not_loaded == mtp == 424_699_392
    assert spec.attached_modules[0].parameters == 460_730_096  # Qwen3.5 vision tower, planner/sources/vision.py
    assert breakdown.total == 27_781_427_952  # the Hub total
    assert kv_bytes_per_token(spec, "bf16") == 16 * 2 * kv * d * 2  # only the 16 full-attention layers cache
    # each DeltaNet layer keeps (kernel-1) x conv channels + v_heads x k_dim x v_dim, whatever the context
    assert linear_state_bytes_per_layer(spec) == (3 * (2 * key_dim + value_dim) + 48 * 128 * 128) * 2


# -- Gemma 4: per-layer attention layout, K = V, shared-KV layers, PLE, MoE beside the dense MLP ------------------
def test_gemma4_31b_per_layer_attention_by_hand() -> None:
    spec = _entry("google/gemma-4-31B-it")
    h, heads = 5376, 32
    sliding = h * heads * 256 + 2 * h * 16 * 256 + heads * 256 * h + 2 * 256
    full = h * heads * 512 + h * 4 * 512 + heads * 512 * h + 2 * 512  # attention_k_eq_v: no v_proj
    assert decoder_layer_params(spec, 0).attention + decoder_layer_params(spec, 0).small == sliding + 4 * h + 1
    assert decoder_layer_params(spec, 5).attention + decoder_layer_params(spec, 5).small == full + 4 * h + 1
    sliding_kv, full_kv = 2 * 16 * 256 * 2, 2 * 4 * 512 * 2  # K and V both cached on the K = V layers
    assert kv_bytes_per_token(spec, "bf16") == 50 * sliding_kv + 10 * full_kv == 901_120
    assert kv_bytes_per_sequence(spec, "bf16", 10_000) == 50 * 1024 * sliding_kv + 10 * 10_000 * full_kv


def test_gemma4_e4b_shared_kv_and_per_layer_embeddings_by_hand() -> None:
    spec = _entry("google/gemma-4-E4B-it")
    h, ple, layers = 2560, 256, 42
    assert [i for i in range(layers) if spec.is_kv_shared_layer(i)] == list(range(24, 42))
    kinds = spec.kv_kinds
    assert kinds.count(LayerKind.SLIDING) == 20 and kinds.count(LayerKind.FULL) == 4
    assert kinds.count(LayerKind.NONE) == 18
    assert kv_bytes_per_token(spec, "bf16") == 20 * 2 * 2 * 256 * 2 + 4 * 2 * 2 * 512 * 2 == 57_344
    shared = decoder_layer_params(spec, 30)  # a sliding shared-KV layer: q_proj, q_norm, o_proj only
    assert shared.attention == h * 8 * 256 + 8 * 256 * h
    # the 15 sliding and 3 global shared layers' unused k/v projections and k_norm stay in the checkpoint
    unused = 15 * (2 * h * 2 * 256 + 256) + 3 * (2 * h * 2 * 512 + 512)
    assert parameter_breakdown(spec).attached_not_loaded == unused == 55_055_616
    ple_top = 262_144 * layers * ple + h * layers * ple  # embed_tokens_per_layer + per_layer_model_projection
    assert parameter_breakdown(spec).embedding == 262_144 * h + ple_top
    layer0 = decoder_layer_params(spec, 0)
    assert layer0.dense_mlp == 3 * h * 10240 + 2 * h * ple  # MLP + PLE gate and projection


def test_gemma4_26b_moe_beside_dense_mlp_by_hand() -> None:
    spec = _entry("google/gemma-4-26B-A4B-it")
    h, experts, width = 2816, 128, 704
    layer = decoder_layer_params(spec, 0)
    assert layer.experts == experts * 3 * h * width
    assert layer.dense_mlp == 3 * h * 2112  # the dense MLP runs beside the experts
    router = h * experts + h + experts  # proj, scale, per_expert_scale
    assert layer.small == 2 * 256 + 4 * h + 1 + router + 3 * h  # q/k norm, 4 norms, layer_scalar, 3 MoE norms


# -- Nemotron-H blocks, MiniMax-M2 norms, MTP without embedding copies -------------------------------------------
def test_nemotron_h_blocks_by_hand() -> None:
    spec = _entry("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    counts = spec.layer_kind_counts
    assert (counts["linear"], counts["full"], counts["none"]) == (23, 6, 23)
    moe = decoder_layer_params(spec, 1)  # "E": plain relu2 experts and shared expert, router + bias, one norm
    h = 2688
    assert moe.attention == 0 and moe.experts == 128 * 2 * h * 1856
    assert moe.dense_mlp == 2 * h * 3712 and moe.small == h * 128 + 128 + h
    mamba = decoder_layer_params(spec, 0)
    assert mamba.dense_mlp == 0 and mamba.experts == 0  # a mixer block has no feed-forward
    assert kv_bytes_per_token(spec, "bf16") == 6 * 2 * 2 * 128 * 2
    state = (3 * (64 * 64 + 2 * 8 * 128) + 64 * 64 * 128) * 2
    assert kv_bytes_per_sequence(spec, "bf16", 1000) == 6 * 1000 * 1024 + 23 * state


def test_minimax_m2_qk_norm_over_all_heads() -> None:
    spec = _entry("MiniMaxAI/MiniMax-M2.5")
    layer = decoder_layer_params(spec, 0)
    h = 3072
    assert layer.small == 48 * 128 + 8 * 128 + 2 * h + h * 256 + 256  # q/k norms, 2 norms, router + bias


def test_mtp_without_embedding_copies() -> None:
    glm45, glm46 = parameter_breakdown(_entry("zai-org/GLM-4.5")), parameter_breakdown(_entry("zai-org/GLM-4.6"))
    assert glm45.attached_not_loaded - glm46.attached_not_loaded == 2 * 151_552 * 5120


@pytest.mark.parametrize(
    ("model_id", "total", "active"),
    [
        # The Hub's safetensors totals (the catalog entries' references) and, for MoE models, the card's active count.
        ("meta-llama/Llama-3.1-8B", 8_030_261_248, 8_030_261_248),
        ("meta-llama/Llama-3.1-70B", 70_553_706_496, 70_553_706_496),
        ("Qwen/Qwen3-30B-A3B", 30_532_122_624, 3_353_032_704),  # card: 3.3B activated
        ("openai/gpt-oss-20b", 20_914_757_184, 4_187_440_704),  # card: 3.6B active without embeddings
    ],
)
def test_totals_match_the_hub_and_active_the_card(model_id: str, total: int, active: int) -> None:
    b = parameter_breakdown(_entry(model_id))
    assert (b.total, b.active) == (total, active)


def test_a_dense_layer_by_hand() -> None:
    """Llama 3.1 8B layer: q/o 4096^2 each, k/v 4096 x 1024 each (8 KV heads of 128), gate/up/down 3 x 4096 x 14336,
    two RMSNorms of 4096 (transformers LlamaDecoderLayer)."""
    layer = decoder_layer_params(_entry("meta-llama/Llama-3.1-8B"), 0)
    h = 4096
    assert layer.attention == 2 * h * h + 2 * h * 1024
    assert layer.dense_mlp == 3 * h * 14336
    assert layer.small == 2 * h
