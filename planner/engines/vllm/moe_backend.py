"""The fused-MoE scratch of the experts backend vLLM's oracle picks (tests/fidelity/test_nvfp4_moe_backend_source.py).

Triton (unquantized, FP8) and Marlin (weight-only 4-bit: GPTQ, AWQ, AutoRound, ``W4A16_NVFP4``) take the same two
buffers from the workspace manager (0.24.0 ``experts/triton_moe.py`` ``workspace_shapes``, ``experts/marlin_moe.py``
:711-741): :func:`planner.engines.vllm.terms.moe_workspace_bytes`. A W4A4 NVFP4 checkpoint on compute capability
12.x runs FlashInfer's CUTLASS fused MoE instead (0.22.0 - 0.31.0 ``fused_moe/oracle/nvfp4.py`` backend order, 0.24.0
:165-173; ``experts/flashinfer_cutlass_moe.py:131-143`` family 120, :176-184 NVFP4 on >= 10.0; TRT-LLM and CuteDSL
are family 100 only): vLLM's modular buffer is one ``M x H`` activation tensor
(:func:`flashinfer_cutlass_workspace_bytes`), and FlashInfer allocates its own workspace at every call through
TVM-FFI's environment allocator, PyTorch's under vLLM (``flashinfer_cutlass_fused_moe_binding.cu:853-876``
``alloc_tensor``), freed on return: in the profile's torch peak, not held (:func:`flashinfer_cutlass_scratch_bytes`,
with the FP4-quantized input, :func:`fp4_input_bytes`). On 10.x FlashInfer TRT-LLM goes first (not sized here:
Triton's form stays). NVIDIA's ModelOpt MIXED_PRECISION checkpoints store ``W4A16_NVFP4`` experts, which leave
Marlin alone (0.24.0 ``quantization/modelopt.py:1403-1414``): the planner's ``nvfp4-fp8attn``."""

from __future__ import annotations

import math
from typing import Literal

from planner.core.model import ModelSpec
from planner.core.overhead import DEFAULT_HIDDEN
from planner.core.platform import DevicePlatform
from planner.engines.vllm.terms import moe_workspace_bytes

MoeBackend = Literal["triton", "marlin", "flashinfer_cutlass", "mxfp4"]

# Formats whose experts are NVFP4 weights and activations (W4A4): the ModelOpt NVFP4 algorithm and compressed-tensors
# nvfp4-pack-quantized (planner.core.precision); ``nvfp4-fp8attn`` is W4A16 (Marlin), ``nvfp4-fp8tail`` dense only.
W4A4_NVFP4_FORMATS = frozenset({"nvfp4", "nvfp4-mlp", "nvfp4-experts"})
# Weight-only 4-bit formats whose experts vLLM runs on Marlin (as sized, Triton's form).
_MARLIN_FORMATS = frozenset({"nvfp4-fp8attn", "nvfp4-fp8tail"})
_CUDA_MEM_ALIGN = 128  # kCudaMemAlign (TensorRT-LLM tensorrt_llm/common/workspace.h:22)
_SF_ROWS = 128  # MinNDimAlignmentNVFP4: an expert's scale rows padded to 128 (moe_gemm_kernels.h:108)


def moe_backend_of(weights_format: str, platform: DevicePlatform | None, read: bool) -> MoeBackend:
    """The experts backend of ``weights_format`` on ``platform`` (module docstring); ``read``: the release's oracle was
    read at the source (rule ``nvfp4_moe_flashinfer_sm12``), else a W4A4 checkpoint keeps the Triton form."""
    capability = platform.capability if platform else None
    if weights_format == "mxfp4":
        return "mxfp4"  # gpt-oss's MXFP4 experts: no workspace-manager buffer counted
    if weights_format in W4A4_NVFP4_FORMATS:
        if capability is None or capability < (10, 0):
            return "marlin"  # no native FP4: the last backend before emulation
        # 10.x runs FlashInfer TRT-LLM first, and a release not read may differ: Triton's form, not sized here
        return "flashinfer_cutlass" if read and capability[0] == 12 else "triton"
    return "marlin" if weights_format in _MARLIN_FORMATS else "triton"


def _aligned(size: int) -> int:
    return -(-size // _CUDA_MEM_ALIGN) * _CUDA_MEM_ALIGN  # calculateTotalWorkspaceSize (workspace.h:64-72)


def _tokens_per_block(tokens: int, experts: int) -> int:
    """``computeNumTokensPerBlock`` (FlashInfer 0.6.12 ``cutlass_fused_moe_kernels.cuh:586-595``)."""
    size = 32
    while size <= 1024:
        if math.ceil(tokens / size) * experts <= size:
            return size
        size *= 2
    return 1024


def flashinfer_cutlass_scratch_bytes(tokens: int, hidden: int, inter: int, experts: int, topk: int) -> int:
    """FlashInfer's per-call workspace of its CUTLASS fused MoE on NVFP4 (bf16 output) for ``tokens`` rows:
    TensorRT-LLM's ``CutlassMoeFCRunner::getWorkspaceDeviceBufferSizes`` (FlashInfer 0.6.12
    ``cutlass_fused_moe_kernels.cuh:2572-2740``, identical in the 0.6.11.post2, 0.6.13 and 0.6.16.post3 vLLM 0.22.0 -
    0.28.0 pin; 0.6.18 adds buffers of SM 90 mixed-input and W4A8 only; not min-latency, gated, finalize fused) plus the
    binding's ``src_to_dest_map`` (``flashinfer_cutlass_fused_moe_binding.cu:853-876``), each buffer aligned to 128
    bytes. The per-expert TMA pointer arrays and the grouped GEMM's own workspace (a few hundred KiB at 256 experts,
    ``moe_gemm_tma_warp_specialized_input.cu:26-79``) are left out. ``inter``: the intermediate size a rank."""
    rows = topk * tokens  # num_moe_inputs
    blocks = math.ceil(tokens / _tokens_per_block(tokens, experts))
    sf_rows = _aligned(min(rows, tokens * experts) + experts * (_SF_ROWS - 1))  # getOffsetActivationSF, last expert
    sizes = (
        rows * 4,  # permuted_row_to_unpermuted_row
        rows * 4,  # permuted_token_selected_experts
        experts * blocks * 4,  # blocked_expert_counts
        experts * blocks * 4,  # blocked_expert_counts_cumsum
        experts * tokens * 4,  # blocked_row_to_unpermuted_row
        (experts + 1) * 8,  # expert_first_token_offset
        rows * 4,  # permuted_token_final_scales
        max(rows * hidden // 2, rows * hidden * 2, rows * inter // 2),  # FP4 permuted input / bf16 fc2 / FP4 fc1
        max(rows * 2 * inter * 2, rows * hidden * 2, rows * inter // 2),  # bf16 GLU input / bf16 fc2 / FP4 fc1
        experts * 8,  # alpha_scale_ptr_array_fc1
        experts * 8,  # alpha_scale_ptr_array_fc2
        sf_rows * math.ceil(max(hidden, inter) / 64) * 64 // 16,  # fp4_act_scale: an e4m3 a 16 of the larger K
        rows * 4,  # src_to_dest_map
    )
    return sum(_aligned(size) for size in sizes)


def fp4_input_bytes(tokens: int, hidden: int) -> int:
    """The experts' FP4-quantized input the prepare step makes: ``tokens x hidden / 2`` packed values and one e4m3
    scale a 16, swizzled to 128-row by 4-column tiles (0.24.0 ``_custom_ops.py:1580-1650`` ``scaled_fp4_quant``)."""
    scales = math.ceil(tokens / 128) * 128 * math.ceil(hidden / 64) * 4
    return tokens * hidden // 2 + scales


def flashinfer_cutlass_workspace_bytes(model: ModelSpec, tokens: int, act_bytes: int) -> int:
    """vLLM's modular buffer for FlashInfer's CUTLASS experts: workspace13 ``(M, K)`` and the output ``(M, 2K)`` for
    packed FP4 ``K = H / 2`` share one ``M x H`` activation tensor (0.24.0 ``flashinfer_cutlass_moe.py:236-246``,
    ``modular_kernel.py:1093-1100``), workspace2 empty."""
    return tokens * (model.hidden_size or DEFAULT_HIDDEN) * act_bytes


def moe_scratch_bytes(
    model: ModelSpec, backend: str, tokens: int, tp: int, act_bytes: int, layers: range
) -> tuple[int, int]:
    """``(per call, held)``: the fused-MoE scratch freed inside the forward and the buffer the workspace manager holds,
    for ``backend`` (:func:`moe_backend_of`) at ``tokens`` rows a rank; ``(0, 0)`` without MoE layers."""
    moe = model.moe
    if moe is None or backend == "mxfp4" or not any(model.is_moe_layer(i) for i in layers):
        return 0, 0
    if backend != "flashinfer_cutlass":
        return 0, moe_workspace_bytes(model, tokens, tp, act_bytes, layers)
    hidden = model.hidden_size or DEFAULT_HIDDEN
    inter = math.ceil(moe.moe_intermediate_size / tp)
    scratch = flashinfer_cutlass_scratch_bytes(tokens, hidden, inter, moe.num_experts, moe.num_experts_per_tok)
    return scratch + fp4_input_bytes(tokens, hidden), flashinfer_cutlass_workspace_bytes(model, tokens, act_bytes)
