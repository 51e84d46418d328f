"""What a step of a serving engine asks of the hardware: bytes read, FLOPs, all-reduce traffic (no constants fitted).

:class:`Setup` is a set-up as the speed model sees it: the GPU, the engine family, the arithmetic of the matmuls,
how many GPUs one replica spans and how they share the model (``tensor`` parallel, llama.cpp's ``layer`` split,
``pipeline`` stages). :func:`decode_load` and :func:`prefill_load` give the bytes and FLOPs of one decode step of a
batch and of one prompt, for the whole replica:

- **weights read** per decode step: every linear layer, the lm_head (or the tied embedding), norms; not the input
  embedding (a row gather) nor a vision tower. Routed experts: the share a batch of ``B`` tokens touches,
  ``1 - (1 - k/E)^B`` with uniform routing (``k`` of ``E`` experts per token): at batch 50 gpt-oss-120b (4 of
  128) reads 80 % of its experts, not its 5 B active parameters;
- **KV read**: each sequence's whole cache at its current length, window caps and linear-attention states
  included (:func:`planner.core.kv.kv_bytes_per_sequence`);
- **FLOPs**: ``2 x`` the parameters a token multiplies (the embedding gather excluded) plus attention,
  ``4 x q-width x`` the tokens each attention layer attends to (a sliding window caps them; a prompt: the pairs
  each layer scores within its window or chunk, :mod:`planner.advisor.attended`);
- **all-reduces**: tensor parallelism sums the ``B x hidden`` activations after every row-parallel block: a token
  mixer (attention, Mamba) and a feed-forward, twice a layer, once for a Nemotron-H block that holds one or the
  other (:func:`allreduces_per_step`).

:mod:`planner.advisor.engine_speed` turns these into seconds with the constants fitted to published measurements
(:mod:`planner.advisor.fit`).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Literal, NamedTuple

from planner.advisor.attended import prompt_pairs
from planner.advisor.hardware import LinkKind, link
from planner.advisor.kernels import ComputePath, llamacpp_flash_attention, moe_kernel_layer_seconds
from planner.advisor.matmuls import Matmuls, MoeShape, matmul_shapes, moe_shape
from planner.core.blocks import ATTENTION_KINDS, LayerKind
from planner.core.gpu import GpuSpec
from planner.core.kv import cached_tokens, kv_bytes_per_sequence
from planner.core.model import ModelSpec
from planner.core.params import ParameterBreakdown, parameter_breakdown
from planner.core.precision import weight_format
from planner.core.weights import category_bits
from planner.engines.registry import get_engine
from planner.engines.support import SpeedFamily

Family = SpeedFamily
Split = Literal["tensor", "layer", "pipeline"]
# GGUF weight types llama.cpp multiplies with its own quantized kernels (MMQ on CUDA, quantized shaders on Vulkan
# and Metal), not the 16-bit GEMMs of F16 / BF16 files. MXFP4 (gpt-oss's experts) is one: GGML_TYPE_MXFP4 in
# ggml (ggml-org/llama.cpp PR 15091, 2025-08-05: a new ggml type for CUDA, Vulkan, Metal) with its MMQ instance
# (PR 15880, generate_cu_files.py "add missing mxfp4").
GGUF_QUANTS = ("q8_0", "q6_k", "q5_k_m", "q4_k_m", "q3_k_m", "q2_k", "int4", "mxfp4")


class Setup(NamedTuple):
    """A set-up as the speed model sees it (one replica)."""

    gpu: GpuSpec
    family: Family
    path: ComputePath
    gpus: int  # GPUs one replica spans
    split: Split
    quantized_gguf: bool  # llama.cpp running a GGUF quant (its own matmul kernels)
    moe_layer_s: float = 0.0  # per MoE layer per step the engine's expert kernels add (planner.advisor.kernels)
    dequant_gemm: bool = False  # llama.cpp before PR 8075: a prompt's quant dequantized to FP16 for cuBLAS (kernels)
    kv_per_query_head: bool = False  # llama.cpp on Metal without flash attention: KV read per query head (kernels)
    flash_attention: bool = False  # llama.cpp's CUDA flash-attention kernel: attention at its own rate (kernels)
    prefill_chunk: int | None = None  # tokens a serving step prefills (:func:`prefill_chunk_tokens`); None: 8192
    attention_dp: bool = False  # each GPU attends its own requests (TensorRT-LLM enable_attention_dp): no KV copies
    attention_tp: int = 1  # with attention_dp: the GPUs each data-parallel rank's attention spans (its KV copies)
    engine: str = ""  # the registered engine (vLLM, SGLang, ...): whose measured MoE times apply (paged_moe)
    weights: str = ""  # the weight format's name (int4-awq, mxfp4, ...): which measured MoE kernel applies (paged_moe)
    release: str | None = None  # the engine release a measured run states (kernels.gemm_efficiency); None: current
    triton_attention: bool = False  # the engine's Triton attention backend: its prompt rate (triton_attention)

    @property
    def link(self) -> tuple[LinkKind, float]:
        return link(self.gpu, self.gpus)


def prefill_chunk_tokens(gpu: GpuSpec, engine: str, tensor_parallel: int) -> int | None:
    """The prompt tokens one serving step of ``engine`` takes at its defaults on ``gpu`` (``None``: the speed
    model's 8,192), as the engine states it (:meth:`planner.engines.base.Engine.prefill_chunk_tokens`: vLLM's
    ``max_num_batched_tokens``, SGLang's ``chunked_prefill_size``). A chunk reads every weight once
    (:func:`planner.advisor.engine_speed.prefill_in_serving`)."""
    return get_engine(engine).prefill_chunk_tokens(gpu.memory_bytes_for(True), gpu.name, tensor_parallel)


def setup_for(gpu: GpuSpec, engine: str, path: ComputePath, gpus: int, weights: str) -> Setup:
    """The :class:`Setup` of a registered serving engine: its speed family and how it splits a model (llama.cpp's
    layers, one GPU after another)."""
    support = get_engine(engine).support
    split: Split = "layer" if support.parallelism == "layer-split" else "tensor"
    family = support.speed_family
    layer_split = family == "layer-split"
    quantized = layer_split and weights in GGUF_QUANTS
    moe = moe_kernel_layer_seconds(gpu, engine, weights)
    flash = layer_split and llamacpp_flash_attention(gpu, None)  # a current build: flash attention on
    chunk = prefill_chunk_tokens(gpu, engine, gpus)
    return Setup(
        gpu, family, path, gpus, split, quantized, moe, flash_attention=flash, prefill_chunk=chunk, engine=engine,
        weights=weights,
    )  # fmt: skip


class Load(NamedTuple):
    """What one step (a decode step of ``batch`` sequences, or one prompt) asks of a whole replica."""

    tokens: int  # tokens processed: the batch for a decode step, the prompt for a prefill
    dense_bytes: float  # weights every step reads whole (attention, dense MLP, lm_head, norms)
    experts_bytes: float  # every routed expert (a step reads the share its tokens touch)
    expert_share: float  # k / E: the share of the routed experts one token uses (0: dense model)
    kv_bytes: float
    flops: float
    expert_flops: float  # the part of ``flops`` the routed experts' matmuls do
    allreduce_bytes: float  # bytes one all-reduce sums (tokens x hidden x 2)
    layers: int
    allreduces: int  # all-reduces one step runs under tensor parallelism (:func:`allreduces_per_step`)
    moe_layers: int  # layers with routed experts (each adds routing and grouped-GEMM launches)
    matrix_weights: float = 0.0  # weights of every matrix (dense and all experts): what a dequant pass writes
    query_groups: float = 1.0  # query heads per KV head (grouped-query attention; 1 for MLA and plain attention)
    attention_flops: float = 0.0  # the part of ``flops`` the attention matmuls do (scores and their weighted sum)
    matmuls: Matmuls | None = None  # a decode step's weight matmuls by shape (planner.advisor.matmuls)
    kv_heads: int = 0  # KV heads a token's cache has (0: MLA's one latent, which every tensor-parallel GPU holds)
    moe: MoeShape | None = None  # the routed experts by shape (planner.advisor.paged_moe, prompt_moe)

    def weights_bytes(self, locality: float) -> float:
        """Weights read this step: the dense part and the share of the experts the tokens touch."""
        if not self.experts_bytes:
            return self.dense_bytes
        touched = 1.0 - (1.0 - self.expert_share) ** (float(max(1, self.tokens)) ** locality)
        return float(self.dense_bytes + self.experts_bytes * touched)


# Routed experts a batch touches grow slower than under uniform routing: tokens of one batch share experts. The
# batch counts as ``B ** MOE_LOCALITY`` independent tokens (fitted with the speed constants: llama-batched-bench
# on DGX Spark, gpt-oss-120b at batch 8 and 32 and Qwen3-Coder-30B at 16 read 74 %, 55 % and 77 % of what uniform
# routing predicts; planner/advisor/benchmarks/llamacpp.toml).
DEFAULT_MOE_LOCALITY = 0.8


def experts_touched(params: ParameterBreakdown, tokens: int, locality: float = DEFAULT_MOE_LOCALITY) -> float:
    """The share of the routed experts one step of ``tokens`` tokens reads (0 for a dense model)."""
    if not params.experts:
        return 0.0
    share = params.experts_active / params.experts
    return float(1.0 - (1.0 - share) ** (float(max(1, tokens)) ** locality))


class WeightBytes(NamedTuple):
    """Bytes of a model's weights: what every step reads, and all the routed experts."""

    dense: float  # attention, dense MLP, norms, lm_head (or the tied embedding)
    experts: float  # every routed expert


def weight_bytes(
    params: ParameterBreakdown, weights: str, bits_per_weight: float | None = None, other_bits: float | None = None
) -> WeightBytes:
    """The bytes of ``weights``: ``bits_per_weight`` rescales a GGUF type the planner has no format for (Q4_0:
    4.5), ``other_bits`` gives the tensors other than the experts their own bits (a GGUF that keeps MXFP4 experts
    and Q8_0 attention)."""
    bits = category_bits(weight_format(weights), params.experts > 0)
    scale = 1.0 if bits_per_weight is None else bits_per_weight / float(weight_format(weights).bits_per_weight)
    head = params.lm_head or params.embedding
    head_bits = bits["lm_head"] if params.lm_head else bits["embedding"]
    if other_bits is not None:
        dense = (params.attention + params.dense_mlp + head) * other_bits + params.small * 16
    else:
        dense = float(
            params.attention * bits["attention"]
            + params.dense_mlp * bits["dense_mlp"]
            + params.small * bits["small"]
            + head * head_bits
        )
    return WeightBytes(float(dense) / 8 * scale, float(params.experts * bits["experts"]) / 8 * scale)


def weight_read_bytes(
    params: ParameterBreakdown,
    weights: str,
    tokens: int,
    bits_per_weight: float | None = None,
    other_bits: float | None = None,
    locality: float = DEFAULT_MOE_LOCALITY,
) -> float:
    """Bytes of weights one step of ``tokens`` tokens reads, whole model (one replica)."""
    w = weight_bytes(params, weights, bits_per_weight, other_bits)
    return w.dense + w.experts * experts_touched(params, tokens, locality)


def _q_width(model: ModelSpec) -> int:
    if model.num_attention_heads is None:
        return model.hidden_size or 0
    if model.mla is not None:
        return model.num_attention_heads * (model.mla.qk_nope_head_dim + model.mla.qk_rope_head_dim)
    return model.num_attention_heads * model.resolved_head_dim


@lru_cache(maxsize=256)
def _attention_layers(model: ModelSpec) -> tuple[tuple[LayerKind, int], ...]:
    """Softmax-attention layers by kind (shared-KV layers attend too)."""
    return tuple((kind, n) for kind, n in Counter(model.layers).items() if kind in ATTENTION_KINDS)


def attended_tokens(model: ModelSpec, context: int) -> int:
    """Tokens the attention layers attend to at ``context``, summed over layers (a window caps its layers)."""
    return sum(count * cached_tokens(model, kind, context) for kind, count in _attention_layers(model))


def matmul_parameters(params: ParameterBreakdown) -> int:
    """Parameters a token multiplies: the active ones without the input embedding (a gather), the lm_head or the
    tied embedding in its place."""
    head = params.lm_head or params.embedding
    return params.attention + params.dense_mlp + params.experts_active + params.small + head


@lru_cache(maxsize=256)
def _moe_layers(model: ModelSpec) -> int:
    """Layers with routed experts (all of a MoE model's layers but its leading dense ones)."""
    if model.moe is None:
        return 0
    return sum(1 for i in range(model.num_hidden_layers) if model.is_moe_layer(i))


@lru_cache(maxsize=256)
def allreduces_per_step(model: ModelSpec) -> int:
    """All-reduces of one forward pass under tensor parallelism: one after each row-parallel block, the token
    mixer's output projection and the feed-forward's down projection (or the MoE's combined output), two per
    layer; a Nemotron-H block holds a mixer *or* a feed-forward and reduces once (vLLM 0.19.1
    model_executor/models/nemotron_h.py: NemotronHMoE.forward ends in one
    ``maybe_all_reduce_tensor_model_parallel``, line 275; the attention block's o_proj, line 473, and
    MambaMixer2's out_proj, layers/mamba/mamba_mixer2.py:456, are RowParallelLinear; its gated norm reduces
    nothing when the TP size divides n_groups, mamba_mixer2.py:92-119)."""
    if not model.mixer_blocks_without_mlp:
        return 2 * model.num_hidden_layers
    return model.num_hidden_layers


def _query_groups(model: ModelSpec) -> float:
    """Query heads per KV head (1 without grouped-query attention, and for MLA's latent cache)."""
    if model.mla is not None or not model.num_attention_heads or not model.num_key_value_heads:
        return 1.0
    return model.num_attention_heads / model.num_key_value_heads


def _matrix_weights(params: ParameterBreakdown) -> float:
    """Weights of the matrices a step multiplies by: attention, MLP, every routed expert and the lm_head (or the
    tied embedding)."""
    return float(params.attention + params.dense_mlp + params.experts + (params.lm_head or params.embedding))


def _share(params: ParameterBreakdown) -> float:
    return params.experts_active / params.experts if params.experts else 0.0


def decode_load(
    model: ModelSpec,
    weights: str,
    kv_dtype: str,
    batch: int,
    context: int,
    params: ParameterBreakdown | None = None,
    bits_per_weight: float | None = None,
    other_bits: float | None = None,
) -> Load:
    """One decode step of ``batch`` sequences at ``context`` tokens, whole replica."""
    params = params or parameter_breakdown(model)
    batch = max(1, batch)
    attention = 4 * _q_width(model) * attended_tokens(model, context)
    per_token = 2 * matmul_parameters(params) + attention
    w = weight_bytes(params, weights, bits_per_weight, other_bits)
    return Load(
        tokens=batch,
        dense_bytes=w.dense,
        experts_bytes=w.experts,
        expert_share=_share(params),
        kv_bytes=float(batch * kv_bytes_per_sequence(model, kv_dtype, context)),
        flops=float(per_token * batch),
        expert_flops=float(2 * params.experts_active * batch),
        allreduce_bytes=float(batch * (model.hidden_size or 0) * 2),
        layers=model.num_hidden_layers,
        allreduces=allreduces_per_step(model),
        moe_layers=_moe_layers(model),
        matrix_weights=_matrix_weights(params),
        query_groups=_query_groups(model),
        attention_flops=float(attention * batch),
        matmuls=matmul_shapes(model),
        kv_heads=0 if model.mla is not None else model.resolved_kv_heads,
        moe=moe_shape(model),
    )


def prefill_load(
    model: ModelSpec,
    weights: str,
    prompt: int,
    depth: int = 0,
    params: ParameterBreakdown | None = None,
    bits_per_weight: float | None = None,
    other_bits: float | None = None,
) -> Load:
    """One prompt of ``prompt`` tokens after ``depth`` tokens already cached, whole replica: every weight read
    once, causal attention over the prompt and the cached tokens, each layer within its window or chunk
    (:func:`planner.advisor.attended.prompt_pairs`)."""
    params = params or parameter_breakdown(model)
    n = max(1, prompt)
    attention = 4 * _q_width(model) * prompt_pairs(model, depth, n)  # each layer's attended span (attended)
    w = weight_bytes(params, weights, bits_per_weight, other_bits)
    return Load(
        tokens=n,
        dense_bytes=w.dense,
        experts_bytes=w.experts,
        expert_share=_share(params),
        kv_bytes=0.0,
        flops=float(2 * matmul_parameters(params) * n + attention),
        expert_flops=float(2 * params.experts_active * n),
        allreduce_bytes=float(n * (model.hidden_size or 0) * 2),
        layers=model.num_hidden_layers,
        allreduces=allreduces_per_step(model),
        moe_layers=_moe_layers(model),
        matrix_weights=_matrix_weights(params),
        attention_flops=float(attention),
        moe=moe_shape(model),  # its chunks' routed experts by shape (planner.advisor.prompt_moe)
        matmuls=matmul_shapes(model),
    )
