"""Weights as an engine's loader leaves them on one GPU, beyond the checkpoint's bytes, by platform.

What "Model loading took X GiB" counts is the torch memory after ``process_weights_after_loading``, so repacking
for a fallback kernel shows in it (vLLM; SGLang shares the kernels):

- **MXFP4 MoE experts** (gpt-oss): Marlin on Ampere and Ada pads the per-rank intermediate size to a multiple of
  128 and the hidden size to 256 (``mxfp4_round_up_hidden_size_and_intermediate_size``, 0.29.0
  ``model_executor/layers/fused_moe/oracle/mxfp4.py:713-767``); the Hopper path of the 0.19 logs pads the same
  (gpt-oss-20b TP 2 prints 7.01 GiB: 1440 -> 1536, 2880 -> 3072); datacenter Blackwell's (capability 10.x)
  FlashInfer TRTLLM path pads both to 256. gpt-oss-20b on one A100: x 3072 x 2944 / 2880^2 on the experts, 13.72
  GiB printed. Capability 12.x (RTX 50, DGX Spark GB10) runs Marlin too: TRTLLM needs the 10.x family, OpenAI's
  Triton kernels 9.0 <= capability < 11.0, FlashInfer CUTLASS's W-MXFP4/A16 9.0 (0.30.0 ``fused_moe/oracle/mxfp4.py``
  :332-354, ``experts/trtllm_mxfp4_moe.py`` :123-125, ``gpt_oss_triton_kernels_moe.py`` :36-48,
  ``flashinfer_cutlass_moe.py`` :129-181; the same order in 0.22.0 :270-289); the 0.30.0 GB10 log prints 13.8 GiB.
- **Block-FP8 on GPUs without FP8 (compute capability < 8.9)**: Marlin W8A16 keeps the FP8 bytes and turns the
  fp32 128 x 128 block scales into 16-bit scales per output channel and group of 128 inputs
  (``prepare_fp8_layer_for_marlin``, 0.29.0 ``model_executor/layers/quantization/utils/marlin_utils_fp8.py:107-190``):
  ``2 / 128 - 4 / 128^2`` bytes more per FP8 weight (~1.5 %). Per-tensor or per-channel FP8 grows negligibly.
- **NVFP4 before Blackwell**: Marlin FP4 keeps the 4-bit values and re-encodes the FP8 group-16 scales to 8 bits
  (``nvfp4_marlin_process_scales``, ``utils/marlin_utils_fp4.py:61-120``): no growth.
- **An MTP head NVIDIA's ModelOpt mixed exports leave in BF16**: nvidia/Qwen3.6-27B-NVFP4's ``hf_quant_config``
  ignores ``mtp*`` ("the mtp.* head kept UNQUANTIZED", club-3090 ``scripts/lib/profiles/models/qwen3.6-27b.yml``),
  and vLLM loads it as stored; the drafter of :mod:`planner.deploy.speculative` is sized at the target's precision,
  so the difference is added here. The GB10 log of that checkpoint with MTP 2 prints 20.57 GiB, 0.6 GiB above the
  planned NVFP4 head.
"""

from __future__ import annotations

import math
from fractions import Fraction

from planner.core.overhead import LoadContext
from planner.core.params import mtp_params, parameter_breakdown
from planner.core.precision import weight_format
from planner.core.weights import category_bits

MARLIN_FP8_SCALE_BYTES = Fraction(2, 128) - Fraction(4, 128 * 128)  # per FP8 weight (module docstring)


def _round_up(value: int, multiple: int) -> int:
    return math.ceil(value / multiple) * multiple


def mxfp4_padding_bytes(ctx: LoadContext) -> int:
    """MXFP4 experts padded by the MoE kernels (module docstring); 0 for other weights."""
    model = ctx.model
    moe = model.moe
    if ctx.weights_format != "mxfp4" or moe is None or model.hidden_size is None:
        return 0
    trtllm = ctx.platform is not None and ctx.platform.sm100_family  # FlashInfer TRTLLM; Marlin elsewhere
    inter = moe.moe_intermediate_size // (ctx.expert_gpus or ctx.tensor_parallel)  # shared ranks: dp x tp
    inter_pad = _round_up(inter, 256 if trtllm else 128)
    hidden = model.hidden_size
    hidden_pad = _round_up(hidden, 256)
    per_expert = 3 * inter * hidden
    per_expert_pad = 3 * inter_pad * hidden_pad
    moe_layers = sum(1 for i in range(*ctx.layers) if model.is_moe_layer(i))
    bits = weight_format("mxfp4").bits_per_weight
    return math.ceil((per_expert_pad - per_expert) * moe.num_experts * moe_layers * bits / 8)


def marlin_fp8_scale_bytes(ctx: LoadContext) -> int:
    """Block-FP8 weights on a GPU without FP8 (module docstring): the 16-bit per-channel scales Marlin keeps."""
    platform = ctx.platform
    if ctx.weights_format != "fp8" or platform is None or platform.capability is None or platform.fp8_native:
        return 0
    model = ctx.model
    params = parameter_breakdown(model)
    bits = category_bits(weight_format("fp8"), params.experts > 0)
    fp8 = sum(Fraction(int(getattr(params, name))) for name in ("attention", "dense_mlp") if bits[name] < 16)
    experts = Fraction(params.experts) if bits["experts"] < 16 else Fraction(0)
    per_gpu = fp8 / ctx.tensor_parallel + experts / (ctx.expert_gpus or ctx.tensor_parallel)  # shared ranks: dp x tp
    share = Fraction(ctx.layers[1] - ctx.layers[0], max(1, model.num_hidden_layers))
    return math.ceil(per_gpu * share * MARLIN_FP8_SCALE_BYTES)


def bf16_mtp_extra_bytes(ctx: LoadContext) -> int:
    """The MTP head of a ModelOpt mixed checkpoint (``nvfp4-fp8attn``) in BF16 rather than at the target's bits
    (module docstring), on one GPU of the last stage; 0 without an MTP drafter."""
    if ctx.drafter != "mtp" or ctx.weights_format != "nvfp4-fp8attn" or not ctx.is_last_stage:
        return 0
    params = mtp_params(ctx.model)
    quantized = Fraction(weight_format("nvfp4-fp8attn").bits_per_weight)
    return math.ceil(params * (16 - quantized) / 8 / ctx.tensor_parallel)


def kernel_padding_bytes(ctx: LoadContext) -> int:
    """Bytes the MoE and Marlin kernels' repacking adds to the checkpoint's weights on one GPU (MXFP4 expert
    padding, Marlin's FP8 scales before Ada): what vLLM and SGLang, which share these kernels, both load."""
    return mxfp4_padding_bytes(ctx) + marlin_fp8_scale_bytes(ctx)
