"""The architectures of the late-2026 catalog models, each checked against a hand computation from its config.

Every figure below is worked out by hand from the config.json fields (``tests/fixtures/configs/``) and the modeling
file cited in ``planner/core/params.py`` / ``planner/core/kv.py``; the catalog entries hold the official totals.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_catalog import load_models
from planner.core.blocks import LayerKind
from planner.core.kv import kv_bytes_per_sequence, kv_bytes_per_token, linear_state_bytes_per_layer
from planner.core.params import decoder_layer_params, parameter_breakdown
from planner.core.weights import weights_bytes
from planner.sources.config import quantization_precision, spec_from_hf_config
from planner.sources.vision import vision_tower

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "configs"
MODELS = load_models()


def _config(name: str) -> dict:
    return json.loads((CONFIGS / f"{name}.json").read_text())


def _entry(model_id: str):
    return MODELS[model_id].spec


# fixture -> catalog entry with the same checkpoint
ROUND_TRIP = {
    "Qwen--Qwen3.5-27B": "Qwen/Qwen3.5-27B",
    "Qwen--Qwen3.5-35B-A3B": "Qwen/Qwen3.5-35B-A3B",
    "Qwen--Qwen3.5-397B-A17B": "Qwen/Qwen3.5-397B-A17B",
    "Qwen--Qwen3.6-35B-A3B": "Qwen/Qwen3.6-35B-A3B",
    "Qwen--Qwen3-VL-8B-Instruct": "Qwen/Qwen3-VL-8B-Instruct",
    "Qwen--Qwen3-VL-30B-A3B-Instruct": "Qwen/Qwen3-VL-30B-A3B-Instruct",
    "google--gemma-4-26B-A4B": "google/gemma-4-26B-A4B-it",
    "moonshotai--Kimi-K2-Instruct": "moonshotai/Kimi-K2-Instruct",
    "deepseek-ai--DeepSeek-V3.2": "deepseek-ai/DeepSeek-V3.2",
    "zai-org--GLM-5": "zai-org/GLM-5",
    "MiniMaxAI--MiniMax-M2.5": "MiniMaxAI/MiniMax-M2.5",
    "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
}


@pytest.mark.parametrize("name", sorted(ROUND_TRIP))
def test_config_json_gives_the_catalog_entry(name: str) -> None:
    """config.json -> ModelSpec (+ the vision tower from vision_config) reproduces the catalog entry exactly."""
    config = _config(name)
    spec = spec_from_hf_config(config, ROUND_TRIP[name])
    tower = vision_tower(config)
    entry = _entry(ROUND_TRIP[name])
    total = parameter_breakdown(spec).total + (tower.parameters if tower else 0)
    assert total == parameter_breakdown(entry).total
    assert kv_bytes_per_token(spec, "bf16") == kv_bytes_per_token(entry, "bf16")
    assert spec.layer_kind_counts == entry.layer_kind_counts
    assert spec.native_dtype == entry.native_dtype


def test_maverick_text_decoder_from_config() -> None:
    """Llama 4 Maverick: 24 MoE layers (128 experts + shared) interleaved with 24 dense 16,384-wide layers."""
    spec = spec_from_hf_config(_config("meta-llama--Llama-4-Maverick-17B-128E-Instruct"))
    entry = _entry("meta-llama/Llama-4-Maverick-17B-128E-Instruct")
    assert parameter_breakdown(spec).served == parameter_breakdown(entry).served - 871_932_416  # vision: attached
    assert sum(spec.is_moe_layer(i) for i in range(48)) == 24 and spec.is_moe_layer(1) and not spec.is_moe_layer(0)


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


def test_qwen3_vl_deepstack_vision_tower_by_hand() -> None:
    vision = _config("Qwen--Qwen3-VL-8B-Instruct")["vision_config"]
    h, inner, merged, out = 1152, 4304, 4 * 1152, 4096
    blocks = 27 * (4 * h + 3 * h * h + 3 * h + h * h + h + h * inner + inner + inner * h + h)
    fcs = merged * merged + merged + merged * out + out
    expected = 3 * 2 * 16 * 16 * h + h + 2304 * h + blocks + 2 * h + fcs + 3 * (2 * merged + fcs)
    tower = vision_tower({"vision_config": vision})
    assert tower is not None and tower.parameters == expected == 576_388_336


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
    assert kv_bytes_per_token(spec, "fp8") == 61 * (576 + 132)


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


# -- weight formats of the new checkpoints ----------------------------------------------------------------------
def test_quantized_checkpoints_map_to_their_formats() -> None:
    assert quantization_precision(_config("nvidia--Qwen3.5-397B-A17B-NVFP4")) == "nvfp4-experts"
    assert quantization_precision(_config("nvidia--Gemma-4-31B-IT-NVFP4")) == "nvfp4-mlp"
    assert quantization_precision(_config("nvidia--MiniMax-M2.5-NVFP4")) == "nvfp4-mlp"
    assert quantization_precision(_config("nvidia--Qwen3.6-27B-NVFP4")) == "nvfp4-fp8attn"
    kimi_int4 = {
        "quantization_config": {
            "quant_method": "compressed-tensors",
            "format": "pack-quantized",
            "ignore": ["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*", "re:.*mlp\\.(gate|up|down)_proj.*"],
            "config_groups": {
                "group_0": {"weights": {"num_bits": 4, "type": "int", "group_size": 32, "symmetric": True}}
            },
        }
    }
    assert quantization_precision(kimi_int4) == "int4-experts"
    autoround = {"quantization_config": {"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": True}}
    assert quantization_precision(autoround) == "int4-autoround"


def test_mixed_formats_weight_bytes_by_hand() -> None:
    spec = _entry("moonshotai/Kimi-K2-Thinking")
    b = parameter_breakdown(spec)
    experts = 60 * 384 * 3 * 7168 * 2048
    assert b.experts == experts
    assert spec.native_dtype == "int4-experts"
    assert weights_bytes(b, "int4-experts") == experts * 9 // 16 + (b.served - experts) * 2  # 4.5 bits vs BF16
    qwen = parameter_breakdown(_entry("Qwen/Qwen3.6-27B"))
    mixed = (qwen.attention * 8 + (qwen.dense_mlp + qwen.lm_head) * 4.5) / 8  # FP8 attention, NVFP4 MLP + head
    rest = (qwen.embedding + qwen.small + qwen.attached_loaded) * 2
    assert weights_bytes(qwen, "nvfp4-fp8attn") == pytest.approx(mixed + rest, abs=1)
    mlp_only = (qwen.dense_mlp * 4.5) / 8 + (qwen.served - qwen.dense_mlp) * 2
    assert weights_bytes(qwen, "nvfp4-mlp") == pytest.approx(mlp_only, abs=1)
