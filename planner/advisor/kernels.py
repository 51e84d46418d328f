"""Which kernels an engine runs on a GPU, where that costs the speed model a term of its own (read from the engines'
sources, never fitted).

- **vLLM's MXFP4 MoE on Hopper**: for MXFP4 experts (gpt-oss) vLLM takes the first backend of its priority list
  that supports the device; on compute capability 9.0 (its ``EngineSupport.triton_mxfp4_moe``) that is the OpenAI
  Triton kernels (``matmul_ogs`` with ``triton_kernels`` routing): vLLM 0.19.1
  ``model_executor/layers/fused_moe/oracle/mxfp4.py:169-184``
  (``_get_priority_backends``: FlashInfer TRT-LLM, SM100 only; CK, ROCm only; then TRITON, before Marlin) and
  ``fused_moe/gpt_oss_triton_kernels_moe.py:555-564`` (supported for ``(9, 0) <= capability < (11, 0)``), the same
  order through 0.33.0 (``oracle/mxfp4.py:402`` ``_get_priority_backends_for_gpt_oss``). Below 9.0 the Triton
  kernels are unsupported and Marlin runs; on SM100 the FlashInfer TRT-LLM kernels come first. The Triton path
  costs a step more than the memory roofline says: :data:`VLLM_TRITON_MXFP4_MOE_LAYER_S` per MoE layer.
  ``VLLM_MXFP4_USE_MARLIN=1`` (``oracle/mxfp4.py:336``) selects Marlin, as InferenceX's H100 gpt-oss script does
  (SemiAnalysisAI/InferenceX@843c6254 ``benchmarks/single_node/fixed_seq_len/deprecated/gptoss_fp4_h100.sh``).
- **The matmul rate of vLLM, SGLang and TensorRT-LLM**: the share of the dense peak their GEMMs reach per format
  (:data:`GEMM_EFFICIENCY`), measured, not fitted.
- **llama.cpp's matmuls on Hopper**: without Hopper's warpgroup instruction they reach a share of its tensor peak
  (:data:`HOPPER_MMA_SYNC_SHARE`, :func:`llamacpp_tensor_share`).
"""

from __future__ import annotations

from typing import Literal

from planner.core.gpu import GpuSpec
from planner.core.releases import parse_version
from planner.engines.registry import get_engine

ComputePath = Literal["16-bit", "fp8", "int8", "fp4"]
MoeKernel = Literal["marlin"]  # a MoE kernel a run forces (unset: the engine's default for the GPU)

# The Triton MXFP4 MoE kernels' time per MoE layer per decode step over Marlin's, as measured on SM90
# (vllm-project/vllm PR 27523, 2025-10-26, "[Fix] Change default MXFP4 backend for SM90 to Marlin"):
# ``vllm bench latency --model openai/gpt-oss-120b`` at its defaults (batch 8, 32 tokens in, 128 out;
# vllm/benchmarks/latency.py:34-36) took 1.58 s with Triton and 1.17 s with Marlin: 0.41 s over 128 steps of
# gpt-oss-120b's 36 MoE layers. The speed model's memory roofline is met by Marlin's weight-only kernels (the
# InferenceX H100 rows), so this is the time Triton adds: small-batch routing and matmul_ogs launches per layer.
VLLM_TRITON_MXFP4_MOE_LAYER_S = (1.58 - 1.17) / (128 * 36)


def moe_kernel_layer_seconds(gpu: GpuSpec, engine: str, weights: str, forced: MoeKernel | None = None) -> float:
    """Seconds per MoE layer per step that ``engine``'s expert kernels add on ``gpu`` for ``weights`` (see the
    module docstring); 0 where the engine runs kernels the roofline describes."""
    if weights != "mxfp4" or forced == "marlin":
        return 0.0
    triton = gpu.platform.capability in get_engine(engine).support.triton_mxfp4_moe
    return VLLM_TRITON_MXFP4_MOE_LAYER_S if triton else 0.0


# The share of the dense peak the GEMMs of vLLM, SGLang and TensorRT-LLM reach, per arithmetic: NVIDIA's
# aiconfigurator times each engine's own GEMMs on each GPU (ai-dynamo/aiconfigurator@095f58a51,
# aic-core/src/aiconfigurator_core/systems/data/<gpu>/gemm/<engine>/<version>/gemm_perf.parquet). Over the
# prompt-sized shapes (m 1,024-8,192 tokens, n and k 2,048-16,384: the widths of 7B-70B layers) each file's median
# share of the catalog's dense peak is, 16-bit: A100 TensorRT-LLM 1.0.0 0.825, vLLM 0.14.0 0.820; B200 TensorRT-LLM
# 1.2.0rc5 0.636, vLLM 0.19.0 0.673; H100 TensorRT-LLM 1.2.0rc5 0.744, 1.3.0rc20 0.764, vLLM 0.19.0 0.774; H200
# TensorRT-LLM 1.2.0rc5 0.772, vLLM 0.19.0 0.757; L40S TensorRT-LLM 1.0.0 0.629, 1.3.0rc20 0.583, vLLM 0.14.0 0.728.
# FP8 (per-tensor): B200 0.359, 0.298; H100 0.436, 0.499, 0.493; H200 0.463, 0.547; L40S 0.475, 0.474, 0.259 (same
# order). NVFP4: B200 TensorRT-LLM 0.301, vLLM 0.383. The median of each list; INT8 (SmoothQuant, no FP8 file on
# most GPUs) takes FP8's. FP8 and FP4 reach a smaller share of their doubled peaks: the same GEMM is shorter and
# its fixed costs (scales, epilogue, waves) weigh more.
GEMM_EFFICIENCY: dict[ComputePath, float] = {"16-bit": 0.75, "fp8": 0.47, "int8": 0.47, "fp4": 0.34}


def gemm_efficiency(path: ComputePath, gpu: GpuSpec, engine: str = "", release: str | None = None) -> float:
    """The share of the dense peak a continuous-batching engine's GEMMs reach on ``path``: :data:`GEMM_EFFICIENCY`,
    but for FP8 on capability 9.0 under a release the run states at or before the engine's
    ``EngineSupport.hopper_fp8_gemm_until`` (vLLM <= 0.14: aiconfigurator's vLLM 0.14.0 tables, 0.261), that
    release's measured share (no release stated: the engine's current kernels).

    >>> from model_catalog import get_gpu
    >>> h200 = get_gpu("h200-sxm-141gb")
    >>> gemm_efficiency("fp8", h200, "vllm", "0.11.0"), gemm_efficiency("fp8", h200, "vllm", "0.19.0")
    (0.261, 0.47)
    >>> gemm_efficiency("fp8", h200, "sglang", "0.4.3"), gemm_efficiency("16-bit", h200, "vllm", "0.11.0")
    (0.47, 0.75)
    """
    until = get_engine(engine).support.hopper_fp8_gemm_until if engine else None
    hopper = gpu.platform.capability == (9, 0)
    if path == "fp8" and hopper and until and release and parse_version(release) <= parse_version(until[0]):
        return until[1]
    return GEMM_EFFICIENCY[path]


# Hopper's tensor cores reach their datasheet rate only through the warpgroup instruction (PTX ``wgmma.mma_async``,
# sm_90a): "Without the wgmma instruction, the older mma.sync instruction can only reach about 2/3 the peak
# throughput of Hopper Tensor Cores" (the FlashAttention-3 write-up by its authors, Colfax, Meta, NVIDIA and Tri Dao,
# pytorch/pytorch.github.io@125600c3f846 _posts/2024-07-11-flashattention-3.md note 1, citing the microbenchmarks of
# Luo et al., arXiv 2402.13499). llama.cpp's own CUDA tensor-core primitives, which its quantized matmuls (MMQ) and
# flash attention build on, are ``mma.sync`` forms only (ggml-org/llama.cpp@032f69d46583 ggml/src/ggml-cuda/mma.cuh:
# ``mma.sync.aligned.m16n8k16`` F16 / BF16, ``m16n8k32`` int8, Volta's ``m8n8k4``). The May 2024 builds ran their
# prompts' FP16 GEMMs through cuBLAS instead (``CUBLAS_COMPUTE_16F``, :data:`LLAMACPP_MMQ_MAX_BATCH`), whose kernel
# choice no source read states; an inference, not a source: their rows show no Hopper tensor rate either, as
# XiongjieDai's H100 PCIe over A100 PCIe is 1.40x (Llama-3-8B F16 pp512), 1.36x (8B Q4_K_M) and 1.36x (70B Q4_K_M),
# where the dense 16-bit peaks differ 2.42x (756 / 312) and SMs x boost clock 1.31x (114 x 1,755 MHz against
# 108 x 1,410 MHz). So every llama.cpp CUDA matmul on Hopper is counted at this share of the tensor peak.
HOPPER_MMA_SYNC_SHARE = 2 / 3


def llamacpp_tensor_share(gpu: GpuSpec) -> float:
    """The share of ``gpu``'s dense tensor rate llama.cpp's CUDA matmuls can reach: :data:`HOPPER_MMA_SYNC_SHARE` on
    Hopper (compute capability 9.x, where the full rate needs wgmma), 1 on every other GPU."""
    capability = gpu.platform.capability
    return HOPPER_MMA_SYNC_SHARE if capability is not None and capability[0] == 9 else 1.0


# llama.cpp's quantized matmuls on CUDA (MMQ): on compute capability 7.5 and up every GGUF quant's matmul runs them
# at any batch (ggml-org/llama.cpp@027ef8769913 ggml/src/ggml-cuda/mmq.cu ``ggml_cuda_should_use_mmq``: the type in
# its list, then ``if (turing_mma_available(cc)) return true``), as int8 ``mma.sync.aligned.m16n8k32`` tiles
# (@032f69d46583 mma.cuh), the same tile code on every architecture. Their rate follows an SM's clock at what an SM
# of the consumer line issues, 2,048 dense int8 operations a clock (NVIDIA's GA102 and AD102 whitepapers: RTX 3090
# 284 TOPS = 82 SMs x 1.695 GHz x 2,048, RTX 4090 660.6 = 128 x 2.52 x 2,048; GB202: RTX 5090 838 = 170 x 2.41 x
# 2,048), not the larger per-SM rate of the datacenter parts' peaks: GA100's 4,096 (A100 whitepaper: 624 = 108 x
# 1.41 x 4,096), GH100's 8,192 (H100 whitepaper: 1,979 = 132 x 1.83 x 8,192, through wgmma, which MMQ does not
# issue). So MMQ's rate is the peak scaled by 2,048 over the architecture's figure: an inference from those sources
# and llama.cpp's CUDA scoreboard, not a source (discussion 15013, Llama 2 7B Q4_0 pp512 at build 5143fa8: H100
# 80GB 9,918 t/s and A100 80GB 4,850, under the RTX 4090's 11,993 though their int8 peaks are 3.0x and 0.94x of
# it; 13.35 GFLOP a token gives 548 and 425 int8 operations per SM per datasheet clock, the 4090 496, the RTX 3090
# 497). Blackwell datacenter parts (10.x) keep their peak (no MMQ row measures one).
MMQ_INT8_OPS_PER_SM_CLOCK = 2048
_INT8_OPS_PER_SM_CLOCK: dict[tuple[int, int], int] = {(8, 0): 4096, (9, 0): 8192}  # GA100, GH100


def llamacpp_mmq_share(gpu: GpuSpec) -> float:
    """The share of ``gpu``'s dense tensor peak llama.cpp's MMQ kernels can reach (see
    :data:`MMQ_INT8_OPS_PER_SM_CLOCK`): 2,048 over the architecture's int8 operations per SM per clock (A100 1/2,
    Hopper 1/4), 1 on the consumer line's SMs and every GPU not listed."""
    capability = gpu.platform.capability
    own = _INT8_OPS_PER_SM_CLOCK.get(capability, MMQ_INT8_OPS_PER_SM_CLOCK) if capability else MMQ_INT8_OPS_PER_SM_CLOCK
    return MMQ_INT8_OPS_PER_SM_CLOCK / own


# llama.cpp's CUDA matmul of a quantized GGUF over more than 32 tokens, before ggml-org/llama.cpp PR 8075
# ("CUDA: use MMQ instead of cuBLAS by default", merged 2024-06-24): ``ggml_cuda_mul_mat`` dropped its own
# quantized kernels (MMQ) for ``src1->ne[1] > MMQ_MAX_BATCH_SIZE`` (32) on GPUs with good FP16
# (``use_mul_mat_q && !(fp16_performance_good && src1->ne[1] > MMQ_MAX_BATCH_SIZE)``, compute capability 7.0 and
# up) and ran ``ggml_cuda_op_mul_mat_cublas``: the quantized matrix dequantized whole into an FP16 buffer
# (``to_fp16_cuda``), then one FP16 cuBLAS GEMM (``CUBLAS_COMPUTE_16F``) -- ggerganov/llama.cpp@005de593
# ggml-cuda.cu (``MMQ_MAX_BATCH_SIZE 32 // max batch size to use MMQ kernels when tensor cores are available``).
# A prompt then costs the GEMM of an F16 file plus a pass that reads the quantized weights and writes them at
# 2 bytes each, once per micro-batch. Since PR 8075 MMQ (int8 tensor cores, PR 7860) runs at every batch size.
LLAMACPP_MMQ_DEFAULT_SINCE = "2024-06-24"
LLAMACPP_MMQ_MAX_BATCH = 32  # MMQ_MAX_BATCH_SIZE before PR 8075: more tokens than this took the cuBLAS path


def llamacpp_dequant_gemm(gpu: GpuSpec, quantized_gguf: bool, release: str | None) -> bool:
    """Whether llama.cpp multiplies a quantized GGUF's prompt by dequantizing it to FP16 for cuBLAS (CUDA builds
    released before :data:`LLAMACPP_MMQ_DEFAULT_SINCE`, a GPU of compute capability 7.0 or more) rather than with
    its quantized MMQ kernels; ``release`` is the build's date as ``YYYY-MM[-DD]`` (unset: a current build)."""
    if not quantized_gguf or release is None or gpu.vendor != "NVIDIA":
        return False
    capability = gpu.platform.capability
    return release < LLAMACPP_MMQ_DEFAULT_SINCE and capability is not None and capability >= (7, 0)


def llamacpp_kv_per_query_head(gpu: GpuSpec, flash_attention: bool | None) -> bool:
    """Whether llama.cpp's decode attention reads the KV cache once per query head rather than once per KV head:
    on Metal without flash attention (``-fa 0``, llama-bench's default before flash attention defaulted on).
    The graph multiplies the cache by the queries with ``ggml_mul_mat(ctx, k, q)``, ``k`` holding the KV heads and
    ``q`` the query heads (llama.cpp ``llm_build_kqv``), a matmul that broadcasts ``src0`` over ``src1``'s
    ``ne12 = n_head`` with ``r2 = ne12 / ne02`` (ggml.c ``ggml_mul_mat``: ``ne12 % ne02 == 0``). Metal's matmul
    kernels run a threadgroup grid over ``ne12`` and point each at ``src0 + (i12/r2)*nb02``: every query head's
    threadgroups read its KV head's rows themselves, ``r2`` reads of each (grouped-query attention saves no
    bandwidth); ``kqv`` reads V the same way. Flash attention (``kernel_flash_attn_ext``) reads a KV block once
    for the query heads sharing it. Unset ``flash_attention``: a current build, flash attention on."""
    return gpu.vendor == "Apple" and flash_attention is False


# TensorRT-LLM's generation attention before its XQA kernels served grouped-query models: the masked multi-head
# attention kernel runs one thread block per query head (``hi = blockIdx.x``) and reads the cache of that head's KV
# head (``hi_kv = hi / qhead_per_kv``), so each KV head's cache is read once per query head sharing it
# (NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/decoderMaskedMultiheadAttention/
# decoderMaskedMultiheadAttentionTemplate.h, ``mmha::masked_multihead_attention_kernel``). XQA, which loads a KV
# head's cache once for its group of query heads (docs/source/blogs/XQA-kernel.md), served GQA models from release
# 0.8.0 (NVIDIA/TensorRT-LLM issue 1240, 2024-03-06: "the version 0.8.0 to support the xqa"; Hopper XQA kernels for
# Llama-2-70B followed in 0.10.0). Releases 0.7.x are counted with the older path (no row measures one).
TRTLLM_XQA_SINCE = (0, 8)


def trtllm_kv_per_query_head(version: str | None) -> bool:
    """Whether a TensorRT-LLM release (``"0.6.1"``; unset: a current one) reads a grouped-query model's KV cache
    once per query head in decode (see :data:`TRTLLM_XQA_SINCE`)."""
    if version is None:
        return False
    return tuple(int(part) for part in version.split(".")[:2]) < TRTLLM_XQA_SINCE


# llama.cpp's CUDA flash-attention kernel (``ggml_cuda_flash_attn_ext``) runs a prompt's attention matmuls at a
# share of the 16-bit peak of its own, far below the rate of its weight matmuls (``ll_mfu_quant``, fitted, 0.56).
# Measured, not fitted: ggml-org/llama.cpp@4c7e9893c4ca benches/dgx-spark.md (build 2f68ce7cf (6918), DGX Spark,
# ``-fa 1 -ub 2048``) gives llama-bench pp2048 at depths 0, 4,096, 8,192, 16,384 and 32,768 for five models.
# Between depths only attention changes (the same weights multiply the same 2,048 tokens), so the least-squares
# slope of the prompt's seconds over its attention FLOPs (:func:`planner.advisor.throughput.prefill_load`, a window
# capping its layers) isolates the kernel's rate. Of GB10's 213 TFLOPS: gpt-oss-20b (64 heads of 64) 0.123,
# Qwen3-Coder-30B-A3B Q8_0 (32 of 128) 0.264, Qwen2.5-Coder-7B Q8_0 (28 of 128) 0.181, gemma-3-4b Q4_0 (8 of 256)
# 0.068 (0.070 before a prompt's sliding layers scored each token's whole window, planner.advisor.attended); the
# median, 0.15 (tests/advisor/test_flash_attention.py recomputes it). The share varies with the head
# size (the kernel's tile configuration), which one figure does not follow. gpt-oss-120b's series is left out:
# two of its cells are held-out rows. Measured on GB10 only; every CUDA GPU takes it (no other GPU's depth series
# is published here).
LLAMACPP_FLASH_ATTENTION_SHARE = 0.15


def llamacpp_flash_attention(gpu: GpuSpec, flash_attention: bool | None) -> bool:
    """Whether llama.cpp runs attention through its CUDA flash-attention kernel (NVIDIA GPUs, ``-fa`` on; unset: a
    current build, where it is on by default since ggml-org/llama.cpp PR 15434, 2025-08-19): its attention FLOPs
    then take :data:`LLAMACPP_FLASH_ATTENTION_SHARE` of the 16-bit peak. Other backends and runs without flash
    attention keep the matmul rate (nothing measures them)."""
    return gpu.vendor == "NVIDIA" and flash_attention is not False
