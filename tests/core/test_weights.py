"""Weight bytes (planner.core.weights) of mixed-format checkpoints, by hand from their quantization configs."""

from __future__ import annotations

import pytest

from model_catalog import load_models
from planner.core.model import ModelSpec
from planner.core.params import layer_breakdowns, parameter_breakdown
from planner.core.weights import weights_bytes

MODELS = load_models()


def _entry(model_id: str):
    return MODELS[model_id].spec


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


def test_a_16_bit_checkpoint_is_two_bytes_a_parameter() -> None:
    """Llama 3.1 8B: 8,030,261,248 parameters (the Hub's safetensors total) x 2 bytes."""
    b = parameter_breakdown(_entry("meta-llama/Llama-3.1-8B"))
    assert weights_bytes(b, "bf16") == 2 * 8_030_261_248 == 16_060_522_496


def test_awq_and_gptq_store_scales_beside_the_4_bit_values() -> None:
    """AutoAWQ / GPTQ at group 128: 4-bit values, an FP16 scale and a 4-bit zero per group of 128 input weights
    (4 + 20 / 128 = 4.15625 bits); only the decoder's linear layers are quantized, embeddings and lm_head stay BF16."""
    b = parameter_breakdown(_entry("meta-llama/Llama-3.1-8B"))
    linear = b.attention + b.dense_mlp
    expected = linear * 4.15625 / 8 + (b.served - linear) * 2
    assert weights_bytes(b, "int4-awq") == pytest.approx(expected, abs=1)
    assert weights_bytes(b, "int4-gptq") == weights_bytes(b, "int4-awq")


def test_mxfp4_quantizes_the_experts_only() -> None:
    """gpt-oss ships MXFP4 experts (4-bit values with one 8-bit exponent per 32: 4.25 bits) and BF16 for the rest
    (model card; config.json quantization_config.modules_to_not_convert)."""
    b = parameter_breakdown(_entry("openai/gpt-oss-20b"))
    assert b.experts + b.embedding + b.lm_head + b.attention + b.small == 20_914_757_184  # the Hub's total
    expected = b.experts * 4.25 / 8 + (b.served - b.experts) * 2
    assert weights_bytes(b, "mxfp4") == pytest.approx(expected, abs=1)


def test_seed_figures_in_gigabytes() -> None:
    """Memory Planning for LLMs: 8B parameters are 16.0 GB in FP16 and 4.0 GB in 4-bit; 70B are 70.0 GB in 8-bit
    (the idealised formats int4 / int8 of the reference planner)."""
    eight = parameter_breakdown(_entry("meta-llama/Llama-3.1-8B")).model_copy()
    assert weights_bytes(eight, "fp16") / 1e9 == pytest.approx(16.06, abs=0.01)
    assert weights_bytes(eight, "int4") / 1e9 == pytest.approx(4.02, abs=0.01)


def test_a_w4a16_group_32_export_is_its_shards() -> None:
    """cyankiwi/Qwen3.8-27B-AWQ-INT4 (compressed-tensors W4A16, asymmetric, group 32; the vision tower and the MTP
    module in BF16): its 5 shards hold 21.018 GB (2.543 + 4.968 + 4.997 + 4.976 + 3.534, search-index file id
    69180972023). The linear layers at 4 + (16 + 4) / 32 bits with the 16-bit embedding, lm_head, vision tower and
    MTP module come within 0.5 %; the g128 AWQ count is 10 % short (what the vLLM start-ups of that checkpoint
    showed: tests/fidelity, bench/fidelity_unmatched.py history)."""
    from planner.deploy.speculative import mtp_bytes

    spec = _entry("Qwen/Qwen3.8-27B")
    b = parameter_breakdown(spec)
    shards = 21_018_000_000
    g32 = weights_bytes(b, "int4-g32") + mtp_bytes(spec, "int4-g32")
    assert mtp_bytes(spec, "int4-g32") == 2 * b.attached_not_loaded  # the MTP module at 16 bits
    assert abs(g32 / shards - 1) < 0.005
    assert (weights_bytes(b, "int4-awq") + mtp_bytes(spec, "int4-awq")) / shards < 0.91


@pytest.mark.parametrize("fmt", ["nvfp4-experts", "int4-experts"])
def test_an_experts_only_layout_is_refused_on_a_dense_model(fmt: str) -> None:
    """NVFP4-experts and INT4-experts name MoE checkpoints whose routed experts alone are quantized; a dense model
    has none, and planning them as every linear layer quantized (as they were) offered "NVFP4 experts only" for
    Llama-3.1-8B at nvfp4's 5.4 GiB. A request for one is invalid input (pydantic's ValidationError, a ValueError),
    named, with the format that says it; the engines' option lists leave them out. MXFP4 stays: dense MXFP4 W4A4
    checkpoints exist (compressed-tensors; tests/fidelity/cases/vllm-blind-2026-12m.json names one)."""
    from model_catalog import get_gpu
    from planner.engines.registry import weights_run
    from planner.planning.request import PlanRequest

    dense = _entry("meta-llama/Llama-3.1-8B")
    with pytest.raises(ValueError, match=f"Llama 3.1 8B has no routed experts, which {fmt} alone quantizes"):
        PlanRequest(model=dense, gpu_memory_bytes=80 * 2**30, weights=fmt)
    PlanRequest(model=_entry("openai/gpt-oss-20b"), gpu_memory_bytes=80 * 2**30, weights=fmt)  # an MoE: fine
    PlanRequest(model=dense, gpu_memory_bytes=80 * 2**30, weights="mxfp4")
    for engine in ("vllm", "sglang", "generic"):
        assert fmt not in weights_run(engine, get_gpu("b200-sxm"), moe=False)
        assert fmt in weights_run(engine, get_gpu("b200-sxm"), moe=True)


def test_unsloths_mixed_nvfp4_export_is_its_checkpoint() -> None:
    """unsloth/Qwen3.8-27B-NVFP4 (compressed-tensors ``mixed-precision``): FP8 W8A8 on every attention and
    linear-attention projection, the lm_head and the MLPs of the last eight layers (56-63), NVFP4 on the other MLPs,
    the vision tower and the MTP module unquantized (the README of the WSL2 RTX 5090 start-ups, search-index file id
    60293000203, its 'group_0 / group_1' table). That README gives the checkpoint as 22.5 GB beside an 811 MB MTP
    head; another user's notes 'about 23.4 GB' with the MTP module (file id 61657431155). The layout counts 22.54 GB
    without the MTP module (BF16: 0.85 GB), where NVIDIA's mixed layout (NVFP4 lm_head and MLPs) counts 21.05,
    1.39 GiB less: what the planner loaded for this checkpoint until 2026-12-06."""
    from planner.core.weights import model_weights_bytes
    from planner.deploy.speculative import mtp_bytes

    spec = _entry("Qwen/Qwen3.8-27B")
    b = parameter_breakdown(spec)
    tail = sum(layer.dense_mlp for layer in layer_breakdowns(spec)[56:])
    by_hand = (b.attention + b.lm_head + tail) * 8 + (b.dense_mlp - tail) * 4.5
    by_hand += (b.embedding + b.small + b.attached_loaded) * 16
    stored = model_weights_bytes(spec, "nvfp4-fp8tail")
    assert stored == pytest.approx(by_hand / 8, abs=2)
    assert abs(stored / 22.5e9 - 1) < 0.005
    assert abs((stored + mtp_bytes(spec, "nvfp4-fp8tail")) / 23.4e9 - 1) < 0.005
    assert mtp_bytes(spec, "nvfp4-fp8tail") == 2 * b.attached_not_loaded  # the MTP module at 16 bits
    assert (stored - weights_bytes(b, "nvfp4-fp8attn")) / 2**30 == pytest.approx(1.39, abs=0.01)


def test_a_layout_with_a_tail_counts_it_in_the_stage_that_holds_it() -> None:
    """The FP8 tail is in the last pipeline stage's layers only; every stage together holds the whole checkpoint."""
    from planner.core.weights import model_weights_bytes, stage_weights_bytes_per_gpu

    spec = _entry("Qwen/Qwen3.8-27B")
    b, layers = parameter_breakdown(spec), layer_breakdowns(spec)
    first = stage_weights_bytes_per_gpu(spec, layers, b, "nvfp4-fp8tail", 1, range(0, 32), True, False)
    last = stage_weights_bytes_per_gpu(spec, layers, b, "nvfp4-fp8tail", 1, range(32, 64), False, True)
    plain_last = stage_weights_bytes_per_gpu(spec, layers, b, "nvfp4-fp8attn", 1, range(32, 64), False, True)
    plain_first = stage_weights_bytes_per_gpu(spec, layers, b, "nvfp4-fp8attn", 1, range(0, 32), True, False)
    assert first == plain_first
    tail = sum(layer.dense_mlp for layer in layers[56:])
    lm_head = b.lm_head * 3.5 / 8
    assert last - plain_last == pytest.approx(tail * 3.5 / 8 + lm_head, abs=2)
    assert first + last == pytest.approx(model_weights_bytes(spec, "nvfp4-fp8tail"), abs=2)


def test_a_layout_read_from_a_dense_checkpoint_is_refused_on_a_mixture_of_experts_model() -> None:
    """unsloth's tail of FP8 MLPs is read from a dense checkpoint; which of a MoE model's experts it would keep is not
    in any source, so a MoE request for it is invalid input, and the engines leave it out there."""
    from model_catalog import get_gpu
    from planner.engines.registry import weights_run
    from planner.planning.request import PlanRequest

    moe = _entry("openai/gpt-oss-20b")
    with pytest.raises(ValueError, match="read from a dense checkpoint"):
        PlanRequest(model=moe, gpu_memory_bytes=80 * 2**30, weights="nvfp4-fp8tail")
    assert "nvfp4-fp8tail" not in weights_run("vllm", get_gpu("rtx-5090"), moe=True)
    assert "nvfp4-fp8tail" in weights_run("vllm", get_gpu("rtx-5090"), moe=False)


def test_a_hybrid_replicates_kv_heads_in_its_attention_layers_only() -> None:
    """Qwen3-Next at TP 4 (2 KV heads of 256): each rank holds one whole KV head in each of its 12 full-attention
    layers (vLLM 0.24.0 ``model_executor/layers/linear.py:970``, ``num_kv_head_replicas = tp // kv heads``; the
    ``QKVParallelLinear`` of ``Qwen3NextAttention``, ``models/qwen3_next.py:246-250``), and none in its 36 Gated
    DeltaNet layers, which project no KV heads (:398-410). One whole head a rank is what 4 KV heads split over 4
    ranks give too, so the two weigh the same a GPU; counting the replication in all 48 layers put 36 x 2 x 2,048 x
    128 x 2 = 37,748,736 bytes more on each rank of the 2-head model."""
    from planner.core.weights import stage_weights_bytes_per_gpu

    spec = _entry("Qwen/Qwen3-Next-80B-A3B-Instruct")
    wide = spec.model_copy(update={"num_key_value_heads": 4})

    def per_gpu(model: ModelSpec) -> int:
        b, layers = parameter_breakdown(model), layer_breakdowns(model)
        return stage_weights_bytes_per_gpu(model, layers, b, "bf16", 4, range(48), True, True)

    assert sum(kind == "full" for kind in spec.layers) == 12
    assert per_gpu(spec) == per_gpu(wide)


def test_intels_int4_mixed_moe_layout_keeps_the_non_expert_layers_in_int8() -> None:
    """Intel's ``int4-mixed`` AutoRound MoE checkpoints (Intel/Qwen3.6-35B-A3B-int4-mixed-AutoRound): the routed
    experts INT4 group 128 in the auto_gptq packing (4 + (16 + 4) / 128 bits), every other decoder linear layer
    (attention, Gated DeltaNet projections, the shared expert) INT8 group 128 in the same packing (8 + (16 + 8) / 128
    = 8.1875 bits), routers, embeddings, lm_head and the vision tower in 16 bits (planner.core.mixed_formats).
    Qwen3.6-35B-A3B: 1.29 + 0.13 billion non-expert linear weights, 0.66 GiB more than at 4 bits."""
    qwen = parameter_breakdown(_entry("Qwen/Qwen3.6-35B-A3B"))
    four, eight = 4 + 20 / 128, 8 + 24 / 128
    rest = (qwen.embedding + qwen.lm_head + qwen.small + qwen.attached_loaded) * 2
    by_hand = qwen.experts * four / 8 + (qwen.attention + qwen.dense_mlp) * eight / 8 + rest
    assert weights_bytes(qwen, "int4-mixed-autoround") == pytest.approx(by_hand, abs=1)
    more = weights_bytes(qwen, "int4-mixed-autoround") - weights_bytes(qwen, "int4-autoround")
    assert more / 2**30 == pytest.approx(0.66, abs=0.005)
