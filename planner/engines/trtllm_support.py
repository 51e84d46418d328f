"""What TensorRT-LLM runs: its platforms, KV-cache dtypes, weight formats and speculative methods
(:class:`EngineSupport`)."""

from __future__ import annotations

from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.engines.checkpoints import GGUF
from planner.engines.support import EngineSupport, base_weights, platform_rows

# Compute capabilities whose FP8 block-scale GEMM TensorRT-LLM 1.0 has: Hopper, and datacenter Blackwell since
# NVIDIA/TensorRT-LLM#5514 ("Fix block scale fp8 support for deepseek v3 on Blackwell", 2025-06). Ada and SM120
# (RTX PRO 6000, RTX 5090) stop at "Unsupported SM version for FP8 block scaling GEMM" (#4599 on an RTX 5880 Ada,
# 0.21.0rc0; #5581 on 8 x RTX PRO 6000 with DeepSeek-R1, open).
FP8_BLOCK_CAPABILITIES = ((9, 0), (10, 0), (10, 3))
# Where that FP8 checkpoint's MoE needs moe_config.backend DEEPGEMM, the default CUTLASS not running it: B200/GB200
# (NVIDIA's DeepSeek-R1 quick-start recipe, docs/source/deployment-guide/quick-start-recipe-for-deepseek-r1-on-
# trtllm.md, "MoE Backend Support Matrix": B200/GB200 EP<=8, FP8: DEEPGEMM; H100/H200 FP8: CUTLASS). B300 (10.3)
# taken as B200's: the recipe does not list it.
FP8_BLOCK_DEEPGEMM_CAPABILITIES = ((10, 0), (10, 3))

INT8_GONE = (
    "TensorRT-LLM's PyTorch flow (trtllm-serve) has no {what}: its quantization recipes are FP8 and FP4 (and 4-bit "
    "AWQ / GPTQ weights); INT8 was the TensorRT engine flow's (trtllm-build), removed in 1.2; use {instead}"
)

TRTLLM_SUPPORT = EngineSupport(
    label="TensorRT-LLM",
    platforms=platform_rows("trtllm"),
    # kv_cache_config.dtype fp8 in the options file (cache_config_lines).
    kv_cache_names={"bf16": "auto", "fp16": "auto", "fp8": "fp8", "fp8_e4m3": "fp8"},
    # The PyTorch flow's quantization recipes (docs/source/features/quantization.md, 1.1.0: FP4, FP8 per tensor, block
    # and rowwise, FP8 KV cache, W4A16 / W4A8 GPTQ and AWQ; its hardware matrix adds NVFP4 KV cache) have no INT8 one:
    # INT8 SmoothQuant and the INT8 KV cache were the TensorRT engine flow's (trtllm-build), removed in 1.2.
    kv_refusals={
        "int4": "TensorRT-LLM has no 4-bit KV cache in its PyTorch flow; its smallest is FP8",
        "int8": INT8_GONE.format(what="INT8 KV cache", instead="FP8 (kv_cache_config dtype fp8)"),
    },
    weight_refusals={
        "int8": INT8_GONE.format(what="INT8 (SmoothQuant W8A8) weights", instead="FP8 weights"),
        **{g: "TensorRT-LLM does not load GGUF files; use llama.cpp" for g in GGUF},
        "int4-gptq": (  # NVIDIA/TensorRT-LLM#19442 (open, 2026-09) adds it: "does not recognize Hugging Face GPTQ"
            "TensorRT-LLM's PyTorch flow loads ModelOpt checkpoints (FP8, NVFP4, INT4-AWQ), not Hugging Face GPTQ"
        ),
        "int4-g32": (  # docs/source/torch/features/quantization.md: "supports only models quantized using ... ModelOpt"
            "TensorRT-LLM's PyTorch flow loads checkpoints quantized with ModelOpt (FP8, NVFP4, INT4-AWQ), not "
            "compressed-tensors W4A16"
        ),
        "nvfp4-fp8tail": (
            "TensorRT-LLM's PyTorch flow loads checkpoints quantized with ModelOpt (FP8, NVFP4, INT4-AWQ), not "
            "unsloth's compressed-tensors NVFP4 / FP8 export"
        ),
    },
    context_flag="--max_seq_len",
    # multi-node serving: trtllm-serve under trtllm-llmapi-launch, one MPI rank a GPU (examples/llm-api, Slurm)
    multi_node="{servers} servers: launch it on all of them under MPI or Slurm, one rank a GPU ({gpus} in all), as "
    "trtllm-llmapi-launch trtllm-serve ...",
    # TensorRT-LLM speculative decoding: draft-target, EAGLE / EAGLE-3, Medusa, MTP (docs/source/features).
    speculative_methods=("draft", "eagle", "eagle3", "medusa", "mtp"),
    speed_family="fused",
    # Its PyTorch flow keeps the states of Mamba / linear-attention layers in a cache manager of their own
    # (tensorrt_llm/_torch/pyexecutor/mamba_cache_manager.py, per max_batch_size), beside the paged KV cache.
    state_layers_refusal="TensorRT-LLM keeps the linear-attention / Mamba layers' states in a cache of their own "
    "(MambaHybridCacheManager, per --max_batch_size) beside the paged KV cache, which is not planned here; plan this "
    "model with vLLM, whose state blocks are planned",
)


def fp8_block_refusal(model: ModelSpec, weights: str, gpu: GpuSpec | None) -> str | None:
    """Why TensorRT-LLM does not load a model's own FP8 checkpoint (DeepSeek-V3's and the like: 128 x 128 block
    scales) on ``gpu`` (:data:`FP8_BLOCK_CAPABILITIES`); ``None`` where it does, or for another checkpoint (a 16-bit
    model's FP8 from ModelOpt has per-tensor scales)."""
    capability = gpu.platform.capability if gpu is not None else None
    if capability is None or capability in FP8_BLOCK_CAPABILITIES:
        return None  # a GPU known by its memory alone, or one the GEMM runs on
    if model.native_dtype != "fp8" or base_weights(weights) != "fp8":
        return None
    return (
        f"TensorRT-LLM's FP8 block-scale GEMM, which {model.display_name}'s own FP8 checkpoint needs, runs on Hopper "
        "and B200/B300 only: 'Unsupported SM version for FP8 block scaling GEMM' (NVIDIA/TensorRT-LLM#5581 on 8 x RTX "
        "PRO 6000, #4599 on an RTX 5880 Ada); plan vLLM, or NVFP4 weights"
    )
