"""config.json to ModelSpec (planner.sources.config, planner.sources.vision) for the late-2026 architectures: each
fixture config reproduces its catalog entry, quantized checkpoints map to their formats, vision towers are counted
from vision_config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_catalog import load_models
from planner.core.kv import kv_bytes_per_token
from planner.core.params import parameter_breakdown
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
    assert spec.mm_prefix_lm == entry.mm_prefix_lm


def test_maverick_text_decoder_from_config() -> None:
    """Llama 4 Maverick: 24 MoE layers (128 experts + shared) interleaved with 24 dense 16,384-wide layers."""
    spec = spec_from_hf_config(_config("meta-llama--Llama-4-Maverick-17B-128E-Instruct"))
    entry = _entry("meta-llama/Llama-4-Maverick-17B-128E-Instruct")
    assert parameter_breakdown(spec).served == parameter_breakdown(entry).served - 871_932_416  # vision: attached
    assert sum(spec.is_moe_layer(i) for i in range(48)) == 24 and spec.is_moe_layer(1) and not spec.is_moe_layer(0)


def test_qwen3_vl_deepstack_vision_tower_by_hand() -> None:
    vision = _config("Qwen--Qwen3-VL-8B-Instruct")["vision_config"]
    h, inner, merged, out = 1152, 4304, 4 * 1152, 4096
    blocks = 27 * (4 * h + 3 * h * h + 3 * h + h * h + h + h * inner + inner + inner * h + h)
    fcs = merged * merged + merged + merged * out + out
    expected = 3 * 2 * 16 * 16 * h + h + 2304 * h + blocks + 2 * h + fcs + 3 * (2 * merged + fcs)
    tower = vision_tower({"vision_config": vision})
    assert tower is not None and tower.parameters == expected == 576_388_336


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
    # Intel's int4-mixed MoE exports: per-layer "bits" in extra_config (vLLM 0.22.0 quantization/inc.py:141-178),
    # 8 on the non-expert layers (planner.core.mixed_formats); 16-bit gates alone keep the plain layout
    mixed = {"bits": 8, "data_type": "int", "group_size": 128, "sym": True}
    gates = {"model.language_model.layers.0.mlp.shared_expert_gate": {"bits": 16, "data_type": "fp"}}
    layers = {**gates, "model.language_model.layers.0.linear_attn.in_proj_qkv": mixed}
    intel = {"quantization_config": {**autoround["quantization_config"], "extra_config": layers}}
    assert quantization_precision({**intel, "text_config": {"num_experts": 256}}) == "int4-mixed-autoround"
    assert quantization_precision(intel) == "int4-autoround"  # a dense model: no MoE layout to read
    plain = {"quantization_config": {**autoround["quantization_config"], "extra_config": gates}}
    assert quantization_precision({**plain, "text_config": {"num_experts": 256}}) == "int4-autoround"
    # cyankiwi's AWQ-INT4 exports (llm-compressor): W4A16 pack-quantized, asymmetric, group 32; the vision tower and
    # the MTP module ignored (search-index file ids 58766832803, 66119884463: "group 32, asymmetric", "vision tower
    # stays bf16"); at group 128 the same layout stays a GPTQ g128 checkpoint
    awq_g32 = {
        "quantization_config": {
            "quant_method": "compressed-tensors",
            "format": "pack-quantized",
            "ignore": ["lm_head", "re:.*visual.*", "re:.*mtp.*"],
            "config_groups": {
                "group_0": {
                    "targets": ["Linear"],
                    "weights": {
                        "num_bits": 4,
                        "type": "int",
                        "group_size": 32,
                        "symmetric": False,
                        "strategy": "group",
                    },
                }
            },
        }
    }
    assert quantization_precision(awq_g32) == "int4-g32"
    awq_g32["quantization_config"]["config_groups"]["group_0"]["weights"]["group_size"] = 128  # type: ignore[index]
    assert quantization_precision(awq_g32) == "int4-gptq"


def test_an_int8_vocabulary_beside_w4a16_is_read_from_its_groups() -> None:
    """syv-ai/qwen38-27b-rtx3090's prepare/quant_lm_head.py adds a ``group_1`` (group_0 copied, 8 bits) targeting
    ``re:.*lm_head$`` and takes lm_head out of ``ignore``; quant_embed.py a ``group_2`` targeting
    ``re:.*embed_tokens$`` (planner.core.vocab_formats). A floating-point 8-bit head is not this layout."""
    w4 = {"num_bits": 4, "type": "int", "symmetric": True, "group_size": 128, "strategy": "group"}
    w8 = {**w4, "num_bits": 8}
    groups = {
        "group_0": {"targets": ["Linear"], "weights": w4},
        "group_1": {"targets": ["re:.*lm_head$"], "weights": w8},
    }
    quant = {"quant_method": "compressed-tensors", "ignore": ["re:.*visual.*", "mtp.fc"], "config_groups": groups}
    assert quantization_precision({"quantization_config": quant}) == "int4-int8head"
    groups["group_2"] = {"targets": ["re:.*embed_tokens$"], "weights": w8}
    assert quantization_precision({"quantization_config": quant}) == "int4-int8vocab"
    groups["group_1"] = {"targets": ["re:.*lm_head$"], "weights": {**w8, "type": "float"}}
    del groups["group_2"]
    assert quantization_precision({"quantization_config": quant}) == "int4-gptq"


def test_a_config_alone_plans_like_the_catalog_model() -> None:
    """Found by an outside review (2026-12-05): 'fit --config' with Gemma 3 27B's own config.json planned the text
    model only (50.59 GiB of weights, 8 conversations where the catalog model holds 7): its SigLIP tower and
    projector are now counted from vision_config (423,060,336, the catalog's), for a file and for an upload."""
    from model_catalog import get_gpu
    from planner.assessment.assess import assess
    from planner.engines.registry import engine_profile
    from planner.planning.plan import PlanRequest
    from planner.sources.config import load_config_file

    path = Path(__file__).parents[1] / "fixtures" / "hub" / "google" / "gemma-3-27b-it" / "config.json"
    spec, entry = load_config_file(path), _entry("google/gemma-3-27b-it")
    assert parameter_breakdown(spec).total == parameter_breakdown(entry).total
    assert [m.parameters for m in spec.attached_modules] == [423_060_336]
    h100 = get_gpu("h100-sxm-80gb")

    def held(model: object) -> int:
        request = PlanRequest(
            model=model,  # type: ignore[arg-type]
            gpu=h100,
            gpu_memory_bytes=h100.memory_bytes_for(True),
            context_tokens=4096,
            overhead=engine_profile("vllm"),
        )
        return assess(request, 20).kv_budget_tokens

    assert held(spec) == held(entry) == 31_945  # 32,057 until the allocator's segment tails were counted
