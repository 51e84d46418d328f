"""TensorRT-LLM's ``--extra_llm_api_options`` file (``tensorrt_llm/llmapi/llm_args.py``): the lines a plan writes
into it (its cache's dtype, attention windows and memory fraction, attention data parallelism, chunked prefill) and
the flag that hands it to ``trtllm-serve``."""

from __future__ import annotations

from planner.core.blocks import LayerKind
from planner.core.kv import has_windows
from planner.core.model import ModelSpec
from planner.engines.commands import word
from planner.engines.support import base_weights
from planner.engines.trtllm_support import FP8_BLOCK_DEEPGEMM_CAPABILITIES, TRTLLM_SUPPORT
from planner.planning.request import PlanRequest
from planner.planning.results import PlanResult


def cache_config_lines(
    request: PlanRequest, result: PlanResult, windows: bool, attention_dp: bool, fraction: float, num_tokens: int
) -> list[str]:
    """The ``--extra_llm_api_options`` file's lines (``tensorrt_llm/llmapi/llm_args.py``); none at the defaults.

    - ``kv_cache_config`` (``KvCacheConfig``): ``dtype`` for a quantized cache (trtllm-serve's own
      ``--kv_cache_dtype`` came in the 1.3 line, NVIDIA/TensorRT-LLM PR #11487, merged 2026-03-03; 1.0 has none) and
      ``max_attention_window`` at the model's own windows when ``windows`` (the profile's ``attention_windows``) is
      set and the model has windowed layers (:func:`attention_windows`); with either, ``free_gpu_memory_fraction``
      too: the file's ``kv_cache_config`` replaces the command line's whole (``update_llm_args_with_extra_dict``
      ends ``llm_args | llm_args_dict``), whose fraction would fall back to the class's 0.9;
    - ``enable_attention_dp: true`` when ``attention_dp`` is;
    - ``enable_chunked_prefill: true`` when the longest sequence is longer than a step's ``num_tokens``: off by
      default, and without it the PyTorch flow refuses every prompt over ``max_num_tokens`` (``llm.py``
      ``_check_arguments``: "The sum of prompt length (...), query length (...) should not exceed max_num_tokens",
      a 400 per request);
    - ``moe_config: backend: DEEPGEMM`` for a block-scaled FP8 MoE on datacenter Blackwell (:func:`moe_lines`).
    """
    lines = []
    name = TRTLLM_SUPPORT.kv_cache_names.get(result.kv_dtype, "auto")
    if name != "auto":
        lines.append(f"  dtype: {name}")
    if windows and has_windows(request.model):
        each = ", ".join(str(w) for w in attention_windows(request.model, result.max_model_len))
        lines.append(f"  max_attention_window: [{each}]")
    if lines:
        lines = ["kv_cache_config:", f"  free_gpu_memory_fraction: {fraction:g}", *lines]
    lines += ["enable_attention_dp: true"] if attention_dp else []
    lines += ["enable_chunked_prefill: true"] if result.max_model_len > num_tokens else []
    return lines + moe_lines(request, result.weights)


def moe_lines(request: PlanRequest, weights: str) -> list[str]:
    """``moe_config.backend: DEEPGEMM`` where the default CUTLASS MoE does not run the model's own block-scaled FP8
    checkpoint (DeepSeek-V3 / R1's 128 x 128 scales): B200/GB200 (:data:`FP8_BLOCK_DEEPGEMM_CAPABILITIES`, NVIDIA's
    DeepSeek-R1 quick-start recipe: "one must set the moe_config.backend explicitly to run the model")."""
    model, gpu = request.model, request.gpu
    capability = gpu.platform.capability if gpu is not None else None
    block_fp8 = model.moe is not None and model.native_dtype == "fp8" and base_weights(weights) == "fp8"
    return ["moe_config:", "  backend: DEEPGEMM"] if block_fp8 and capability in FP8_BLOCK_DEEPGEMM_CAPABILITIES else []


def options_flag(lines: list[str]) -> str:
    """``--extra_llm_api_options`` with a file of ``lines`` the shell writes (bash process substitution), each line
    one quoted word."""
    return f"--extra_llm_api_options <(printf '%s\\n' {' '.join(word(line) for line in lines)})"


def attention_windows(model: ModelSpec, max_len: int) -> list[int]:
    """``KvCacheConfig.max_attention_window`` with the model's own windows, one per layer: ``max_len`` for a
    full-attention layer, the window (or chunk) for a sliding-window (chunked) one."""
    kinds = {LayerKind.SLIDING: model.sliding_window, LayerKind.CHUNKED: model.attention_chunk_size}
    return [min(max_len, kinds.get(kind) or max_len) for kind in model.layers]


def attention_dp_refusal(tensor_parallel: int) -> str | None:
    """TensorRT-LLM's ``enable_attention_dp`` runs every rank's attention at TP 1 (its ``--tp_size`` counts the
    ranks, ``Mapping``'s ``attn_tp_size`` is 1 under attention DP): a plan whose ranks span more GPUs is not what it
    runs.

    >>> attention_dp_refusal(1) is None, attention_dp_refusal(2)[:40]
    (True, "TensorRT-LLM's enable_attention_dp runs ")
    """
    if tensor_parallel <= 1:
        return None
    return (
        f"TensorRT-LLM's enable_attention_dp runs each rank's attention on one GPU, not TP {tensor_parallel}: "
        "leave the tensor-parallel size unset"
    )
