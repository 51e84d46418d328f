"""llama.cpp's settings as an overhead model (:class:`LlamacppProfile`) and its KV-cache formula: contiguous cells
per slot, the layers on each device, K and V types (``llama-kv-cache.cpp``, ``llama-context.cpp``)."""

from __future__ import annotations

import math
from typing import Annotated, ClassVar, Literal

from pydantic import Field

from planner.core.blocks import LayerKind
from planner.core.kv import kinds_in, linear_state_bytes_per_layer
from planner.core.model import ModelSpec
from planner.core.overhead import (
    BuildTag,
    EngineProfile,
    LoadContext,
    OverheadBytes,
    PositiveInt,
    StageContext,
    mlp_width,
)
from planner.core.params import parameter_breakdown
from planner.core.units import GiB
from planner.deploy.offload import LLAMACPP_OUTPUT_FIRST_BUILD, embedding_bytes, llamacpp_build

LlamacppCacheType = Literal["f32", "f16", "q8_0", "q4_0"]
# ggml block sizes: f32 4 bytes, f16 2 bytes; block_q8_0 34 bytes / 32 values; block_q4_0 18 bytes / 32 values
# (ggml-common.h).
LLAMACPP_CACHE_BITS: dict[str, float] = {"f32": 32.0, "f16": 16.0, "q8_0": 8.5, "q4_0": 4.5}


LLAMACPP_CONTEXT_BYTES = round(0.3 * GiB)  # CUDA context + cuBLAS (indicative)


LLAMACPP_CTX_PAD = 256  # n_ctx is padded to 256 (llama-context.cpp, with flash attention)


# The planner's KV dtypes as llama.cpp cache types (llama-server --cache-type-k/-v, tools/server/README.md: f32,
# f16, bf16, q8_0, q4_0, ...); a 16-bit cache is its default f16 (the same size). No FP8 cache type: an FP8 KV
# cache is refused (planner.engines.llamacpp.engine), never stored as something else.
LLAMACPP_CACHE_NAMES: dict[str, LlamacppCacheType] = {
    "bf16": "f16",
    "fp16": "f16",
    "fp32": "f32",
    "int8": "q8_0",
    "int4": "q4_0",
}


# The newest build with a public start-up log behind it (a b9849 capture of Qwen3.5-9B at -ngl 20 and one of
# Qwen3.8-27B, tests/deploy/test_deploy.py, tests/engines/test_llamacpp_report.py): the default, as vLLM's default is
# its newest release with logs. b6000 (the two older logs) predates gpt-oss (b6096), Qwen3 hybrids and Gemma 4
# (planner/engines/model_releases/llamacpp.toml); the rules change at LLAMACPP_OUTPUT_FIRST_BUILD, not after it.
LLAMACPP_DEFAULT_BUILD = "b9849"


class LlamacppProfile(EngineProfile, frozen=True, extra="forbid"):
    """``llama-server`` settings: context, slots, cache types, GPU layers, micro-batch, flash attention."""

    kind: Literal["llamacpp"] = "llamacpp"
    splits_layers: ClassVar[bool] = True  # --split-mode layer (the default): whole layers per device
    default_kv_dtype: ClassVar[str | None] = "fp16"  # --cache-type-k/v f16 by default (common/common.h)
    engine_version: BuildTag = LLAMACPP_DEFAULT_BUILD
    n_ctx: PositiveInt | None = None  # None: the request's max_model_len
    n_parallel: PositiveInt | None = None  # -np; None: one slot, or one per target user (Engine.for_users)
    cache_type_k: LlamacppCacheType | None = None  # None: the request's KV dtype (LLAMACPP_CACHE_NAMES)
    cache_type_v: LlamacppCacheType | None = None
    n_gpu_layers: Annotated[int, Field(ge=0)] | None = None  # None: all (-ngl 99)
    n_ubatch: PositiveInt = 512
    flash_attn: bool = True
    kv_unified: bool = False  # --kv-unified: one KV stream shared by the slots instead of one per slot

    def loaded_weights_bytes(self, ctx: LoadContext) -> int:
        """The model buffer on one device: the stage's weights without ``token_embd``, which llama.cpp keeps in
        host memory whatever ``-ngl`` ("there is very little benefit to offloading the input layer",
        ``llama-model.cpp``; its ``CPU_Mapped model buffer``: 333.84 MiB beside ``CUDA0 model buffer size =
        4455.34 MiB`` for a public Qwen3-8B Q4_K_M start), and with it again on the last stage of a model with tied
        embeddings, whose output tensor is a GPU duplicate of it (``TENSOR_DUPLICATED``). On Apple silicon the
        Metal backend maps the whole file as the GPU's buffer (:attr:`DevicePlatform.maps_model_file`)."""
        # the stage's weights count the embedding split over its GPUs (a layer split planned as shards: each GPU's
        # share of every tensor), so each GPU's share of it comes off
        if ctx.platform is not None and ctx.platform.maps_model_file:
            return ctx.weights_bytes  # Metal: the whole file is the GPU's mapped buffer
        embedding = math.ceil(embedding_bytes(ctx.model, ctx.weights_format) / ctx.tensor_parallel)
        tied = parameter_breakdown(ctx.model).lm_head == 0
        weights = ctx.weights_bytes - (embedding if ctx.is_first_stage else 0)
        return max(0, weights + (embedding if ctx.is_last_stage and tied else 0))

    def for_kv_dtype(self, kv_dtype: str) -> LlamacppProfile:
        """This profile with the cache types of the planned KV dtype where it leaves them unset: what
        ``--cache-type-k/-v`` the launch command passes (an FP8 dtype is not one: f16, never reached, as
        :meth:`planner.engines.base.Engine.check` refuses it first)."""
        if self.cache_type_k is not None and self.cache_type_v is not None:
            return self
        cache = LLAMACPP_CACHE_NAMES.get(kv_dtype, "f16")
        return self.model_copy(
            update={"cache_type_k": self.cache_type_k or cache, "cache_type_v": self.cache_type_v or cache}
        )

    @property
    def slots(self) -> int:
        """The ``-np`` slots launched (conversations served at once)."""
        return self.n_parallel or 1

    def cells(self, n_ctx: int) -> int:
        """KV cells allocated for a total context ``n_ctx``: one padded stream per slot, or one shared."""
        if self.kv_unified or self.slots == 1:
            return math.ceil(n_ctx / LLAMACPP_CTX_PAD) * LLAMACPP_CTX_PAD
        per_slot = math.ceil(n_ctx / self.slots / LLAMACPP_CTX_PAD) * LLAMACPP_CTX_PAD
        return per_slot * self.slots

    def slot_context(self, n_ctx: int) -> int:
        """The context one request may use (``n_ctx_seq``)."""
        if self.kv_unified:
            return math.ceil(n_ctx / LLAMACPP_CTX_PAD) * LLAMACPP_CTX_PAD
        return math.ceil(n_ctx / self.slots / LLAMACPP_CTX_PAD) * LLAMACPP_CTX_PAD

    def gpu_layers(self, model: ModelSpec) -> int:
        return model.num_hidden_layers if self.n_gpu_layers is None else min(self.n_gpu_layers, model.num_hidden_layers)

    def compute_buffer_bytes(self, model: ModelSpec, n_ctx: int) -> int:
        """The CUDA compute buffer (indicative): a micro-batch of ``n_ubatch`` tokens through one layer and
        the output logits in fp32; without flash attention the ``n_ctx x n_ubatch`` score matrix per head."""
        hidden = model.hidden_size or 4096
        vocab = model.vocab_size or 32000
        per_token = 4 * (vocab + 4 * hidden + 2 * mlp_width(model))
        scores = 0 if self.flash_attn else 4 * n_ctx * (model.num_attention_heads or 32)
        return self.n_ubatch * (per_token + scores)

    @property
    def offloads_output_first(self) -> bool:
        """Builds from b7470 keep the output layer on the GPU first under ``-ngl`` (ggml-org/llama.cpp PR #18148)."""
        return llamacpp_build(self.engine_version) >= LLAMACPP_OUTPUT_FIRST_BUILD

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        return OverheadBytes(
            activation_bytes=self.compute_buffer_bytes(ctx.model, self.n_ctx or ctx.max_model_len or 4096),
            framework_bytes=LLAMACPP_CONTEXT_BYTES,
            reserved_bytes=0,
        )


def layer_span(model: ModelSpec, layers: int | range | None) -> range:
    """The layers on a device: all (``None``), the first ``layers``, or that range."""
    return layers if isinstance(layers, range) else range(model.num_hidden_layers if layers is None else layers)


def llamacpp_kv_bytes(
    model: ModelSpec,
    n_ctx: int,
    cache_type_k: str = "f16",
    cache_type_v: str = "f16",
    layers: int | range | None = None,
    n_seq: int = 1,
    n_ubatch: int = 512,
    unified: bool = True,
) -> int:
    """KV buffer llama.cpp allocates: ``n_ctx (padded to 256) x (n_embd_k_gqa x k bits + n_embd_v_gqa x v bits)``
    per full-attention layer (``llama_kv_cache`` in ``src/llama-kv-cache.cpp``); sliding-window layers get a
    cache of ``min(n_ctx, n_swa x n_seq + n_ubatch)`` cells (``llama_kv_cache_iswa``). Without a unified cache
    each of the ``n_seq`` slots has its own stream of ``n_ctx / n_seq`` cells padded to 256 (sliding-window
    streams ``min(that, n_swa + n_ubatch)``). MLA models cache the K latent only (mainline PR #19067).
    ``layers``: how many layers (the first ones) are on this device, or which (a range)."""
    pad = LLAMACPP_CTX_PAD
    streams = 1 if unified else n_seq
    ctx_padded = math.ceil(n_ctx / streams / pad) * pad
    half_k, half_v = round(2 * LLAMACPP_CACHE_BITS[cache_type_k]), round(2 * LLAMACPP_CACHE_BITS[cache_type_v])
    span = layer_span(model, layers)
    half_bits = 0  # exact: every cache type is a whole number of half bits per value
    for kind, count in kinds_in(model, span.start, span.stop):  # a handful of kinds, cached per stage
        if kind in (LayerKind.LINEAR, LayerKind.NONE):
            continue
        if model.mla is not None:
            k_values, v_values = model.mla.latent_dim, 0
        else:
            kv_heads, head_dim = model.kv_geometry(kind)  # Gemma 4 full layers: their own heads and head_dim
            k_values = v_values = kv_heads * head_dim
        cells = ctx_padded
        window = (
            model.sliding_window
            if kind is LayerKind.SLIDING
            else (model.attention_chunk_size if kind is LayerKind.CHUNKED else None)
        )
        if window is not None:
            swa = math.ceil((window * (n_seq // streams) + n_ubatch) / pad) * pad
            cells = min(ctx_padded, swa)
        half_bits += count * cells * streams * (k_values * half_k + v_values * half_v)
    return -(-half_bits // 16)


def llamacpp_rs_bytes(model: ModelSpec, layers: int | range | None = None, n_seq: int = 1) -> int:
    """Recurrent-state buffer llama.cpp allocates for a hybrid model's linear-attention / state-space layers: one
    conv state and one SSM / delta-rule state per sequence and layer, both F32 (``llama_memory_recurrent``: one
    cell per sequence, ``mem_size = max(1, n_seq_max)``; ``src/llama-model.cpp`` ``create_memory`` gives the
    recurrent types ``GGML_TYPE_F32``), whatever the KV cache type. A public b9849 start of Qwen3.8-27B prints
    "RS buffer size = 448.88 MiB (1 cells, 64 layers, 1 seqs 2 rs_seq), R (f32): 16.88 MiB, S (f32): 432.00
    MiB": three states of 149.625 MiB (its two MTP draft positions keep a state each, not planned here), and
    4 slots 1795.50 MiB.

    >>> from model_catalog import get_model
    >>> llamacpp_rs_bytes(get_model("Qwen/Qwen3.8-27B").spec) / 2**20
    149.625
    """
    span = layer_span(model, layers)
    linear = sum(count for kind, count in kinds_in(model, span.start, span.stop) if kind is LayerKind.LINEAR)
    return n_seq * linear * linear_state_bytes_per_layer(model, 32) if linear else 0
