"""Engine profiles: how vLLM, SGLang, TensorRT-LLM and llama.cpp turn their memory setting into a KV pool.

Each profile is a member of :data:`planner.overhead.OverheadModel` (chosen by ``kind``) with a
``per_gpu(ctx)`` that returns the working space the engine keeps besides the weights and the KV cache, so
:func:`planner.plan.plan` sizes the pool the way the engine does. What the engine *prints* at start-up
(blocks, tokens, concurrency) is computed by :func:`planner.engines.engine_report`.

Rules and their source files (read in the public repositories; see also
``shared/reference/engine-memory-notes.md``):

- vLLM V1 (``vllm/v1/worker/gpu_worker.py`` ``determine_available_memory``): ``available KV =
  total x gpu_memory_utilization - (weights + torch activation peak + non-torch memory)``; from v0.21 the
  estimated CUDA-graph memory is subtracted too (``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` on by default),
  before that graphs come out of the ``1 - util`` headroom. ``--kv-cache-memory`` replaces the whole sizing.
- vLLM V0 v0.6.4-0.7 (``vllm/worker/worker.py`` ``determine_num_available_blocks``): the same budget, but
  the profile batch is ``max(max_model_len, 2048)`` tokens unless chunked prefill is on.
- SGLang (``python/sglang/srt/model_executor/model_runner.py`` ``profile_max_num_token``): weights + KV pool
  = ``mem_fraction_static x total``; activations and CUDA graphs live in the rest, unprofiled.
- TensorRT-LLM (C++ runtime, ``kv_cache_free_gpu_mem_fraction``): a share of the memory still *free* after
  the engine (weights + activation workspace) is loaded.
- llama.cpp (``src/llama-kv-cache.cpp``): no fraction; the KV cache for ``n_ctx`` is allocated up front.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, Field

from planner.errors import PlannerError
from planner.model import LayerKind, ModelSpec
from planner.units import GiB, MiB

if TYPE_CHECKING:
    from planner.overhead import OverheadBytes, StageContext

Fraction = Annotated[float, Field(gt=0, le=1)]
PositiveInt = Annotated[int, Field(gt=0)]

# -- versions ---------------------------------------------------------------------------------------------


def parse_version(version: str) -> tuple[int, int, int]:
    """``"0.19.0" -> (0, 19, 0)``; ``"0.10.2rc1"``/``"~0.10"`` keep their leading numbers; missing parts are 0."""
    parts: list[int] = []
    for piece in version.strip().lstrip("v~").split(".")[:3]:
        digits = ""
        for char in piece:
            if not char.isdigit():
                break
            digits += char
        parts.append(int(digits) if digits else 0)
    while len(parts) < 3:
        parts.append(0)
    return parts[0], parts[1], parts[2]


# -- vLLM -------------------------------------------------------------------------------------------------

VLLM_DEFAULT_VERSION = "0.19.0"
# The V1 engine became the default in 0.8 and the only engine in 0.11; logs before 0.8 here are V0.
VLLM_V1_FROM = (0, 8, 0)
# Hybrid (sliding-window / full) KV cache manager: layers grouped by spec, from ~0.10
# (vllm/v1/core/kv_cache_utils.py ``_get_kv_cache_groups_uniform_page_size``).
VLLM_HYBRID_FROM = (0, 10, 0)
# CUDA-graph memory estimated before KV sizing and subtracted from the budget (notes 2.3, LMCache#3430 log).
VLLM_CUDAGRAPH_IN_BUDGET_FROM = (0, 21, 0)

# Fitted to the vLLM 0.19 H100 logs (engine-logs-public.json, llm-d-planner PR #205): see activation_peak_bytes
# in planner.overhead for the per-token layer constants and the 1.6 logits copies.
# With TP >= 2 the sampler's logits are all-gathered: the local shard and the gathered tensor, both in the
# model dtype (Llama-3.1-8B TP2 peak 1.89 GiB = TP1 peak although the MLP shrinks).
VLLM_TP_LOGITS_GATHER_BYTES = 2
# Gemma 2's final_logit_softcapping (divide, tanh, multiply) keeps one more fp32-sized copy of the logits
# (gemma-2-9b peak 3.65 GiB against 2.60 GiB without it).
SOFTCAP_MODEL_TYPES = ("gemma2",)
# MLA prefill (vLLM ``MLACommonImpl._forward_prefill``) expands the latent per head in 16 bits: q, k, v padded
# to the qk head size and the attention output (4 x qk_head_dim), the kv_b_proj output (nope + v) and the
# output sliced back to v (v).
MLA_QK_BUFFERS = 4
# V0 profiles one long prefill without the V1 sampler buffers: its peak per token is 0.765 x the V1 layer
# formula (vllm#10517: Llama-3.1-8B peak_torch 17.06 GiB at 20,000 tokens and 17.98 GiB at 29,000 tokens,
# 14.99 GiB of weights: 2.07 and 2.99 GiB of activations, ~110 KB per token).
VLLM_V0_ACTIVATION_SCALE = 0.765
# Non-torch memory (CUDA context, cuBLAS workspace, NCCL and custom all-reduce buffers).
VLLM_NON_TORCH_TP1 = round(0.25 * GiB)  # v0.19 H100 TP1 logs: 0.24-0.26 GiB
VLLM_NON_TORCH_TP = round(2.07 * GiB)  # v0.19 H100 TP2 logs: 2.07 GiB
VLLM_V0_NON_TORCH = round(0.35 * GiB)  # vllm#10517 (v0.6.4, RTX 3090): non_torch_memory=0.35GiB
# v0.21+ CUDA-graph estimate per decoder layer: LMCache#3430 "Estimated CUDA graph memory: 0.52 GiB total" for
# Qwen3-8B (36 layers). The measured captures of 0.19 (0.65-1.57 GiB on H100) only use the headroom.
VLLM_CUDAGRAPH_BYTES_PER_LAYER = round(0.52 * GiB / 36)


def vllm_default_batch(
    gpu_memory_bytes: int, gpu_name: str | None = None, usage_context: str = "server"
) -> tuple[int, int]:
    """``(max_num_batched_tokens, max_num_seqs)`` V1 picks when unset (``EngineArgs._set_default_args`` in
    ``vllm/engine/arg_utils.py``): on GPUs of 70 GiB or more other than the A100, 8192 tokens for the
    server and 16384 for the ``LLM`` class, 1024 sequences; otherwise 2048 (server) / 8192 (``LLM``) tokens and
    256 sequences."""
    big = gpu_memory_bytes >= 70 * GiB and "a100" not in (gpu_name or "").lower()
    if big:
        return (8192 if usage_context == "server" else 16384), 1024
    return (2048 if usage_context == "server" else 8192), 256


def _moe_width(model: ModelSpec) -> int:
    hidden = model.hidden_size or 4096
    if model.moe is not None:
        width = model.moe.moe_intermediate_size * model.moe.num_experts_per_tok + model.moe.shared_width
        return max(width, model.intermediate_size or 0)
    return model.intermediate_size or 4 * hidden


def vllm_activation_bytes(
    model: ModelSpec,
    max_num_batched_tokens: int,
    max_num_seqs: int,
    tensor_parallel: int,
    with_logits: bool,
    v1: bool = True,
) -> int:
    """The torch activation peak of vLLM's profile run on one GPU.

    V1 (``GPUModelRunner.profile_run``): a dummy forward of ``max_num_batched_tokens`` tokens
    (``tokens x (14 x hidden + 6 x MLP width / tp)``, :func:`planner.overhead.activation_peak_bytes`), MLA's
    expanded per-head K/V, then the sampler on ``max_num_seqs`` rows of fp32 logits (1.6 copies, one more
    for Gemma 2's soft-capping) on the last pipeline stage, plus the all-gathered logits when TP >= 2.
    V0: ``0.765 x`` the layer part over the whole profile batch, no sampler term.
    """
    from planner.overhead import ACTIVATION_BYTES_PER_HIDDEN, ACTIVATION_BYTES_PER_INTERMEDIATE, LOGITS_COPIES

    hidden = model.hidden_size or 4096
    per_token = (
        ACTIVATION_BYTES_PER_HIDDEN * hidden + ACTIVATION_BYTES_PER_INTERMEDIATE * _moe_width(model) / tensor_parallel
    )
    if model.mla is not None and model.num_attention_heads is not None:
        heads = max(1, model.num_attention_heads // tensor_parallel)
        qk = model.mla.qk_nope_head_dim + model.mla.qk_rope_head_dim
        per_token += 2 * heads * (MLA_QK_BUFFERS * qk + model.mla.qk_nope_head_dim + 2 * model.mla.v_head_dim)
    if not v1:
        return round(VLLM_V0_ACTIVATION_SCALE * max_num_batched_tokens * per_token)
    logits = 0.0
    if with_logits:
        vocab = model.vocab_size or 32000
        copies = LOGITS_COPIES + (1.0 if model.model_type in SOFTCAP_MODEL_TYPES else 0.0)
        logits = max_num_seqs * vocab * 4 * copies
        if tensor_parallel > 1:
            logits += max_num_seqs * vocab * VLLM_TP_LOGITS_GATHER_BYTES * (1 + 1 / tensor_parallel)
    return round(max_num_batched_tokens * per_token + logits)


def vllm_cudagraph_bytes(model: ModelSpec, layers: int | None = None) -> int:
    """vLLM's estimate of CUDA-graph memory on one GPU (v0.21+ subtracts it from the KV budget)."""
    return VLLM_CUDAGRAPH_BYTES_PER_LAYER * (layers if layers is not None else model.num_hidden_layers)


class VllmProfile(BaseModel, frozen=True, extra="forbid"):
    """vLLM (V1 by default; V0 for versions before 0.8). Settings are the CLI flags of ``vllm serve``."""

    kind: Literal["vllm"] = "vllm"
    engine_version: str = VLLM_DEFAULT_VERSION
    gpu_memory_utilization: Fraction = 0.90
    max_num_batched_tokens: PositiveInt | None = None  # None: vLLM's default for the GPU (vllm_default_batch)
    max_num_seqs: PositiveInt | None = None
    usage_context: Literal["server", "llm-class"] = "server"  # `vllm serve` or the offline `LLM` class
    enforce_eager: bool = False  # no CUDA graphs
    kv_cache_memory_bytes: PositiveInt | None = None  # --kv-cache-memory: skips the profile-based sizing
    disable_hybrid_kv_cache_manager: bool = False  # sliding-window layers then cache the whole context
    enable_chunked_prefill: bool | None = None  # V0 only; None: on from max_model_len 32,768 (V0 default)

    @property
    def version(self) -> tuple[int, int, int]:
        return parse_version(self.engine_version)

    @property
    def is_v1(self) -> bool:
        return self.version >= VLLM_V1_FROM

    @property
    def hybrid_kv_manager(self) -> bool:
        return self.is_v1 and self.version >= VLLM_HYBRID_FROM and not self.disable_hybrid_kv_cache_manager

    @property
    def cudagraph_in_budget(self) -> bool:
        return self.is_v1 and self.version >= VLLM_CUDAGRAPH_IN_BUDGET_FROM and not self.enforce_eager

    def batch(
        self, gpu_memory_bytes: int, gpu_name: str | None = None, max_model_len: int | None = None
    ) -> tuple[int, int]:
        """``(tokens per profile step, max_num_seqs)``. V0 without chunked prefill profiles
        ``max(max_model_len, 2048)`` tokens; V0 turns chunked prefill on from 32,768 tokens (then 2048)."""
        tokens, seqs = vllm_default_batch(gpu_memory_bytes, gpu_name, self.usage_context)
        if not self.is_v1:
            seqs = 256
            chunked = self.enable_chunked_prefill
            if chunked is None:
                chunked = (max_model_len or 0) >= 32768
            tokens = 2048 if chunked else max(max_model_len or 2048, 2048)
        return (self.max_num_batched_tokens or tokens), (self.max_num_seqs or seqs)

    def non_torch_bytes(self, tensor_parallel: int) -> int:
        if not self.is_v1:
            return VLLM_V0_NON_TORCH
        return VLLM_NON_TORCH_TP if tensor_parallel > 1 else VLLM_NON_TORCH_TP1

    def activation_bytes(
        self,
        ctx_model: ModelSpec,
        gpu_memory_bytes: int,
        tensor_parallel: int,
        last_stage: bool,
        gpu_name: str | None = None,
        max_model_len: int | None = None,
    ) -> int:
        tokens, seqs = self.batch(gpu_memory_bytes, gpu_name, max_model_len)
        return vllm_activation_bytes(ctx_model, tokens, seqs, tensor_parallel, last_stage, v1=self.is_v1)

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        """Reserved ``(1 - util) x memory``; activations of the profile run; non-torch memory, plus the
        CUDA-graph estimate from v0.21. With ``kv_cache_memory_bytes`` the reserve is whatever that leaves."""
        from planner.overhead import OverheadBytes

        activation = self.activation_bytes(
            ctx.model, ctx.gpu_memory_bytes, ctx.tensor_parallel, ctx.is_last_stage, max_model_len=ctx.max_model_len
        )
        framework = self.non_torch_bytes(ctx.tensor_parallel)
        if self.cudagraph_in_budget:
            framework += vllm_cudagraph_bytes(ctx.model, _stage_layers(ctx))
        if self.kv_cache_memory_bytes is not None:
            reserved = ctx.gpu_memory_bytes - ctx.weights_bytes - activation - framework - self.kv_cache_memory_bytes
        else:
            reserved = ctx.gpu_memory_bytes - math.floor(self.gpu_memory_utilization * ctx.gpu_memory_bytes)
        return OverheadBytes(activation_bytes=activation, framework_bytes=framework, reserved_bytes=max(0, reserved))


def _stage_layers(ctx: StageContext) -> int:
    return math.ceil(ctx.model.num_hidden_layers / ctx.pipeline_parallel)


# -- SGLang -----------------------------------------------------------------------------------------------

SGLANG_DEFAULT_VERSION = "0.5.4"
# sglang PR #10975 (v0.5.3): mem_fraction_static from GPU memory, chunked prefill and CUDA-graph batch.
SGLANG_HEURISTIC_FROM = (0, 5, 3)
# Memory in use besides torch tensors when the pool is sized (CUDA context, NCCL / custom all-reduce).
SGLANG_LOAD_OVERHEAD_TP1 = round(0.5 * GiB)
SGLANG_LOAD_OVERHEAD_TP = round(1.5 * GiB)


def sglang_defaults(gpu_memory_bytes: int, tensor_parallel: int) -> tuple[int, int]:
    """``(chunked_prefill_size, cuda_graph_max_bs)`` by GPU memory (``server_args.py``
    ``_handle_gpu_memory_settings``, v0.5.3+)."""
    mib = gpu_memory_bytes / MiB
    small_tp = tensor_parallel < 4
    if mib < 20 * 1024:
        return 2048, 8
    if mib < 35 * 1024:
        return 2048, (24 if small_tp else 80)
    if mib < 60 * 1024:
        return 4096, (32 if small_tp else 160)
    if mib < 160 * 1024:
        return 8192, (256 if small_tp else 512)
    return 16384, 512


def sglang_default_mem_fraction(
    gpu_memory_bytes: int,
    tensor_parallel: int,
    pipeline_parallel: int = 1,
    version: str = SGLANG_DEFAULT_VERSION,
    chunked_prefill_size: int | None = None,
    cuda_graph_max_bs: int | None = None,
) -> float:
    """SGLang's ``mem_fraction_static`` when unset.

    v0.5.3+ (sglang PR #10975, ``server_args.py``): ``reserved MB = 512 + 1.5 x max(chunked_prefill_size,
    2048) + 2 x cuda_graph_max_bs + tp x pp / 8 x 1024``, at least 10 GiB above 60 GiB of memory;
    ``fraction = round((memory MB - reserved) / memory MB, 3)``. Earlier releases: 0.88 (TP1), 0.87 (TP2),
    0.85 (TP4), 0.81 (TP8), 0.79 (TP16).
    """
    if parse_version(version) < SGLANG_HEURISTIC_FROM:
        for tp, fraction in ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87)):
            if tensor_parallel >= tp:
                return fraction
        return 0.88
    chunk, graph_bs = sglang_defaults(gpu_memory_bytes, tensor_parallel)
    chunk = chunked_prefill_size or chunk
    graph_bs = cuda_graph_max_bs or graph_bs
    mib = gpu_memory_bytes / MiB
    reserved = 512 + max(chunk, 2048) * 1.5 + graph_bs * 2 + tensor_parallel * pipeline_parallel / 8 * 1024
    if mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return round((mib - reserved) / mib, 3)


class SglangProfile(BaseModel, frozen=True, extra="forbid"):
    """SGLang: ``mem_fraction_static`` of total memory for weights plus the KV pool."""

    kind: Literal["sglang"] = "sglang"
    engine_version: str = SGLANG_DEFAULT_VERSION
    mem_fraction_static: Fraction | None = None  # None: SGLang's heuristic (sglang_default_mem_fraction)
    chunked_prefill_size: PositiveInt | None = None
    cuda_graph_max_bs: PositiveInt | None = None
    page_size: PositiveInt = 1
    max_total_tokens: PositiveInt | None = None

    def fraction(self, gpu_memory_bytes: int, tensor_parallel: int, pipeline_parallel: int = 1) -> float:
        if self.mem_fraction_static is not None:
            return self.mem_fraction_static
        return sglang_default_mem_fraction(
            gpu_memory_bytes,
            tensor_parallel,
            pipeline_parallel,
            self.engine_version,
            self.chunked_prefill_size,
            self.cuda_graph_max_bs,
        )

    @staticmethod
    def load_overhead_bytes(tensor_parallel: int) -> int:
        return SGLANG_LOAD_OVERHEAD_TP if tensor_parallel > 1 else SGLANG_LOAD_OVERHEAD_TP1

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        """Reserved ``(1 - mem_fraction_static) x memory`` (activations and graphs live there, unprofiled);
        framework = the memory in use at load besides the weights."""
        from planner.overhead import OverheadBytes

        fraction = self.fraction(ctx.gpu_memory_bytes, ctx.tensor_parallel, ctx.pipeline_parallel)
        return OverheadBytes(
            activation_bytes=0,
            framework_bytes=self.load_overhead_bytes(ctx.tensor_parallel),
            reserved_bytes=ctx.gpu_memory_bytes - math.floor(fraction * ctx.gpu_memory_bytes),
        )


# -- TensorRT-LLM -----------------------------------------------------------------------------------------

TRTLLM_CONTEXT_BYTES = round(0.6 * GiB)  # CUDA context + cuBLAS/TensorRT runtime (indicative)
# Activation workspace of a built engine per token of max_num_tokens: the same layer formula as vLLM.


class TrtllmProfile(BaseModel, frozen=True, extra="forbid"):
    """TensorRT-LLM (C++ runtime / Triton backend): ``kv_cache_free_gpu_mem_fraction`` of the memory still
    free after the engine (weights + activation workspace) is loaded. Indicative: known from PR excerpts."""

    kind: Literal["trtllm"] = "trtllm"
    engine_version: str = "0.5.0"
    kv_cache_free_gpu_mem_fraction: Fraction = 0.90
    max_batch_size: PositiveInt = 256
    max_num_tokens: PositiveInt = 8192  # tokens per step the engine was built for (fixes the workspace)
    tokens_per_block: PositiveInt = 64

    def workspace_bytes(self, model: ModelSpec, tensor_parallel: int) -> int:
        return vllm_activation_bytes(model, self.max_num_tokens, self.max_batch_size, tensor_parallel, True, v1=False)

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        from planner.overhead import OverheadBytes

        workspace = self.workspace_bytes(ctx.model, ctx.tensor_parallel)
        free = max(0, ctx.gpu_memory_bytes - ctx.weights_bytes - workspace - TRTLLM_CONTEXT_BYTES)
        return OverheadBytes(
            activation_bytes=workspace,
            framework_bytes=TRTLLM_CONTEXT_BYTES,
            reserved_bytes=free - math.floor(self.kv_cache_free_gpu_mem_fraction * free),
        )


# -- llama.cpp --------------------------------------------------------------------------------------------

LlamacppCacheType = Literal["f16", "q8_0", "q4_0"]
# ggml block sizes: f16 2 bytes; block_q8_0 34 bytes / 32 values; block_q4_0 18 bytes / 32 values (ggml-common.h).
LLAMACPP_CACHE_BITS: dict[str, float] = {"f16": 16.0, "q8_0": 8.5, "q4_0": 4.5}
LLAMACPP_CONTEXT_BYTES = round(0.3 * GiB)  # CUDA context + cuBLAS (indicative)
LLAMACPP_CTX_PAD = 256  # n_ctx is padded to 256 (llama-context.cpp, with flash attention)


class LlamacppProfile(BaseModel, frozen=True, extra="forbid"):
    """llama.cpp (``llama-server``): the KV cache for ``n_ctx`` tokens is allocated at load, split over
    ``--parallel`` slots; ``-ngl`` layers live on the GPU, the rest (weights and their KV) in system RAM."""

    kind: Literal["llamacpp"] = "llamacpp"
    engine_version: str = "b6000"
    n_ctx: PositiveInt | None = None  # None: the request's max_model_len
    n_parallel: PositiveInt = 1
    cache_type_k: LlamacppCacheType = "f16"
    cache_type_v: LlamacppCacheType = "f16"
    n_gpu_layers: Annotated[int, Field(ge=0)] | None = None  # None: all (-ngl 99)
    n_ubatch: PositiveInt = 512
    flash_attn: bool = True

    def gpu_layers(self, model: ModelSpec) -> int:
        return model.num_hidden_layers if self.n_gpu_layers is None else min(self.n_gpu_layers, model.num_hidden_layers)

    def compute_buffer_bytes(self, model: ModelSpec, n_ctx: int) -> int:
        """The CUDA compute buffer (indicative): a micro-batch of ``n_ubatch`` tokens through one layer and
        the output logits in fp32; without flash attention the ``n_ctx x n_ubatch`` score matrix per head."""
        hidden = model.hidden_size or 4096
        vocab = model.vocab_size or 32000
        width = _moe_width(model)
        per_token = 4 * (vocab + 4 * hidden + 2 * width)
        scores = 0 if self.flash_attn else 4 * n_ctx * (model.num_attention_heads or 32)
        return self.n_ubatch * (per_token + scores)

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        from planner.overhead import OverheadBytes

        return OverheadBytes(
            activation_bytes=self.compute_buffer_bytes(ctx.model, self.n_ctx or ctx.max_model_len or 4096),
            framework_bytes=LLAMACPP_CONTEXT_BYTES,
            reserved_bytes=0,
        )


def llamacpp_kv_bytes(
    model: ModelSpec,
    n_ctx: int,
    cache_type_k: str = "f16",
    cache_type_v: str = "f16",
    layers: int | None = None,
    n_seq: int = 1,
    n_ubatch: int = 512,
) -> int:
    """KV buffer llama.cpp allocates: ``n_ctx (padded to 256) x (n_embd_k_gqa x k bits + n_embd_v_gqa x v bits)``
    per full-attention layer (``llama_kv_cache`` in ``src/llama-kv-cache.cpp``); sliding-window layers get a
    cache of ``min(n_ctx, n_swa x n_seq + n_ubatch)`` cells (``llama_kv_cache_iswa``). MLA models cache the
    K latent only (mainline PR #19067). ``layers``: how many layers (the first ones) are on this device."""
    ctx_padded = math.ceil(n_ctx / LLAMACPP_CTX_PAD) * LLAMACPP_CTX_PAD
    if model.mla is not None:
        k_values, v_values = model.mla.latent_dim, 0
    else:
        k_values = v_values = model.resolved_kv_heads * model.resolved_head_dim
    per_cell = k_values * LLAMACPP_CACHE_BITS[cache_type_k] / 8 + v_values * LLAMACPP_CACHE_BITS[cache_type_v] / 8
    total = 0.0
    count = model.num_hidden_layers if layers is None else layers
    for kind in model.layers[:count]:
        if kind is LayerKind.LINEAR:
            continue
        cells = ctx_padded
        window = (
            model.sliding_window
            if kind is LayerKind.SLIDING
            else (model.attention_chunk_size if kind is LayerKind.CHUNKED else None)
        )
        if window is not None:
            swa = math.ceil((window * n_seq + n_ubatch) / LLAMACPP_CTX_PAD) * LLAMACPP_CTX_PAD
            cells = min(ctx_padded, swa)
        total += cells * per_cell
    return math.ceil(total)


# -- calibrated -------------------------------------------------------------------------------------------

# The short form's fields, by letter (Calibrated.to_token).
CALIBRATION_LETTERS = (
    ("t", "total_memory_bytes"),
    ("w", "weights_bytes"),
    ("a", "activation_bytes"),
    ("n", "non_torch_bytes"),
    ("g", "cuda_graph_bytes"),
)


class Calibrated(BaseModel, frozen=True, extra="forbid"):
    """Overheads measured on a real start-up (see :func:`planner.logparse.calibrate`): the measured weights,
    activation peak, non-torch memory and device total replace the estimates; absent figures fall back to
    the ``engine`` profile's estimate. Serializes to a short string for a shared link (:meth:`to_token`)."""

    kind: Literal["calibrated"] = "calibrated"
    engine: Literal["vllm", "sglang", "llamacpp"] = "vllm"
    engine_version: str = VLLM_DEFAULT_VERSION
    gpu_memory_utilization: Fraction = 0.90
    total_memory_bytes: PositiveInt | None = None
    weights_bytes: Annotated[int, Field(ge=0)] | None = None
    activation_bytes: Annotated[int, Field(ge=0)] | None = None
    non_torch_bytes: Annotated[int, Field(ge=0)] | None = None
    cuda_graph_bytes: Annotated[int, Field(ge=0)] | None = None

    def base_profile(self) -> VllmProfile:
        return VllmProfile(engine_version=self.engine_version, gpu_memory_utilization=self.gpu_memory_utilization)

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        """Measured figures where given. The device total and the weights are folded into the reserve, which
        stays non-negative: ``memory - util x total + (measured weights - estimated weights)``."""
        from planner.overhead import OverheadBytes

        base = self.base_profile()
        activation = self.activation_bytes
        if activation is None:
            activation = base.activation_bytes(ctx.model, ctx.gpu_memory_bytes, ctx.tensor_parallel, ctx.is_last_stage)
        framework = (
            self.non_torch_bytes if self.non_torch_bytes is not None else base.non_torch_bytes(ctx.tensor_parallel)
        )
        if base.cudagraph_in_budget:
            framework += self.cuda_graph_bytes if self.cuda_graph_bytes is not None else vllm_cudagraph_bytes(ctx.model)
        total = self.total_memory_bytes or ctx.gpu_memory_bytes
        reserved = ctx.gpu_memory_bytes - math.floor(self.gpu_memory_utilization * total)
        if self.weights_bytes is not None and ctx.pipeline_parallel == 1:
            reserved += self.weights_bytes - ctx.weights_bytes
        return OverheadBytes(activation_bytes=activation, framework_bytes=framework, reserved_bytes=max(0, reserved))

    def to_token(self) -> str:
        """``"cal1~vllm~0.19.0~0.95~t85029615043~w16095..."``: short, URL-safe, round-trips exactly."""
        parts = ["cal1", self.engine, self.engine_version, f"{self.gpu_memory_utilization:g}"]
        for letter, name in CALIBRATION_LETTERS:
            value = getattr(self, name)
            if value is not None:
                parts.append(f"{letter}{value}")
        return "~".join(parts)

    @classmethod
    def from_token(cls, token: str) -> Calibrated:
        """Inverse of :meth:`to_token`; a malformed string raises :class:`planner.errors.PlannerError`."""
        from planner.errors import PlannerError

        parts = token.strip().split("~")
        if len(parts) < 4 or parts[0] != "cal1":
            raise PlannerError(f"calibration: expected 'cal1~engine~version~util~...', got {token!r}")
        fields: dict[str, object] = {"engine": parts[1], "engine_version": parts[2], "gpu_memory_utilization": parts[3]}
        names = dict(CALIBRATION_LETTERS)
        for part in parts[4:]:
            if not part or part[0] not in names or not part[1:].isdigit():
                raise PlannerError(f"calibration: unreadable field {part!r} in {token!r}")
            fields[names[part[0]]] = int(part[1:])
        try:
            return cls.model_validate(fields)
        except ValueError as exc:
            raise PlannerError(f"calibration: {exc}") from None


EngineProfile = VllmProfile | SglangProfile | TrtllmProfile | LlamacppProfile
ENGINE_NAMES = ("vllm", "sglang", "trtllm", "llamacpp")


def engine_profile(
    engine: str,
    *,
    fraction: float | None = None,
    version: str | None = None,
    max_num_batched_tokens: int | None = None,
) -> EngineProfile:
    """The profile of ``engine`` with its own memory fraction (vLLM ``gpu_memory_utilization``, SGLang
    ``mem_fraction_static``, TensorRT-LLM ``kv_cache_free_gpu_mem_fraction``; llama.cpp has none); ``None``
    keeps each engine's default."""
    settings: dict[str, object] = {"engine_version": version} if version else {}
    if engine == "sglang":
        return SglangProfile.model_validate({**settings, "mem_fraction_static": fraction})
    if engine == "trtllm":
        if fraction is not None:
            settings["kv_cache_free_gpu_mem_fraction"] = fraction
        return TrtllmProfile.model_validate(settings)
    if engine == "llamacpp":
        return LlamacppProfile.model_validate(settings)
    if engine != "vllm":
        raise PlannerError(f"engine: unknown engine {engine!r}; choose one of {', '.join(ENGINE_NAMES)}")
    if fraction is not None:
        settings["gpu_memory_utilization"] = fraction
    if max_num_batched_tokens is not None:
        settings["max_num_batched_tokens"] = max_num_batched_tokens
    return VllmProfile.model_validate(settings)
