"""vLLM's memory settings and the working space of its profile run.

Rules and their source files (read in the public repository; see ``shared/reference/engine-memory-notes.md``):

- V1 (``vllm/v1/worker/gpu_worker.py`` ``determine_available_memory``): ``available KV = total x
  gpu_memory_utilization - (weights + torch activation peak + non-torch memory)``; from v0.21 the estimated
  CUDA-graph memory is subtracted too (``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` on by default), before
  that graphs come out of the ``1 - util`` headroom. ``--kv-cache-memory`` replaces the whole sizing.
- V0 v0.6.4-0.7 (``vllm/worker/worker.py`` ``determine_num_available_blocks``): the same budget, but the
  profile batch is ``max(max_model_len, 2048)`` tokens unless chunked prefill is on.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field

from planner.engines.base import (
    DEFAULT_VOCAB,
    LOGITS_COPIES,
    EngineProfile,
    Fraction,
    OverheadBytes,
    PositiveInt,
    StageContext,
    layer_activation_bytes_per_token,
    parse_version,
)
from planner.model import ModelSpec
from planner.units import GiB

VLLM_DEFAULT_VERSION = "0.19.0"
# The V1 engine became the default in 0.8 and the only engine in 0.11; logs before 0.8 here are V0.
VLLM_V1_FROM = (0, 8, 0)
# Hybrid (sliding-window / full) KV cache manager: layers grouped by spec, from ~0.10
# (vllm/v1/core/kv_cache_utils.py ``_get_kv_cache_groups_uniform_page_size``).
VLLM_HYBRID_FROM = (0, 10, 0)
# CUDA-graph memory estimated before KV sizing and subtracted from the budget (notes 2.3, LMCache#3430 log).
VLLM_CUDAGRAPH_IN_BUDGET_FROM = (0, 21, 0)

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


def _mla_bytes_per_token(model: ModelSpec, tensor_parallel: int) -> float:
    """MLA prefill's per-head K/V expansion per token on one GPU (16 bits; :data:`MLA_QK_BUFFERS`)."""
    if model.mla is None or model.num_attention_heads is None:
        return 0.0
    heads = max(1, model.num_attention_heads // tensor_parallel)
    qk = model.mla.qk_nope_head_dim + model.mla.qk_rope_head_dim
    return 2 * heads * (MLA_QK_BUFFERS * qk + model.mla.qk_nope_head_dim + 2 * model.mla.v_head_dim)


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
    (``tokens x (14 x hidden + 6 x MLP width / tp)``, :func:`planner.engines.base.activation_peak_bytes`), MLA's
    expanded per-head K/V, then the sampler on ``max_num_seqs`` rows of fp32 logits (1.6 copies, one more
    for Gemma 2's soft-capping) on the last pipeline stage, plus the all-gathered logits when TP >= 2.
    V0: ``0.765 x`` the layer part over the whole profile batch, no sampler term.
    """
    per_token = layer_activation_bytes_per_token(model, tensor_parallel) + _mla_bytes_per_token(model, tensor_parallel)
    if not v1:
        return round(VLLM_V0_ACTIVATION_SCALE * max_num_batched_tokens * per_token)
    logits = 0.0
    if with_logits:
        vocab = model.vocab_size or DEFAULT_VOCAB
        copies = LOGITS_COPIES + (1.0 if model.model_type in SOFTCAP_MODEL_TYPES else 0.0)
        logits = max_num_seqs * vocab * 4 * copies
        if tensor_parallel > 1:
            logits += max_num_seqs * vocab * VLLM_TP_LOGITS_GATHER_BYTES * (1 + 1 / tensor_parallel)
    return round(max_num_batched_tokens * per_token + logits)


def vllm_cudagraph_bytes(model: ModelSpec, layers: int | None = None) -> int:
    """vLLM's estimate of CUDA-graph memory on one GPU (v0.21+ subtracts it from the KV budget)."""
    return VLLM_CUDAGRAPH_BYTES_PER_LAYER * (layers if layers is not None else model.num_hidden_layers)


class VllmProfile(EngineProfile, frozen=True, extra="forbid"):
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
    enable_chunked_prefill: bool | None = Field(default=None)  # V0 only; None: on from max_model_len 32,768

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
        model: ModelSpec,
        gpu_memory_bytes: int,
        tensor_parallel: int,
        last_stage: bool,
        gpu_name: str | None = None,
        max_model_len: int | None = None,
    ) -> int:
        tokens, seqs = self.batch(gpu_memory_bytes, gpu_name, max_model_len)
        return vllm_activation_bytes(model, tokens, seqs, tensor_parallel, last_stage, v1=self.is_v1)

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        """Reserved ``(1 - util) x memory``; activations of the profile run; non-torch memory, plus the
        CUDA-graph estimate from v0.21. With ``kv_cache_memory_bytes`` the reserve is whatever that leaves."""
        activation = self.activation_bytes(
            ctx.model, ctx.gpu_memory_bytes, ctx.tensor_parallel, ctx.is_last_stage, max_model_len=ctx.max_model_len
        )
        framework = self.non_torch_bytes(ctx.tensor_parallel)
        if self.cudagraph_in_budget:
            framework += vllm_cudagraph_bytes(ctx.model, math.ceil(ctx.model.num_hidden_layers / ctx.pipeline_parallel))
        if self.kv_cache_memory_bytes is not None:
            reserved = ctx.gpu_memory_bytes - ctx.weights_bytes - activation - framework - self.kv_cache_memory_bytes
        else:
            reserved = ctx.gpu_memory_bytes - math.floor(self.gpu_memory_utilization * ctx.gpu_memory_bytes)
        return OverheadBytes(activation_bytes=activation, framework_bytes=framework, reserved_bytes=max(0, reserved))
