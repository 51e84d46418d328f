"""llama.cpp (``llama-server``): no memory fraction; the KV cache for ``n_ctx`` tokens is allocated at load,
split over ``--parallel`` slots; ``-ngl`` layers live on the GPU, the rest (weights and their KV) in system RAM.

Source: ``src/llama-kv-cache.cpp`` (``llama_kv_cache``, ``llama_kv_cache_iswa``), ``src/llama-context.cpp``
(``n_ctx`` padding; ``n_ctx_seq = n_ctx / n_seq_max`` unless ``kv_unified``), ``ggml/src/ggml-common.h`` (cache
type block sizes). Current builds keep ``kv_unified`` false by default, so each of the ``-np`` slots gets its own
KV stream of ``n_ctx / np`` cells, padded to 256 (a b10644 launch prints ``n_seq_max = 4``, ``n_ctx = 8192``,
``n_ctx_seq = 2048``, ``kv_unified = false``; public test fixture, find_string id 70266260822); with
``--kv-unified`` (``-kvu``) the slots share one stream of the padded ``n_ctx``.
"""

from __future__ import annotations

import math
from typing import Annotated, ClassVar, Literal

from pydantic import Field

from planner.engines.base import EngineProfile, EngineVersion, OverheadBytes, PositiveInt, StageContext, mlp_width
from planner.engines.checkpoints import weight_loading, with_note
from planner.engines.common import Engine, EngineReport, engine_total_bytes
from planner.errors import PlannerError
from planner.model import LayerKind, ModelSpec
from planner.plan import PlanRequest, PlanResult
from planner.units import GiB, MiB

LlamacppCacheType = Literal["f16", "q8_0", "q4_0"]
# ggml block sizes: f16 2 bytes; block_q8_0 34 bytes / 32 values; block_q4_0 18 bytes / 32 values (ggml-common.h).
LLAMACPP_CACHE_BITS: dict[str, float] = {"f16": 16.0, "q8_0": 8.5, "q4_0": 4.5}
LLAMACPP_CONTEXT_BYTES = round(0.3 * GiB)  # CUDA context + cuBLAS (indicative)
LLAMACPP_CTX_PAD = 256  # n_ctx is padded to 256 (llama-context.cpp, with flash attention)
# The planner's KV dtypes as llama.cpp cache types (--cache-type-k/-v).
LLAMACPP_CACHE_NAMES = {
    "bf16": "f16",
    "fp16": "f16",
    "fp32": "f16",
    "int8": "q8_0",
    "fp8": "q8_0",
    "fp8_e4m3": "q8_0",
    "fp8_e5m2": "q8_0",
    "int4": "q4_0",
}


class LlamacppProfile(EngineProfile, frozen=True, extra="forbid"):
    """``llama-server`` settings: context, slots, cache types, GPU layers, micro-batch, flash attention."""

    kind: Literal["llamacpp"] = "llamacpp"
    engine_version: EngineVersion = "b6000"
    n_ctx: PositiveInt | None = None  # None: the request's max_model_len
    n_parallel: PositiveInt = 1
    cache_type_k: LlamacppCacheType = "f16"
    cache_type_v: LlamacppCacheType = "f16"
    n_gpu_layers: Annotated[int, Field(ge=0)] | None = None  # None: all (-ngl 99)
    n_ubatch: PositiveInt = 512
    flash_attn: bool = True
    kv_unified: bool = False  # --kv-unified: one KV stream shared by the slots instead of one per slot

    def cells(self, n_ctx: int) -> int:
        """KV cells allocated for a total context ``n_ctx``: one padded stream per slot, or one shared."""
        if self.kv_unified or self.n_parallel == 1:
            return math.ceil(n_ctx / LLAMACPP_CTX_PAD) * LLAMACPP_CTX_PAD
        per_slot = math.ceil(n_ctx / self.n_parallel / LLAMACPP_CTX_PAD) * LLAMACPP_CTX_PAD
        return per_slot * self.n_parallel

    def slot_context(self, n_ctx: int) -> int:
        """The context one request may use (``n_ctx_seq``)."""
        if self.kv_unified:
            return math.ceil(n_ctx / LLAMACPP_CTX_PAD) * LLAMACPP_CTX_PAD
        return math.ceil(n_ctx / self.n_parallel / LLAMACPP_CTX_PAD) * LLAMACPP_CTX_PAD

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

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
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
    unified: bool = True,
) -> int:
    """KV buffer llama.cpp allocates: ``n_ctx (padded to 256) x (n_embd_k_gqa x k bits + n_embd_v_gqa x v bits)``
    per full-attention layer (``llama_kv_cache`` in ``src/llama-kv-cache.cpp``); sliding-window layers get a
    cache of ``min(n_ctx, n_swa x n_seq + n_ubatch)`` cells (``llama_kv_cache_iswa``). Without a unified cache
    each of the ``n_seq`` slots has its own stream of ``n_ctx / n_seq`` cells padded to 256 (sliding-window
    streams ``min(that, n_swa + n_ubatch)``). MLA models cache the K latent only (mainline PR #19067).
    ``layers``: how many layers (the first ones) are on this device."""
    pad = LLAMACPP_CTX_PAD
    streams = 1 if unified else n_seq
    ctx_padded = math.ceil(n_ctx / streams / pad) * pad
    if model.mla is not None:
        k_values, v_values = model.mla.latent_dim, 0
    else:
        k_values = v_values = model.resolved_kv_heads * model.resolved_head_dim
    per_cell = k_values * LLAMACPP_CACHE_BITS[cache_type_k] / 8 + v_values * LLAMACPP_CACHE_BITS[cache_type_v] / 8
    total = 0.0
    count = model.num_hidden_layers if layers is None else layers
    for kind in model.kv_kinds[:count]:
        if kind in (LayerKind.LINEAR, LayerKind.NONE):
            continue
        if model.mla is not None:
            k_values, v_values = model.mla.latent_dim, 0
        else:
            kv_heads, head_dim = model.kv_geometry(kind)  # Gemma 4 full layers: their own heads and head_dim
            k_values = v_values = kv_heads * head_dim
        per_cell = k_values * LLAMACPP_CACHE_BITS[cache_type_k] / 8 + v_values * LLAMACPP_CACHE_BITS[cache_type_v] / 8
        cells = ctx_padded
        window = (
            model.sliding_window
            if kind is LayerKind.SLIDING
            else (model.attention_chunk_size if kind is LayerKind.CHUNKED else None)
        )
        if window is not None:
            swa = math.ceil((window * (n_seq // streams) + n_ubatch) / pad) * pad
            cells = min(ctx_padded, swa)
        total += cells * streams * per_cell
    return math.ceil(total)


def _lines(model: ModelSpec, profile: LlamacppProfile, n_ctx: int, weights: int, kv: int, compute: int) -> list[str]:
    gpu_layers = profile.gpu_layers(model)
    k_share = kv / 2 if model.mla is None else kv
    return [
        f"llm_load_tensors: offloaded {gpu_layers}/{model.num_hidden_layers} layers to GPU",
        f"llm_load_tensors:      CUDA0 buffer size = {weights / MiB:.2f} MiB",
        f"llama_context: n_seq_max     = {profile.n_parallel}",
        f"llama_context: n_ctx         = {profile.cells(n_ctx)}",
        f"llama_context: n_ctx_seq     = {profile.slot_context(n_ctx)}",
        f"llama_context: kv_unified    = {'true' if profile.kv_unified else 'false'}",
        f"llama_kv_cache_init:      CUDA0 KV buffer size = {kv / MiB:.2f} MiB",
        f"llama_new_context_with_model: KV self size  = {kv / MiB:.2f} MiB, K ({profile.cache_type_k}): "
        f"{k_share / MiB:.2f} MiB, V ({profile.cache_type_v}): {(kv - k_share) / MiB:.2f} MiB",
        f"llama_new_context_with_model:      CUDA0 compute buffer size = {compute / MiB:.2f} MiB",
    ]


def llamacpp_report(request: PlanRequest, result: PlanResult, profile: LlamacppProfile) -> EngineReport:
    """The buffer sizes ``llama-server`` prints; it fits when weights, KV, compute buffer and context fit."""
    model, total = request.model, engine_total_bytes(request)
    n_ctx = profile.n_ctx or result.max_model_len
    gpu_layers = profile.gpu_layers(model)
    kv_args = (profile.cache_type_k, profile.cache_type_v)
    n_seq, ubatch, unified = profile.n_parallel, profile.n_ubatch, profile.kv_unified
    kv = llamacpp_kv_bytes(model, n_ctx, *kv_args, gpu_layers, n_seq, ubatch, unified)
    kv_all = llamacpp_kv_bytes(model, n_ctx, *kv_args, None, n_seq, ubatch, unified)
    weights_total = result.weights_bytes_total
    layers = model.num_hidden_layers
    weights = weights_total if gpu_layers >= layers else math.ceil(weights_total * gpu_layers / layers)
    compute = profile.compute_buffer_bytes(model, n_ctx)
    used = weights + kv + compute + LLAMACPP_CONTEXT_BYTES
    fits = used <= total
    notes = []
    if gpu_layers < layers:
        notes.append(
            f"{layers - gpu_layers} layers stay in system RAM with their KV cache "
            f"({(weights_total - weights) / GiB:.2f} GiB weights, {(kv_all - kv) / GiB:.2f} GiB KV)."
        )
    failure = None
    if not fits:
        kind = "weights-oom" if weights + LLAMACPP_CONTEXT_BYTES > total else "out-of-memory"
        failure = (
            kind,
            f"ggml_backend_cuda_buffer_type_alloc_buffer: allocating {used / MiB:.2f} MiB on device 0: cudaMalloc "
            f"failed: out of memory ({total / MiB:.2f} MiB on the GPU)",
        )
    return EngineReport(
        engine="llamacpp",
        engine_version=profile.engine_version,
        total_memory_bytes=total,
        budget_bytes=total,
        weights_bytes=weights,
        activation_bytes=compute,
        non_torch_bytes=LLAMACPP_CONTEXT_BYTES,
        cuda_graph_bytes=0,
        available_kv_cache_bytes_per_gpu=kv,
        min_available_kv_cache_bytes=kv,
        block_size=1,
        gpu_blocks=0,
        kv_cache_groups=1,
        kv_cache_tokens=profile.cells(n_ctx),
        max_model_len=profile.slot_context(n_ctx),
        max_concurrency=float(profile.n_parallel),
        fits_max_model_len=fits,
        estimated_max_model_len=None,
        fits=fits,
        lines=tuple(_lines(model, profile, n_ctx, weights, kv, compute)) + ((failure[1],) if failure else ()),
        notes=tuple(notes),
        failure_kind=failure[0] if failure else None,
        failure=failure[1] if failure else None,
    )


def llamacpp_max_model_len(request: PlanRequest, result: PlanResult, profile: LlamacppProfile) -> int:
    """The largest ``-c`` per slot that still fits (a binary search over the report), capped at the model's
    maximum."""
    low, high = 0, request.model.max_position_embeddings
    while low < high:
        mid = (low + high + 1) // 2
        trial = profile.model_copy(update={"n_ctx": mid * profile.n_parallel})
        if llamacpp_report(request, result, trial).fits:
            low = mid
        else:
            high = mid - 1
    return low


class LlamacppEngine(Engine):
    name: ClassVar[str] = "llamacpp"
    label: ClassVar[str] = "llama.cpp"
    description: ClassVar[str] = "llama.cpp: contiguous KV for the whole context, compute buffers"
    profile_type: ClassVar[type[EngineProfile]] = LlamacppProfile
    fraction_flag: ClassVar[str | None] = None
    default_fraction: ClassVar[float | None] = None
    full_pool_behaviour: ClassVar[str] = (
        "llama-server splits its context (-c) into fixed slots (-np): each conversation owns ctx/np tokens and "
        "cannot borrow from another, so the pool never overflows as a whole. A conversation that reaches its slot "
        "size is stopped (or, with context shift on, loses its oldest tokens); requests beyond the number of slots "
        "wait for a free one. It plans for the maximum by construction and pays for it in idle memory."
    )

    def profile(
        self,
        *,
        fraction: float | None = None,
        version: str | None = None,
        max_num_batched_tokens: int | None = None,
    ) -> EngineProfile:
        return LlamacppProfile.model_validate({"engine_version": version} if version else {})

    def _own(self, profile: EngineProfile | None) -> LlamacppProfile:
        if profile is None:
            return LlamacppProfile()
        if not isinstance(profile, LlamacppProfile):
            raise PlannerError(f"engine: a {profile.kind!r} profile is not a llama.cpp profile")
        return profile

    def report(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> EngineReport:
        return llamacpp_report(request, result, self._own(profile))

    def launch_command(self, request: PlanRequest, result: PlanResult, profile: EngineProfile | None) -> str:
        lc = self._own(profile)
        tp, pp = result.tensor_parallel, result.pipeline_parallel
        ngl = 99 if lc.n_gpu_layers is None else lc.n_gpu_layers
        loading = weight_loading(self.name, request.model, result.weights)
        cache = LLAMACPP_CACHE_NAMES.get(result.kv_dtype, "f16")
        kv_flags = "" if cache == "f16" else f" --cache-type-k {cache} --cache-type-v {cache}"
        command = (
            f"llama-server -m {loading.model_argument} -c {result.max_model_len * lc.n_parallel}"
            f" -np {lc.n_parallel} -ngl {ngl}{' -kvu' if lc.kv_unified else ''}"
            f"{' -fa on' if lc.flash_attn else ''}{kv_flags}"
        )
        if tp > 1 or pp > 1:
            command += f" --split-mode layer --tensor-split {','.join(['1'] * (tp * pp))}"
        return with_note(command, loading)

    def max_model_len(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> int:
        return llamacpp_max_model_len(request, result, self._own(profile))


ENGINE = LlamacppEngine()
