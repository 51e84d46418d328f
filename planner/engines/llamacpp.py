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
from typing import Annotated, ClassVar, Literal, NamedTuple

from pydantic import Field

from planner.core.kv import kinds_in
from planner.core.model import LayerKind, ModelSpec
from planner.core.overhead import EngineProfile, EngineVersion, OverheadBytes, PositiveInt, StageContext, mlp_width
from planner.core.parallel import stage_layer_ranges
from planner.core.units import GiB, MiB
from planner.engines.base import Engine, EngineReport, engine_total_bytes, own_profile, stage_total_bytes
from planner.engines.checkpoints import weight_loading, with_note
from planner.planning.extras import kv_layers, layer_offload
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult

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
    n_parallel: PositiveInt | None = None  # -np; None: one slot, or one per target user (Engine.for_users)
    cache_type_k: LlamacppCacheType = "f16"
    cache_type_v: LlamacppCacheType = "f16"
    n_gpu_layers: Annotated[int, Field(ge=0)] | None = None  # None: all (-ngl 99)
    n_ubatch: PositiveInt = 512
    flash_attn: bool = True
    kv_unified: bool = False  # --kv-unified: one KV stream shared by the slots instead of one per slot

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
    span = range(model.num_hidden_layers if layers is None else layers) if not isinstance(layers, range) else layers
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


class _Device(NamedTuple):
    """One GPU as llama.cpp fills it."""

    weights: int  # model buffer (with a draft model's)
    kv: int  # KV buffer of the layers on it
    other: int  # held by other processes before llama-server starts
    total: int


def _devices(request: PlanRequest, result: PlanResult, profile: LlamacppProfile, n_ctx: int) -> list[_Device]:
    """Each device's buffers: the plan's per-stage weights with mixed GPUs or a deployment's -ngl (planner.deploy),
    else the profile's ``n_gpu_layers`` (the first layers, weights in proportion)."""
    model, options = request.model, request.deployment

    def kv(layers: int | range) -> int:
        return _kv(request, profile, n_ctx, layers)

    if options is not None and (options.stage_gpus or layer_offload(options)):
        out = []
        for index, stage in enumerate(result.stages):
            gpu_kv = kv_layers(request, range(*stage.layers))
            total = stage_total_bytes(request, result, index)
            out.append(_Device(stage.weights_bytes + stage.draft_bytes, kv(gpu_kv), stage.other_bytes, total))
        return out
    gpu_layers = profile.gpu_layers(model)
    weights_total = result.weights_bytes_total
    layers = model.num_hidden_layers
    stage = result.stages[0]
    devices = result.tensor_parallel * result.pipeline_parallel
    if devices > 1 and gpu_layers >= layers:
        # --split-mode layer --tensor-split 1,1,...: whole layers spread evenly over the devices
        # (llama_model::load_tensors splits the layers by the split's cumulative fractions), weights in proportion
        total = engine_total_bytes(request)
        return [
            _Device(math.ceil(weights_total * len(part) / layers), kv(part), stage.other_bytes, total)
            for part in stage_layer_ranges(layers, devices)
        ]
    weights = weights_total if gpu_layers >= layers else math.ceil(weights_total * gpu_layers / layers)
    return [_Device(weights + stage.draft_bytes, kv(gpu_layers), stage.other_bytes, engine_total_bytes(request))]


def _offloaded_line(request: PlanRequest, profile: LlamacppProfile) -> str:
    """``offloaded N/M layers``: M counts the output layer (``n_layer + 1``), N is ``min(-ngl, M)``."""
    n = request.model.num_hidden_layers
    options = request.deployment
    if options is not None and options.gpu_layers is not None:
        ngl = options.gpu_layers
    else:
        ngl = n + 1 if profile.n_gpu_layers is None else profile.n_gpu_layers
    return f"llm_load_tensors: offloaded {min(ngl, n + 1)}/{n + 1} layers to GPU"


def _lines(
    request: PlanRequest, profile: LlamacppProfile, n_ctx: int, devices: list[_Device], compute: int, kv_all: int
) -> list[str]:
    kv = sum(d.kv for d in devices)
    host_kv = kv_all - kv if profile.n_gpu_layers is None else 0
    k_share = kv / 2 if request.model.mla is None else kv
    lines = [_offloaded_line(request, profile)]
    lines += [f"llm_load_tensors:      CUDA{i} buffer size = {d.weights / MiB:.2f} MiB" for i, d in enumerate(devices)]
    lines += [
        f"llama_context: n_seq_max     = {profile.slots}",
        f"llama_context: n_ctx         = {profile.cells(n_ctx)}",
        f"llama_context: n_ctx_seq     = {profile.slot_context(n_ctx)}",
        f"llama_context: kv_unified    = {'true' if profile.kv_unified else 'false'}",
    ]
    lines += [f"llama_kv_cache_init:      CUDA{i} KV buffer size = {d.kv / MiB:.2f} MiB" for i, d in enumerate(devices)]
    if host_kv > 0:
        lines.append(f"llama_kv_cache_init:        CPU KV buffer size = {host_kv / MiB:.2f} MiB")
    lines += [
        f"llama_new_context_with_model: KV self size  = {kv / MiB:.2f} MiB, K ({profile.cache_type_k}): "
        f"{k_share / MiB:.2f} MiB, V ({profile.cache_type_v}): {(kv - k_share) / MiB:.2f} MiB",
        f"llama_new_context_with_model:      CUDA0 compute buffer size = {compute / MiB:.2f} MiB",
    ]
    return lines


def _host_note(request: PlanRequest, result: PlanResult, profile: LlamacppProfile, n_ctx: int, kv: int) -> str | None:
    """What stays in system RAM: the weights and KV of the CPU layers (and experts kept there)."""
    kv_all = _kv(request, profile, n_ctx, None)
    device_weights = sum(s.weights_bytes for s in result.stages)
    host_weights = max(0, result.weights_bytes_total - device_weights)
    if kv_all - kv <= 0 and host_weights <= 0:
        return None
    return (
        f"System RAM holds {host_weights / GiB:.2f} GiB of weights (token_embd and every CPU layer) and "
        f"{(kv_all - kv) / GiB:.2f} GiB of KV cache (CPU layers' cache stays on the CPU)."
    )


class _Fill(NamedTuple):
    n_ctx: int  # -c as launched: max_model_len per slot unless the profile sets it
    compute: int
    devices: list[_Device]
    used: list[int]  # per device
    short: list[int]  # the devices it does not fit on


def _fill(request: PlanRequest, result: PlanResult, profile: LlamacppProfile) -> _Fill:
    """What llama-server allocates on each device, and where it runs out."""
    n_ctx = profile.n_ctx or result.max_model_len * profile.slots
    compute = profile.compute_buffer_bytes(request.model, n_ctx)
    devices = _devices(request, result, profile, n_ctx)
    used = [d.weights + d.kv + compute + LLAMACPP_CONTEXT_BYTES + d.other for d in devices]
    return _Fill(n_ctx, compute, devices, used, [i for i, d in enumerate(devices) if used[i] > d.total])


def _slots_note(profile: LlamacppProfile, n_ctx: int, device: _Device, used: int) -> str | None:
    """With several slots out of memory: how many of them fit beside the weights and buffers (each slot's KV
    stream is the same size)."""
    if profile.slots < 2 or device.kv <= 0:
        return None
    per_slot = device.kv / profile.slots
    fit = max(0, math.floor((device.total - (used - device.kv)) / per_slot))
    return (
        f"-np {profile.slots} slots of {profile.slot_context(n_ctx):,} tokens need {device.kv / GiB:.2f} GiB of KV "
        f"cache on this GPU; {fit:,} slot{'' if fit == 1 else 's'} would fit."
    )


def llamacpp_report(request: PlanRequest, result: PlanResult, profile: LlamacppProfile) -> EngineReport:
    """The buffer sizes ``llama-server`` prints; it fits when weights, KV, compute buffer and context fit on every
    device."""
    n_ctx, compute, devices, used, short = _fill(request, result, profile)
    first, kv = devices[0], sum(d.kv for d in devices)
    kv_all = _kv(request, profile, n_ctx, None)
    note = _host_note(request, result, profile, n_ctx, kv) if profile.n_gpu_layers is None else None
    failure = None
    if short:
        i, d = short[0], devices[short[0]]
        kind = "weights-oom" if d.weights + LLAMACPP_CONTEXT_BYTES + d.other > d.total else "out-of-memory"
        failure = (
            kind,
            f"ggml_backend_cuda_buffer_type_alloc_buffer: allocating {used[i] / MiB:.2f} MiB on device {i}: cudaMalloc "
            f"failed: out of memory ({d.total / MiB:.2f} MiB on the GPU)",
        )
    slots = _slots_note(profile, n_ctx, devices[short[0]], used[short[0]]) if short else None
    return EngineReport(
        engine="llamacpp",
        engine_version=profile.engine_version,
        total_memory_bytes=first.total,
        budget_bytes=first.total,
        weights_bytes=first.weights,
        activation_bytes=compute,
        non_torch_bytes=LLAMACPP_CONTEXT_BYTES,
        cuda_graph_bytes=0,
        available_kv_cache_bytes_per_gpu=first.kv,
        min_available_kv_cache_bytes=max(kv, kv_all),  # the CPU layers' KV serves too
        block_size=1,
        gpu_blocks=0,
        kv_cache_groups=1,
        kv_cache_tokens=profile.cells(n_ctx),
        max_model_len=profile.slot_context(n_ctx),
        max_concurrency=float(profile.slots),
        fits_max_model_len=not short,
        estimated_max_model_len=None,
        fits=not short,
        lines=tuple(_lines(request, profile, n_ctx, devices, compute, kv_all)) + ((failure[1],) if failure else ()),
        notes=tuple(n for n in (note, _legacy_note(request, result, profile, n_ctx), slots) if n),
        failure_kind=failure[0] if failure else None,
        failure=failure[1] if failure else None,
    )


def _kv(request: PlanRequest, profile: LlamacppProfile, n_ctx: int, layers: int | range | None) -> int:
    """:func:`llamacpp_kv_bytes` with the profile's cache types, slots and micro-batch."""
    return llamacpp_kv_bytes(
        request.model,
        n_ctx,
        profile.cache_type_k,
        profile.cache_type_v,
        layers,
        n_seq=profile.slots,
        n_ubatch=profile.n_ubatch,
        unified=profile.kv_unified,
    )


def _legacy_note(request: PlanRequest, result: PlanResult, profile: LlamacppProfile, n_ctx: int) -> str | None:
    """The profile's own ``n_gpu_layers`` (weights in proportion, the first layers' KV on the GPU)."""
    model = request.model
    gpu_layers = profile.gpu_layers(model)
    if profile.n_gpu_layers is None or gpu_layers >= model.num_hidden_layers:
        return None
    kv, kv_all = _kv(request, profile, n_ctx, gpu_layers), _kv(request, profile, n_ctx, None)
    weights_total = result.weights_bytes_total
    weights = math.ceil(weights_total * gpu_layers / model.num_hidden_layers)
    return (
        f"{model.num_hidden_layers - gpu_layers} layers stay in system RAM with their KV cache "
        f"({(weights_total - weights) / GiB:.2f} GiB weights, {(kv_all - kv) / GiB:.2f} GiB KV)."
    )


def llamacpp_max_model_len(request: PlanRequest, result: PlanResult, profile: LlamacppProfile) -> int:
    """The largest ``-c`` per slot that still fits (a binary search over the report), capped at the model's
    maximum."""
    low, high = 0, request.model.max_position_embeddings
    while low < high:
        mid = (low + high + 1) // 2
        trial = profile.model_copy(update={"n_ctx": mid * profile.slots})
        if llamacpp_report(request, result, trial).fits:
            low = mid
        else:
            high = mid - 1
    return low


def llamacpp_slots_that_fit(request: PlanRequest, result: PlanResult, profile: LlamacppProfile, most: int) -> int:
    """The most ``-np`` slots, up to ``most``, whose KV fits beside the weights and buffers (a binary search over
    the report: sliding-window caches do not grow in proportion); 1 when not even one fits."""
    low, high = 1, max(1, most)
    while low < high:
        mid = (low + high + 1) // 2
        if not _fill(request, result, profile.model_copy(update={"n_parallel": mid})).short:
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
    fixed_slots: ClassVar[bool] = True
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
        return own_profile(profile, LlamacppProfile, "a llama.cpp profile")

    def for_users(
        self, request: PlanRequest, result: PlanResult, profile: EngineProfile, users_per_replica: int
    ) -> EngineProfile:
        """``-np``: one slot per target user, or the most that fit (each slot holds ``-c / -np`` tokens; the KV
        of all of them is allocated at start). Without ``-np`` llama-server starts one slot, or in builds since
        late 2025 four sharing one context (ggml-org/llama.cpp#16736, #17300): neither is sized for a target."""
        lc = self._own(profile)
        if lc.n_parallel is not None:
            return lc
        return lc.model_copy(update={"n_parallel": llamacpp_slots_that_fit(request, result, lc, users_per_replica)})

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
            f"llama-server -m {loading.model_argument} -c {result.max_model_len * lc.slots}"
            f" -np {lc.slots} -ngl {ngl}{' -kvu' if lc.kv_unified else ''}"
            f"{' -fa on' if lc.flash_attn else ''}{kv_flags}"
        )
        if tp > 1 or pp > 1:
            command += f" --split-mode layer --tensor-split {','.join(['1'] * (tp * pp))}"
        return with_note(command, loading)

    def max_model_len(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> int:
        return llamacpp_max_model_len(request, result, self._own(profile))


ENGINE = LlamacppEngine()
