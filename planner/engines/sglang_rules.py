"""SGLang's memory defaults by release, read in its PyPI wheels (0.5.2 to 0.5.23; 2026-12-04): the prefill chunk and
the graphs' batch by GPU memory, and what its default ``mem_fraction_static`` reserves for activations and graphs.

The rule is ``ServerArgs._handle_gpu_memory_settings`` (``srt/server_args.py``; from 0.5.19
``srt/arg_groups/memory_hook.py``): ``fraction = round((memory MB - reserved) / memory MB, 3)`` with ``reserved =
512 + 1.5 x max(chunk, 2048) + 2 x graph batch + tp x pp / 8 x 1024 (+ the prefill graphs)``, at least 10 GiB on a
GPU of more than 60 GiB, then the speculative terms. What changed, by first release:

- 0.5.5: a GPU under 35 GiB at TP < 4 captures decode graphs to batch 24, not 16 (``server_args.py:716-719``).
- 0.5.10: piecewise prefill graphs on by default, reserved before the floor: 8 MB per captured token count
  (:func:`prefill_graph_tokens`), or 1.5 GiB for an MLA model (0.5.10 ``server_args.py:1305-1311``); off for a
  multimodal model, LoRA and speculative decoding (``:1078-1139``). The EAGLE-type speculative term grows from 2 to
  4 GiB (``:1322``).
- 0.5.11: speculative decoding keeps the prefill graphs.
- 0.5.14: the speculative terms are gone (the draft model loads before the KV pool, so its weights come out of the
  pool: ``managers/scheduler.py:861-868``), as the planner plans every release; ``--disable-cuda-graph`` turns the
  prefill graphs off (``server_args.py:2942-2944``).
- 0.5.15: ``--disable-cuda-graph`` also drops the decode graphs' term (``:3638-3643``); the default prefill graphs
  (breakable) are off for MLA models.
- 0.5.17: LoRA keeps the prefill graphs.
- 0.5.18: MLA models reserve 1.5 GiB for them again (``:5106-5108``).
- 0.5.20: a GPU under 35 GiB prefills 4,096 tokens a step and captures decode graphs to batch 48 (TP < 4) or 160,
  not 2,048 and 24 / 80 (``arg_groups/memory_hook.py:101-117``; its comment names the 32 GB RTX 5090).

Not modelled: before 0.5.14, SGLang sized the target's pool before loading a draft model or EAGLE head and reserved
2 GiB (EAGLE-type; 4 GiB from 0.5.10) or 6 GiB (a draft model) for it instead; the planner charges the draft's
weights and cache to the pool in every release, as 0.5.14 does. Caps of the prefill graphs' tokens by
``--max-total-tokens`` or the context (0.5.13-0.5.16), the vision encoder's own factor on the fraction
(``adjust_mem_fraction_for_vlm``: 0.95 x a clamp of its layers and width; the planner takes 0.95), DeepEP, DP
attention, PD disaggregation, AMD's aiter x 0.85 above 8k tokens.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from planner.core.model import ModelSpec
from planner.core.overhead import FailureKind, parse_version
from planner.core.platform import DevicePlatform
from planner.core.units import GiB, MiB

SGLANG_DEFAULT_VERSION = "0.5.18"  # the newest release with a public start-up log among the fixtures (evidence.toml)
SGLANG_RELEASES = tuple(f"0.5.{n}" for n in range(2, 24))  # every 0.5.x on PyPI from 0.5.2 (read 2026-12-04)
SGLANG_HEURISTIC_FROM = (0, 5, 3)  # sglang PR #10975: the fraction from GPU memory, chunk and graphs' batch
PREFILL_GRAPH_MB = 8  # reserved per captured prefill token count
MLA_PREFILL_GRAPH_MB = 1536


class FractionInputs(NamedTuple):
    """What SGLang's default fraction reads besides the GPU and the parallel sizes."""

    multimodal: bool = False  # a vision tower loaded: no prefill graphs; the fraction x 0.95
    mla: bool = False  # DeepSeek-style latent attention: the prefill graphs' flat reserve
    lora: bool = False  # adapters: no prefill graphs before 0.5.17
    speculative: str | None = None  # the planner's method ("draft", "eagle", "eagle3", "mtp")
    disable_cuda_graph: bool = False  # --disable-cuda-graph
    dp_ranks: int = 1  # --dp under --enable-dp-attention (its padding reserve); 1 without


def sglang_defaults(
    gpu_memory_bytes: int, tensor_parallel: int, version: str = SGLANG_DEFAULT_VERSION
) -> tuple[int, int]:
    """``(chunked_prefill_size, cuda_graph_max_bs)`` by GPU memory in ``version`` (the module docstring).

    >>> sglang_defaults(32 * 2**30, 1, "0.5.4"), sglang_defaults(32 * 2**30, 1, "0.5.19")
    ((2048, 16), (2048, 24))
    >>> sglang_defaults(32 * 2**30, 1, "0.5.20"), sglang_defaults(80 * 2**30, 8, "0.5.23")
    ((4096, 48), (8192, 512))
    """
    mib, small_tp, release = gpu_memory_bytes / MiB, tensor_parallel < 4, parse_version(version)
    if mib < 20 * 1024:
        return 2048, 8
    if mib < 35 * 1024:
        if release >= (0, 5, 20):
            return 4096, (48 if small_tp else 160)
        return 2048, ((16 if release < (0, 5, 5) else 24) if small_tp else 80)
    if mib < 60 * 1024:
        return 4096, (32 if small_tp else 160)
    if mib < 160 * 1024:
        return 8192, (256 if small_tp else 512)
    return 16384, 512


def prefill_graph_tokens(max_tokens: int) -> tuple[int, ...]:
    """The token counts SGLang captures prefill graphs for, up to ``max_tokens`` (its chunk by default;
    ``_generate_piecewise_cuda_graph_tokens``, 0.5.10 ``server_args.py:1397-1415``).

    >>> [len(prefill_graph_tokens(n)) for n in (2048, 4096, 8192, 16384)]
    [42, 50, 58, 74]
    """
    sizes = [
        *range(4, 33, 4),
        *range(48, 257, 16),
        *range(288, 513, 32),
        *range(576, 1025, 64),
        *range(1280, 4097, 256),
        *range(4608, max_tokens + 1, 512),
    ]
    return tuple(s for s in sizes if s <= max_tokens)


def prefill_graphs_mb(version: str, chunk: int, inputs: FractionInputs) -> int:
    """What the default fraction reserves for the prefill graphs (0 before 0.5.10, and where they are off)."""
    release = parse_version(version)
    if release < (0, 5, 10) or inputs.multimodal:
        return 0
    if (inputs.disable_cuda_graph and release >= (0, 5, 14)) or (inputs.lora and release < (0, 5, 17)):
        return 0
    if inputs.speculative is not None and release < (0, 5, 11):
        return 0
    if inputs.mla:
        return 0 if (0, 5, 15) <= release < (0, 5, 18) else MLA_PREFILL_GRAPH_MB
    return PREFILL_GRAPH_MB * len(prefill_graph_tokens(chunk))


def reserved_mb(
    gpu_memory_bytes: int, tensor_parallel: int, pipeline_parallel: int, version: str, chunk: int, graph_bs: int,
    inputs: FractionInputs,
) -> float:  # fmt: skip
    """The memory (MB) the default fraction leaves outside weights and the KV pool (the module docstring)."""
    decode = 0 if inputs.disable_cuda_graph and parse_version(version) >= (0, 5, 15) else graph_bs * 2
    reserved = 512 + max(chunk, 2048) * 1.5 + decode + tensor_parallel * pipeline_parallel / 8 * 1024
    reserved += prefill_graphs_mb(version, chunk, inputs)
    if inputs.dp_ranks > 1:  # "DP attention needs more padding for some operations" (server_args.py, PR #10975)
        reserved += graph_bs * inputs.dp_ranks * (3 + (1.5 if graph_bs > 300 else 0))
    if gpu_memory_bytes / MiB > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return reserved


def heuristic_total_bytes(platform: DevicePlatform | None, memory_bytes: int | None, engine_total_bytes: int) -> int:
    """The device total SGLang's defaults are read from (``get_device_memory_capacity``, 0.5.18
    ``srt/utils/common.py:817-841``): ``nvidia-smi --query-gpu=memory.total`` on an NVIDIA card, in MiB (an
    H100's 81,559, where torch's total is 79.19 GiB), which the catalog's ``memory_bytes`` records as a whole number
    of MiB; torch's total (``engine_total_bytes``) on ROCm (``get_amdgpu_memory_capacity``), on unified memory
    (nvidia-smi prints no total there: ``_cuda_mem_fallback``) and where the catalog holds a datasheet label.

    >>> from planner.core.platform import DevicePlatform
    >>> heuristic_total_bytes(DevicePlatform(capability=(9, 0)), 81_559 * 2**20, 85_029_615_043) // 2**20
    81559
    >>> heuristic_total_bytes(DevicePlatform(runtime="rocm"), 192 * 10**9, 205_822_885_888)
    205822885888
    """
    smi = platform is not None and platform.runtime == "cuda" and not platform.integrated
    if smi and memory_bytes is not None and memory_bytes % MiB == 0:
        return memory_bytes
    return engine_total_bytes


def sglang_default_mem_fraction(
    gpu_memory_bytes: int,
    tensor_parallel: int,
    pipeline_parallel: int = 1,
    version: str = SGLANG_DEFAULT_VERSION,
    chunked_prefill_size: int | None = None,
    cuda_graph_max_bs: int | None = None,
    inputs: FractionInputs | None = None,
) -> float:
    """SGLang's ``mem_fraction_static`` when unset, before the multimodal factor.

    v0.5.3+ (sglang PR #10975): ``round((memory MB - reserved) / memory MB, 3)``, the reserve by release
    (:func:`reserved_mb`). Earlier releases: 0.88 (TP1), 0.87 (TP2), 0.85 (TP4), 0.81
    (TP8), 0.79 (TP16).
    """
    if parse_version(version) < SGLANG_HEURISTIC_FROM:
        for tp, fraction in ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87)):
            if tensor_parallel >= tp:
                return fraction
        return 0.88
    chunk, graph_bs = sglang_defaults(gpu_memory_bytes, tensor_parallel, version)
    chunk, graph_bs = chunked_prefill_size or chunk, cuda_graph_max_bs or graph_bs
    mib = gpu_memory_bytes / MiB
    inputs = inputs or FractionInputs()
    reserved = reserved_mb(gpu_memory_bytes, tensor_parallel, pipeline_parallel, version, chunk, graph_bs, inputs)
    return round((mib - reserved) / mib, 3)


# python/sglang/srt/model_executor/model_runner.py ModelRunner.__init__: "Automatically reduce
# --mem-fraction-static ... because this is a multimodal model" (self.mem_fraction_static *= 0.95), applied to
# the given or the heuristic fraction alike (releases 0.3-0.5 read through public copies of the file).
SGLANG_VLM_FACTOR = 0.95


def dsa_kv_dtype(model: ModelSpec, platform: DevicePlatform | None, version: str) -> str | None:
    """The KV dtype SGLang caches a DeepSeek sparse-attention model (MLA with an indexer: V3.2, GLM-5) in when none is
    asked: FP8 e4m3 on compute capability 10 and up ("fp8_e4m3" if major >= 10 else "bfloat16": forced there in
    0.5.3-0.5.4, 0.5.4 ``srt/server_args.py:1027-1031``; the default for ``auto`` from 0.5.5, ``:1081-1086``; 0.5.18
    ``arg_groups/overrides.py:1626-1630``; not on NPU / XPU), else ``None`` (the model's 16-bit dtype). Not modelled:
    0.5.20's bfloat16 for a config with ``learnable_sink`` (``overrides.py:596-606``; none in the catalog).

    >>> from model_catalog import get_model
    >>> v32, b200 = get_model("deepseek-ai/DeepSeek-V3.2").spec, DevicePlatform(capability=(10, 0))
    >>> dsa_kv_dtype(v32, b200, "0.5.18"), dsa_kv_dtype(v32, DevicePlatform(capability=(9, 0)), "0.5.18")
    ('fp8_e4m3', None)
    """
    blackwell = platform is not None and platform.capability is not None and platform.capability >= (10, 0)
    since = parse_version(version) >= (0, 5, 3)  # the first release that loads DeepseekV32ForCausalLM
    return "fp8_e4m3" if model.indexer is not None and blackwell and since else None


def vlm(model: ModelSpec) -> bool:
    """A vision tower loaded for serving makes SGLang treat the model as multimodal."""
    return any(module.loaded_for_serving for module in model.attached_modules)


def sglang_running(tokens: int, context_len: int, given: int | None, version: str = SGLANG_DEFAULT_VERSION) -> int:
    """The scheduler's ``max_running_requests``: the request pool's estimate ``min(max(int(tokens / context_len x
    512), 2048), 4096)`` and at most half the KV pool's tokens (0.5.4 ``srt/model_executor/model_runner.py``
    :1646-1655, ``srt/managers/tp_worker.py`` :279-287); one given is capped at the estimate until 0.5.13 (the
    request pool's size; 0.5.10 ``model_runner_kv_cache_mixin.py:840-856``) and at half the tokens from 0.5.14
    (``:981-1019``); 0 without a pool. ``given`` is as the server's arguments leave it: under speculative decoding
    48 when none is given (:func:`speculative_running`, applied by the caller before a DP-attention rank's share).

    >>> sglang_running(409_552, 8192, None), sglang_running(3000, 8192, None), sglang_running(409_552, 8192, 8)
    (4096, 1500, 8)
    >>> sglang_running(100_000, 8192, 8000, "0.5.13"), sglang_running(100_000, 8192, 8000, "0.5.14")
    (4096, 8000)
    >>> sglang_running(409_552, 8192, speculative_running(None, True))
    48
    """
    if tokens <= 0:
        return 0
    estimate = min(max(int(tokens / context_len * 512), 2048), 4096)
    if given is None:
        return min(tokens // 2, estimate)
    return min(given, estimate if parse_version(version) < (0, 5, 14) else tokens // 2)


SPECULATIVE_RUNNING = 48


def speculative_running(given: int | None, speculative: bool) -> int | None:
    """``--max-running-requests`` as the server's arguments leave it: 48 under speculative decoding when none is given
    ("Max running requests is reset to 48 for speculative decoding", every EAGLE-family algorithm, STANDALONE and
    NEXTN included, and NGRAM; every release: 0.5.2 ``srt/server_args.py:729-730``, 0.5.4 ``:1290-1294``, 0.5.13-0.5.18
    ``srt/arg_groups/speculative_hook.py``, 0.5.18 ``:558-562``, 0.5.23 ``:1086-1094``); under
    ``--enable-dp-attention`` the whole server's, as a given one.

    >>> speculative_running(None, True), speculative_running(None, False), speculative_running(64, True)
    (48, None, 64)
    """
    return SPECULATIVE_RUNNING if given is None and speculative else given


def vlm_reserve_bytes(version: str, model: ModelSpec) -> int:
    """What a multimodal model's KV budget loses from 0.5.18: ``SGLANG_VLM_CACHE_SIZE_MB`` (100 MB; 1 GB more when
    features travel over CUDA IPC, not the default), ``mem_cache/kv_cache_configurator.py:1785-1789``."""
    return 100 * MiB if vlm(model) and parse_version(version) >= (0, 5, 18) else 0


def pool_line(version: str, kv_dtype: str, tokens: int, pool_bytes: int, mla: bool) -> str:
    """SGLang's 'KV Cache is allocated' line: with the cache's torch dtype first from 0.5.13
    (``mem_cache/memory_pool.py``; a public 0.5.2x line: 'KV Cache is allocated. dtype: torch.bfloat16, #tokens:
    1669816, K size: 76.44 GB, V size: 76.44 GB', sgl-project/sglang PR #18263).

    >>> pool_line("0.5.4", "bf16", 1000, 2 * 2**30, False)
    'KV Cache is allocated. #tokens: 1000, K size: 1.00 GB, V size: 1.00 GB'
    >>> pool_line("0.5.23", "fp8", 1000, 2**30, True)
    'KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: 1000, KV size: 1.00 GB'
    """
    dtype = (
        f"dtype: {TORCH_KV_DTYPES.get(kv_dtype, 'torch.bfloat16')}, " if parse_version(version) >= (0, 5, 13) else ""
    )
    if mla:
        return f"KV Cache is allocated. {dtype}#tokens: {tokens}, KV size: {pool_bytes / GiB:.2f} GB"
    half = pool_bytes / 2 / GiB
    return f"KV Cache is allocated. {dtype}#tokens: {tokens}, K size: {half:.2f} GB, V size: {half:.2f} GB"


TORCH_KV_DTYPES = {
    "bf16": "torch.bfloat16",
    "fp16": "torch.float16",
    "fp8": "torch.float8_e4m3fn",
    "fp8_e4m3": "torch.float8_e4m3fn",
    "fp8_e5m2": "torch.float8_e5m2",
}


def load_failure(weights_bytes: int, before_bytes: int) -> str | None:
    """Weights above the memory free before loading (``pre_model_load_memory``) run torch's allocator out of memory
    while they load, before SGLang sizes a pool (its check of the rest, 0.5.18
    ``mem_cache/kv_cache_configurator.py:1794-1809``, runs after the load, so its ``1 - available / pre`` is below 1
    whenever it prints one); worded as the planner words vLLM's (:mod:`planner.engines.vllm.start_memory`).

    >>> load_failure(10 * 2**30, 20 * 2**30) is None, load_failure(30 * 2**30, 20 * 2**30)[:40]
    (True, 'torch.OutOfMemoryError: CUDA out of memo')
    """
    if weights_bytes <= before_bytes:
        return None
    return (
        f"torch.OutOfMemoryError: CUDA out of memory while loading the weights ({weights_bytes / GiB:.2f} GiB per "
        f"GPU, {before_bytes / GiB:.2f} GiB free)."
    )


def no_memory_failure(version: str, fraction: float, available_bytes: int, before_bytes: int, rest_bytes: int) -> str:
    """SGLang's error when the weights loaded (:func:`load_failure` when they do not) and nothing is left for the KV
    pool: 0.5.4's, or from 0.5.14 the one that names the fraction that would leave some
    (``model_runner_kv_cache_mixin.py:102-118``: ``1 - available / pre``, where ``pre`` is the memory free before
    loading, so below 1)."""
    if parse_version(version) < (0, 5, 14) or rest_bytes > 0:
        return "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."
    minimum = 1 - available_bytes / before_bytes
    return (
        f"ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static={fraction}. "
        f"Raise --mem-fraction-static above {math.ceil(minimum * 1000) / 1000:.3f} (minimum viable = 1 - "
        f"available/pre = {minimum:.4f}). If using speculative decoding, draft weights are now counted."
    )


def short_pool_lines(version: str, tokens: int, context_len: int) -> list[str]:
    """A pool shorter than ``--context-length`` does not stop SGLang: each request is capped at ``min(context_len
    - 1, tokens - 1)`` tokens and longer ones are refused at serving time (``managers/tp_worker.py``, 0.5.4
    :293-300); from 0.5.23 it says so at start-up (:557-566), the line returned here."""
    if tokens >= context_len or parse_version(version) < (0, 5, 23):
        return []
    return [
        f"KV pool holds {tokens} tokens, fewer than --context-length {context_len}. One full-length request cannot "
        "fit, so long requests will be refused or truncated at serving time. Lower --context-length, raise "
        "--mem-fraction-static, or free memory taken before the pool is sized."
    ]


def context_failure(model: ModelSpec, context_len: int) -> tuple[FailureKind, str] | None:
    """SGLang refuses a ``--context-length`` above the model's own (``ModelConfig``, python/sglang/srt/configs/
    model_config.py, ~:860 in 2026: "User-specified context_length (...) is greater than the derived
    context_length (...)", a ValueError unless ``SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1``; quoted in public
    deployment notes, search-index file ids 71278005917, 63043395797), as vLLM refuses its ``--max-model-len``.

    >>> from model_catalog import get_model
    >>> context_failure(get_model("meta-llama/Llama-3.1-8B").spec, 131072) is None
    True
    >>> context_failure(get_model("meta-llama/Llama-3.1-8B").spec, 200000)[0]
    'max-model-len'

    The derived length is ``get_context_length``'s (hf_transformers_utils.py, search-index file id 65300803): the
    config's maximum times a linear or dynamic RoPE scaling's factor (the catalog carries those; Gemma 3's factor 8
    over 131,072), as SGLang reads it.

    >>> context_failure(get_model("google/gemma-3-27b-it").spec, 200000) is None
    True
    """
    factor = model.rope_scaling.factor if model.rope_scaling is not None else 1.0
    derived = int(factor * model.context_limit)  # a YaRN switched on: its override's max_position_embeddings
    if context_len <= derived:
        return None
    return "max-model-len", (
        f"ValueError: User-specified context_length ({context_len}) is greater than the derived context_length "
        f"({derived}). This may lead to incorrect model outputs or CUDA errors. To allow overriding this maximum, "
        "set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"
    )
