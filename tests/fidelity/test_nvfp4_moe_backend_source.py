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

TOKENS = 8192  # max_num_batched_tokens of every boot of the band
HIDDEN, INTER, EXPERTS, TOPK = 2048, 512, 256, 8  # Qwen3.6-35B-A3B
MARLIN_0_29 = "vllm-0.29-rtx5090-wsl-qwen36-35b-a3b-nvfp4-util082"


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
    """Each buffer of ``getWorkspaceDeviceBufferSizes`` worked by hand from FlashInfer 0.6.12's source
    (``csrc/fused_moe/cutlass_backend/cutlass_fused_moe_kernels.cuh``: sizes :2582-2646, overlaps :2669-2683, the list
    :2718-2729; NVFP4 activations, bf16 output, SwiGLU, not min-latency, finalize fused), each aligned to
    ``kCudaMemAlign`` 128 (``nv_internal/tensorrt_llm/common/workspace.h:22``), plus the binding's ``src_to_dest_map``
    (``flashinfer_cutlass_fused_moe_binding.cu:862``). ``computeNumTokensPerBlock`` (:586-595): the first power of two
    from 32 to 1024 with ``ceil(M / t) x E <= t``, else 1024. ``getOffsetActivationSF`` (:987-1001) with NVFP4's atom
    (``moe_gemm_kernels.h:96``, :102-117: 16 a scale, rows to 128, K to 16 x 4 = 64): ``align128(rows + E x 127) x
    align64(K) / 16`` one-byte scales."""
    # Qwen3.6-35B-A3B at TP 1: M 8,192 tokens, H 2,048, I 512, E 256, top-8; rows = 8 x 8,192 = 65,536.
    # Tokens a block: 1,024 (8 x 256 = 2,048 > 1,024 at every t, the fallback), 8 blocks.
    # permuted_row_to_unpermuted_row, permuted_token_selected_experts, permuted_token_final_scales and the binding's
    #   src_to_dest_map: 65,536 x 4 = 262,144 each                                                    1,048,576
    # blocked_expert_counts and its cumsum: 256 x 8 x 4 = 8,192 each                                     16,384
    # blocked_row_to_unpermuted_row: 256 x 8,192 x 4                                                  8,388,608
    # expert_first_token_offset: 257 x 8 = 2,056, aligned                                                 2,176
    # inputs overlap: max(FP4 permuted 65,536 x 2,048 / 2 = 67,108,864, bf16 fc2 65,536 x 2,048 x 2 =
    #   268,435,456, FP4 fc1 65,536 x 512 / 2 = 16,777,216)                                          268,435,456
    # outputs overlap: max(bf16 GLU 65,536 x 1,024 x 2 = 134,217,728, fc2 268,435,456, fc1)           268,435,456
    # alpha_scale_ptr_array fc1 and fc2: 256 x 8 = 2,048 each                                             4,096
    # fp4_act_scale: align128(65,536 + 256 x 127 = 98,048) = 98,048 rows x max(2,048, 512) / 16      12,550,144
    # total                                                                                         558,880,896
    # At TP 2 (I 256) only fc1, the GLU input and fc2's scales shrink, all below fc2's bf16 result: the same total.
    for tp in (1, 2):
        assert flashinfer_cutlass_scratch_bytes(TOKENS, HIDDEN, INTER // tp, EXPERTS, TOPK) == 558_880_896
    # Qwen3-30B-A3B's shape at 256 tokens: H 2,048, I 768, E 128, top-8; rows 2,048. Tokens a block: 256 (1 block
    # x 128 <= 256). Four row-sized int buffers 4 x 8,192 = 32,768; counts and cumsum 2 x 128 x 4 = 1,024;
    # blocked rows 128 x 256 x 4 = 131,072; first offsets 129 x 8 = 1,032 -> 1,152; inputs max(2,097,152, fc2
    # 2,048 x 2,048 x 2 = 8,388,608, 786,432) and outputs max(GLU 2,048 x 1,536 x 2 = 6,291,456, 8,388,608): 2 x
    # 8,388,608; alphas 2 x 1,024; scales align128(2,048 + 128 x 127 = 18,304) x 2,048 / 16 = 2,342,912.
    # 32,768 + 1,024 + 131,072 + 1,152 + 16,777,216 + 2,048 + 2,342,912 = 19,288,192
    assert flashinfer_cutlass_scratch_bytes(256, 2048, 768, 128, 8) == 19_288_192
    # scaled_fp4_quant's output (0.24.0 _custom_ops.py:1580-1650): 8,192 x 2,048 / 2 = 8,388,608 packed values and
    # scales swizzled to 128 rows x 4 columns of 16: 8,192 x (2,048 / 64) x 4 = 1,048,576; 9,437,184
    assert fp4_input_bytes(TOKENS, HIDDEN) == 9_437_184


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
        assert forward - marlin_forward == 558_880_896 + 9_437_184  # per call, in the peak: the scratch and FP4 input
        more = forward + workspace - marlin_forward - marlin_workspace  # 21 + 9 + 32 MiB: 0.061 GiB
        assert round(more / GiB, 3) == 0.061
