"""The NVFP4 fused-MoE path by backend, read at the source (issue 20, the Qwen3.6-35B-A3B NVFP4 band).

- Which backend: vLLM's oracle tries FlashInfer TRT-LLM, the two CuteDSL kernels, FlashInfer CUTLASS, vLLM CUTLASS,
  Marlin in that order (0.24.0 ``fused_moe/oracle/nvfp4.py:165-173``, the same list 0.22.0 - 0.31.0). A W4A4
  checkpoint (weights ``kNvfp4Static``, activations ``kNvfp4Dynamic``) takes FlashInfer CUTLASS on compute
  capability 12.x (``experts/flashinfer_cutlass_moe.py:131-143`` family 120, :176-184 the scheme on >= 10.0;
  TRT-LLM and CuteDSL are family 100 only, ``trtllm_nvfp4_moe.py:113-120``, ``flashinfer_cutedsl_moe.py:69-75``).
  NVIDIA's ModelOpt MIXED_PRECISION checkpoints (the planner's ``nvfp4-fp8attn``: nvidia/Qwen3.6-35B-A3B-NVFP4,
  nvidia/Qwen3.6-27B-NVFP4) store ``W4A16_NVFP4``: the MoE asks with no activation key, every W4A4 backend refuses
  and only Marlin is left (``quantization/modelopt.py:1403-1414``), on every device. The corpus agrees: the 0.29.0
  RTX 5090 boot of that checkpoint logs Marlin's weight-only FP4 warning (``kernels/linear/nvfp4/marlin.py:34``) on a
  card with native FP4, and issue #49476's Marlin arm is the oracle's pick for it.
- Marlin's buffers (``marlin_moe.py:711-741``, N the intermediate size a rank, ``moe_problem_size`` :673-698) are
  ``M x topk x max(N, K)`` and ``M x topk x max(2N, K)``: the planned ``moe_workspace_bytes``. So every scored NVFP4
  MoE boot of the band (all ``nvfp4-fp8attn``) already has its backend's workspace; the ~0.18 GiB a rank the NVFP4
  arm holds beyond the AutoRound arm (both Marlin) is not the MoE workspace.
- FlashInfer CUTLASS (W4A4 on 12.x): vLLM's modular buffer is ``(M, K)`` with the output ``(M, 2K)`` for packed FP4
  ``K = H / 2`` (:236-246), one ``M x H`` bf16 buffer from the workspace manager (``modular_kernel.py:1093-1100``),
  plus FlashInfer's own per-call workspace, allocated through TVM-FFI's environment allocator (torch's under PyTorch:
  ``alloc_tensor``, ``flashinfer_cutlass_fused_moe_binding.cu:853-876``), sized by TensorRT-LLM's
  ``CutlassMoeFCRunner::getWorkspaceDeviceBufferSizes`` (FlashInfer 0.6.12 = vLLM 0.24.0's pin and 0.6.13 = 0.25.1's,
  identical: ``cutlass_fused_moe_kernels.cuh:2572-2740``)."""

from __future__ import annotations

from bench.fidelity_cases import load_cases
from model_catalog import get_gpu, get_model
from planner.core.overhead import StageContext
from planner.core.units import GiB
from planner.engines.vllm.moe_backend import (
    flashinfer_cutlass_scratch_bytes,
    fp4_input_bytes,
    moe_backend_of,
)
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.terms import moe_workspace_bytes

MIB = 1 << 20
TOKENS = 8192  # max_num_batched_tokens of every boot of the band
HIDDEN, INTER, EXPERTS, TOPK = 2048, 512, 256, 8  # Qwen3.6-35B-A3B
MARLIN_0_29 = "vllm-0.29-rtx5090-wsl-qwen36-35b-a3b-nvfp4-util082"


def _align(n: int) -> int:
    return -(-n // 128) * 128  # kCudaMemAlign (tensorrt_llm/common/workspace.h:22, :64-72)


def test_the_band_runs_marlin_whose_workspace_is_the_planned_one() -> None:
    cases = {c["id"]: c for c in load_cases()}
    assert "Weight-only FP4 compression will be used leveraging the Marlin kernel" in cases[MARLIN_0_29]["verbatim"][0]
    band = [c for c in cases.values() if "qwen36-35b-a3b-nvfp4" in c["id"] and c["engine_version"] >= "0.22"]
    assert {c["setup"]["weights"] for c in band} == {"nvfp4-fp8attn"}
    rtx5090 = get_gpu("rtx-5090").platform
    assert moe_backend_of("nvfp4-fp8attn", rtx5090, True) == "marlin"
    model = get_model("Qwen/Qwen3.6-35B-A3B").spec
    for tp in (1, 2):
        n = INTER // tp
        marlin = TOKENS * TOPK * (max(n, HIDDEN) + max(2 * n, HIDDEN)) * 2  # marlin_moe.py:737-738, bf16
        assert moe_workspace_bytes(model, TOKENS, tp, 2, range(40)) == marlin == GiB // 2


def test_flashinfer_cutlass_workspace_from_tensorrt_llm_runner() -> None:
    rows = TOPK * TOKENS  # num_moe_inputs (not min-latency)
    for tp in (1, 2):  # fc2's bf16 result (rows x H) bounds both overlapped pairs at either split
        inter = INTER // tp
        blocks = -(-TOKENS // 1024)  # computeNumTokensPerBlock: 1024 (8 blocks x 256 experts > 512)
        sf_rows = _align(min(rows, TOKENS * EXPERTS) + EXPERTS * 127)  # getOffsetActivationSF at the last expert
        sizes = [
            rows * 4,  # permuted_row_to_unpermuted_row
            rows * 4,  # permuted_token_selected_experts
            EXPERTS * blocks * 4,  # blocked_expert_counts
            EXPERTS * blocks * 4,  # blocked_expert_counts_cumsum
            EXPERTS * TOKENS * 4,  # blocked_row_to_unpermuted_row
            (EXPERTS + 1) * 8,  # expert_first_token_offset
            rows * 4,  # permuted_token_final_scales (finalize fused from SM 90)
            max(rows * HIDDEN // 2, rows * HIDDEN * 2, rows * inter // 2),  # FP4 permuted / bf16 fc2 / FP4 fc1
            max(rows * 2 * inter * 2, rows * HIDDEN * 2, rows * inter // 2),  # bf16 GLU input / fc2 / FP4 fc1
            EXPERTS * 8,  # alpha_scale_ptr_array_fc1
            EXPERTS * 8,  # alpha_scale_ptr_array_fc2
            sf_rows * HIDDEN // 16,  # fp4_act_scale: one e4m3 a 16 (fc1's K = hidden > fc2's)
        ]
        total = sum(_align(s) for s in sizes) + _align(rows * 4)  # + src_to_dest_map (binding :861)
        assert flashinfer_cutlass_scratch_bytes(TOKENS, HIDDEN, inter, EXPERTS, TOPK) == total
        assert round(total / MIB, 2) == 532.99  # Triton's form: 512 MiB
    assert fp4_input_bytes(TOKENS, HIDDEN) == TOKENS * HIDDEN // 2 + TOKENS * HIDDEN // 16  # _custom_ops.py:1580-1650


def test_the_planner_sizes_the_backend_the_oracle_picks() -> None:
    model = get_model("Qwen/Qwen3.6-35B-A3B").spec
    profile = VllmProfile(engine_version="0.24.0", max_num_batched_tokens=TOKENS, max_num_seqs=1)
    rtx5090, a6000 = get_gpu("rtx-5090"), get_gpu("rtx-a6000")
    assert moe_backend_of("nvfp4", rtx5090.platform, True) == "flashinfer_cutlass"
    assert moe_backend_of("nvfp4", rtx5090.platform, False) == "triton"  # a release not read: the form kept
    assert moe_backend_of("nvfp4", a6000.platform, True) == "marlin"  # no native FP4 below 10.0
    assert moe_backend_of("bf16", rtx5090.platform, True) == "triton"

    def terms(weights: str, tp: int) -> tuple[int, int]:
        ctx = StageContext(
            model=model,
            gpu_memory_bytes=rtx5090.memory_bytes,
            tensor_parallel=tp,
            pipeline_parallel=1,
            is_last_stage=True,
            weights_format=weights,
            gpu_name=rtx5090.name,
            platform=rtx5090.platform,
        )
        t = profile.terms(model, ctx, TOKENS, 1)
        return t.forward, t.moe_workspace

    for tp in (1, 2):
        forward, workspace = terms("nvfp4", tp)
        marlin_forward, marlin_workspace = terms("nvfp4-fp8attn", tp)
        assert marlin_workspace == GiB // 2
        assert workspace == TOKENS * HIDDEN * 2  # the modular (M, H) bf16 buffer, persistent
        scratch = flashinfer_cutlass_scratch_bytes(TOKENS, HIDDEN, INTER // tp, EXPERTS, TOPK)
        assert forward - marlin_forward == scratch + fp4_input_bytes(TOKENS, HIDDEN)  # per call, in the peak
        more = forward + workspace - marlin_forward - marlin_workspace  # 21 + 9 + 32 MiB: 0.061 GiB
        assert round(more / GiB, 3) == 0.061
