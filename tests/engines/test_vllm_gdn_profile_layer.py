"""A Gated DeltaNet layer's own peak in vLLM's profile run (`terms.gdn_profile_layer_bytes_per_token`;
issue 20). The profile builds no attention metadata, so the mixer's core returns after a 64-token warm-up (0.24.0
``model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py:1278-1280``, ``:1068-1120``) and the layer holds the
``in_proj_qkvz`` output, the zeroed core output, the gated norm's output (:908-968, :851-869), the ``out_proj``
result and the decoder layer's residual, normalized input and output buffer (``models/qwen3_next.py:466-478``). For
Qwen3.6-35B-A3B (hidden 2,048; 16 key and 32 value heads of 128) that is 57,344 bytes a token at TP 1, against the
fitted forward's 29,459 (12.8843 x 2,048 + 6 x the 512-wide shared expert): a hybrid MoE's dense part is small and
its mixer's projections wide. For the dense Qwen3.6-27B (hidden 5,120, 48 value heads) 98,304 against the fitted
forward's 170,416: unchanged. Exact integers (shapes read from the catalog's configs)."""

from __future__ import annotations

from model_catalog import get_model
from planner.core.units import GiB
from planner.engines.vllm.terms import forward_bytes, gdn_profile_layer_bytes_per_token
from planner.engines.vllm.versions import fitted_constants

MOE = get_model("Qwen/Qwen3.6-35B-A3B").spec
DENSE = get_model("Qwen/Qwen3.6-27B").spec


def test_hybrid_moe_layer_per_token() -> None:
    # (2 x 2,048 + 2 x 4,096) q, k, v, z + 2 x 4,096 core and norm outputs + 4 x 2,048, in 16 bits
    assert gdn_profile_layer_bytes_per_token(MOE, 1) == 2 * (12_288 + 8_192 + 8_192) == 57_344
    assert gdn_profile_layer_bytes_per_token(MOE, 2) == 2 * ((12_288 + 8_192) // 2 + 8_192) == 36_864


def test_hybrid_moe_forward_takes_the_layer() -> None:
    """The RTX 5090 Qwen3.6-35B-A3B boots' profile batch (8,192 tokens, TP 1, bf16): the forward 0.22 -> 0.44 GiB."""
    constants = fitted_constants()
    assert forward_bytes(MOE, 8_192, 1, 2, constants) == 8_192 * 57_344
    assert round(8_192 * 57_344 / GiB, 2) == 0.44
    fitted = round(8_192 * (constants.forward_bytes_per_hidden * 2_048 + 6 * 512))
    assert round(fitted / GiB, 2) == 0.22


def test_dense_hybrid_forward_unchanged() -> None:
    constants = fitted_constants()
    assert gdn_profile_layer_bytes_per_token(DENSE, 1) == 2 * (16_384 + 12_288 + 20_480) == 98_304
    fitted = constants.forward_bytes_per_hidden * 5_120 + 6 * 17_408
    assert fitted > 98_304
    assert forward_bytes(DENSE, 8_192, 1, 2, constants) == round(8_192 * fitted)


def test_no_linear_attention_no_layer() -> None:
    assert gdn_profile_layer_bytes_per_token(get_model("Qwen/Qwen3-8B").spec, 1) == 0
