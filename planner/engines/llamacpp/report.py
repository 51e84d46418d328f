"""What llama.cpp prints at start-up for a plan: the buffers per device, the slots, the context it accepts
(``llama-model.cpp`` ``load_tensors``, ``llama-kv-cache.cpp``, ``llama-context.cpp``)."""

from __future__ import annotations

import math
from typing import NamedTuple

from planner.core.gpu import GpuSpec
from planner.core.units import GiB, MiB
from planner.engines.base import EngineReport, engine_total_bytes, stage_total_bytes
from planner.engines.llamacpp.backend import device_name, llamacpp_backend
from planner.engines.llamacpp.log_names import log_names
from planner.engines.llamacpp.profile import (
    LLAMACPP_CACHE_BITS,
    LLAMACPP_CONTEXT_BYTES,
    LlamacppProfile,
    llamacpp_kv_bytes,
    llamacpp_rs_bytes,
)
from planner.planning.extras import kv_layers, layer_offload, stage_drafter
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult


class _Device(NamedTuple):
    """One GPU as llama.cpp fills it."""

    weights: int  # model buffer (with a draft model's)
    kv: int  # KV buffer of the layers on it, with their recurrent states (``rs`` of it)
    other: int  # held by other processes before llama-server starts
    total: int
    rs: int = 0  # recurrent-state buffer of its linear-attention / state-space layers (llamacpp_rs_bytes)
    draft_kv: int = 0  # the draft model's own context's KV buffer on it (--model-draft)


def _devices(request: PlanRequest, result: PlanResult, profile: LlamacppProfile, n_ctx: int) -> list[_Device]:
    """Each device's buffers: the plan's per-stage weights over several GPUs (a stage each, mixed or alike) or with a
    deployment's -ngl (planner.deploy), else the profile's ``n_gpu_layers`` (the first layers, weights in
    proportion)."""
    model, options = request.model, request.deployment

    def kv(layers: int | range) -> int:
        return _cache(request, profile, n_ctx, layers)

    def rs(layers: int | range) -> int:
        return _rs(request, profile, layers)

    cells = profile.cells(n_ctx)  # the draft's contexts hold the slots' tokens too (a context a slot, as theirs)
    if len(result.stages) > 1 or (options is not None and (options.stage_gpus or layer_offload(options))):
        # a GPU a stage, its layers as llama.cpp places them (planner.planning.extras.layer_ranges)
        out = []
        for index, stage in enumerate(result.stages):
            gpu_kv = kv_layers(request, range(*stage.layers))
            total = stage_total_bytes(request, result, index)
            weights = stage.weights_bytes + stage.draft_bytes
            draft_kv = _draft_kv(request, result, index, cells)
            out.append(_Device(weights, kv(gpu_kv), stage.other_bytes, total, rs(gpu_kv), draft_kv))
        return out
    gpu_layers = profile.gpu_layers(model)
    weights_total = result.gpu_weights_bytes_per_replica  # token_embd left in host memory (loaded_weights_bytes)
    layers = model.num_hidden_layers
    stage = result.stages[0]
    draft, draft_kv = stage.draft_bytes, _draft_kv(request, result, 0, cells)
    weights = weights_total if gpu_layers >= layers else math.ceil(weights_total * gpu_layers / layers)
    total = engine_total_bytes(request)
    return [_Device(weights + draft, kv(gpu_layers), stage.other_bytes, total, rs(gpu_layers), draft_kv)]


def _draft_note(devices: list[_Device]) -> str | None:
    """The draft model's own context: its KV buffer, which llama-server prints under the draft context's lines."""
    most = max(d.draft_kv for d in devices)
    if most <= 0:
        return None
    return (
        f"The draft model's context (--model-draft) holds its own KV cache: {most / MiB:,.2f} MiB on "
        + ("the GPU" if len(devices) == 1 else "each GPU")
        + ", counted beside the target's."
    )


def _draft_kv(request: PlanRequest, result: PlanResult, index: int, cells: int) -> int:
    """The draft model's cache on a GPU of stage ``index`` for ``cells`` tokens (the plan's drafter, a share on
    each GPU of a split: :func:`planner.planning.extras.stage_drafter`; llama-server gives each slot's draft context
    the slot's size, ``--ctx-size-draft`` unset, and its cache type is the target's, which the command sets)."""
    last = index == len(result.stages) - 1
    return stage_drafter(request, result.tensor_parallel, last, stages=len(result.stages)).kv_bytes_per_token * cells


def _offloaded_line(request: PlanRequest, profile: LlamacppProfile) -> str:
    """``offloaded N/M layers``: M counts the output layer (``n_layer + 1``), N is ``min(-ngl, M)``."""
    n = request.model.num_hidden_layers
    options = request.deployment
    if options is not None and options.gpu_layers is not None:
        ngl = options.gpu_layers
    else:
        ngl = n + 1 if profile.n_gpu_layers is None else profile.n_gpu_layers
    return f"{log_names(profile.engine_version).tensors}: offloaded {min(ngl, n + 1)}/{n + 1} layers to GPU"


def _lines(
    request: PlanRequest, profile: LlamacppProfile, n_ctx: int, devices: list[_Device], compute: int, kv_all: int
) -> list[str]:
    # the size line sums every attention layer's K and V whatever its device, the CPU layers' too (size_k_bytes /
    # size_v_bytes, src/llama-kv-cache.cpp); the recurrent states print their own
    kv = _kv(request, profile, n_ctx, None)
    host_kv = kv_all - sum(d.kv for d in devices) if profile.n_gpu_layers is None else 0
    k_bits, v_bits = (LLAMACPP_CACHE_BITS[t or "f16"] for t in (profile.cache_type_k, profile.cache_type_v))
    k_share = kv * k_bits / (k_bits + v_bits) if request.model.mla is None else kv
    backend = llamacpp_backend(request.gpu)
    names = log_names(profile.engine_version)
    lines = [_offloaded_line(request, profile)]
    lines += [
        f"{names.tensors}:      {device_name(backend, i, weights=True)} model buffer size = {d.weights / MiB:.2f} MiB"
        for i, d in enumerate(devices)
    ]
    lines += [
        f"llama_context: n_seq_max     = {profile.slots}",
        f"llama_context: n_ctx         = {profile.cells(n_ctx)}",
        f"llama_context: n_ctx_seq     = {profile.slot_context(n_ctx)}",
        f"llama_context: kv_unified    = {'true' if profile.kv_unified else 'false'}",
    ]
    lines += [
        f"{names.kv}:      {device_name(backend, i)} KV buffer size = {(d.kv - d.rs) / MiB:.2f} MiB"
        for i, d in enumerate(devices)
    ]
    lines += [
        f"llama_memory_recurrent:      {device_name(backend, i)} RS buffer size = {d.rs / MiB:.2f} MiB"
        for i, d in enumerate(devices)
        if d.rs
    ]
    if host_kv > 0:
        lines.append(f"{names.kv}:        CPU KV buffer size = {host_kv / MiB:.2f} MiB")
    lines += [
        f"{names.kv}: size = {kv / MiB:.2f} MiB, K ({profile.cache_type_k}): "
        f"{k_share / MiB:.2f} MiB, V ({profile.cache_type_v}): {(kv - k_share) / MiB:.2f} MiB",
        f"{names.compute}:      {device_name(backend, 0)} compute buffer size = {compute / MiB:.2f} MiB",
    ]
    return lines


def _host_note(request: PlanRequest, result: PlanResult, profile: LlamacppProfile, n_ctx: int, kv: int) -> str | None:
    """What stays in system RAM: the weights and KV of the CPU layers (and experts kept there). Every GPU of a
    stage holds its own share of the weights, so the GPUs' part is each stage's times its GPUs."""
    kv_all = _cache(request, profile, n_ctx, None)
    host_weights = result.host_weights_bytes_per_replica
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
    profile = profile.for_kv_dtype(request.resolved_kv_dtype)
    n_ctx = profile.n_ctx or result.max_model_len * profile.slots
    compute = profile.compute_buffer_bytes(request.model, n_ctx)
    devices = _devices(request, result, profile, n_ctx)
    used = [d.weights + d.kv + d.draft_kv + compute + LLAMACPP_CONTEXT_BYTES + d.other for d in devices]
    return _Fill(n_ctx, compute, devices, used, [i for i, d in enumerate(devices) if used[i] > d.total])


def _slot_count(profile: LlamacppProfile, n_ctx: int) -> str:
    """What the slot count means: llama.cpp allocates the cache for its ``-np`` slots up front, each with its own
    context, so it serves that many conversations and no more, whatever memory is left (the pool of vLLM and SGLang
    grows into the memory); the planner launches as many slots as the target users."""
    size = f"{profile.slot_context(n_ctx):,}-token"
    return (
        f"-np {profile.slots}: {profile.slots} slot{'s' if profile.slots > 1 else ''} of {size} context, allocated "
        "at start-up; llama.cpp serves that many conversations at once whatever memory is left (the slots follow "
        "the target users)"
    )


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


class _Failure(NamedTuple):
    """The first buffer llama.cpp cannot allocate."""

    stage: str  # model, kv, rs or compute (:data:`_STAGE_ERRORS`)
    device: int
    size: int  # the buffer's own bytes


# What llama.cpp prints after the backend's failed allocation, by the buffer: ``llama_model_load`` catches
# load_tensors' "unable to allocate %s buffer" (src/llama-model.cpp); ``llama_init_from_model`` prints the context's
# "failed to initialize the context: %s" with ``llama_kv_cache``'s, ``llama_memory_recurrent``'s or sched_reserve's
# exception (src/llama-kv-cache.cpp, llama-memory-recurrent.cpp, llama-context.cpp).
_STAGE_ERRORS = {
    "model": "llama_model_load: error loading model: unable to allocate {device} buffer",
    "kv": "llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache",
    "rs": "llama_init_from_model: failed to initialize the context: failed to allocate buffer for rs cache",
    "compute": "llama_init_from_model: failed to initialize the context: failed to allocate compute pp buffers",
}


def _first_failure(devices: list[_Device], compute: int) -> _Failure | None:
    """llama.cpp's allocation order: load_tensors allocates every device's model buffer before any context
    (src/llama-model.cpp), the context then its KV buffers (``llama_kv_cache``, then ``llama_memory_recurrent``'s
    states), then sched_reserve the compute buffers (src/llama-context.cpp); a draft model's context comes after the
    target's (tools/server). The first buffer that does not fit beside what its device already holds (other
    processes, the CUDA context) fails, with its own size. The draft's weights are counted with the target's."""
    used = [d.other + LLAMACPP_CONTEXT_BYTES for d in devices]
    stages: tuple[tuple[str, list[int]], ...] = (
        ("model", [d.weights for d in devices]),
        ("kv", [d.kv - d.rs for d in devices]),
        ("rs", [d.rs for d in devices]),
        ("compute", [compute] * len(devices)),
        ("kv", [d.draft_kv for d in devices]),
    )
    for stage, sizes in stages:
        for i, (d, size) in enumerate(zip(devices, sizes, strict=True)):
            if size > 0 and used[i] + size > d.total:
                return _Failure(stage, i, size)
            used[i] += size
    return None


def _failure_lines(gpu: GpuSpec | None, failure: _Failure, total: int) -> tuple[str, str]:
    """The allocation failure as the backend prints it: CUDA's ``cudaMalloc`` line (ggml-cuda.cu
    ``ggml_backend_cuda_buffer_type_alloc_buffer``), otherwise ggml's own ``alloc_tensor_range: failed to allocate
    <device> buffer`` (public Vulkan and Metal logs), with the buffer's size; then llama.cpp's error for it."""
    backend = llamacpp_backend(gpu)
    name = device_name(backend, failure.device)
    if backend == "cuda":
        first = (
            f"ggml_backend_cuda_buffer_type_alloc_buffer: allocating {failure.size / MiB:.2f} MiB on device "
            f"{failure.device}: cudaMalloc failed: out of memory ({total / MiB:.2f} MiB on the GPU)"
        )
    else:
        first = f"alloc_tensor_range: failed to allocate {name} buffer of size {failure.size}"
        first += f" ({total / MiB:.2f} MiB on the GPU)"
    return first, _STAGE_ERRORS[failure.stage].format(device=name)


def llamacpp_report(request: PlanRequest, result: PlanResult, profile: LlamacppProfile) -> EngineReport:
    """The buffer sizes ``llama-server`` prints; it fits when weights, KV, compute buffer and context fit on every
    device; the cache types are the planned KV dtype's unless the profile sets them."""
    profile = profile.for_kv_dtype(request.resolved_kv_dtype)
    n_ctx, compute, devices, used, short = _fill(request, result, profile)
    first, kv = devices[0], sum(d.kv for d in devices)
    kv_all = _cache(request, profile, n_ctx, None)
    note = _host_note(request, result, profile, n_ctx, kv) if profile.n_gpu_layers is None else None
    first_failure = _first_failure(devices, compute) if short else None
    failure = None
    if first_failure is not None:
        kind = "weights-oom" if first_failure.stage == "model" else "out-of-memory"
        failure = (kind, *_failure_lines(request.gpu, first_failure, devices[first_failure.device].total))
    slots = _slots_note(profile, n_ctx, devices[short[0]], used[short[0]]) if short else _slot_count(profile, n_ctx)
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
        lines=tuple(_lines(request, profile, n_ctx, devices, compute, kv_all)) + (failure[1:] if failure else ()),
        notes=tuple(n for n in (note, _legacy_note(request, result, profile, n_ctx), slots, _draft_note(devices)) if n),
        failure_kind=failure[0] if failure else None,
        failure=failure[1] if failure else None,
        kv_cache_bytes_per_stage=_per_stage(result, devices),
        max_running=profile.slots,
    )


def _per_stage(result: PlanResult, devices: list[_Device]) -> tuple[int, ...]:
    """The KV buffer on one GPU of each of the plan's stages (the fullest GPU of a stage's ranks)."""
    stages, tp = len(result.stages), result.tensor_parallel
    if len(devices) == stages:
        return tuple(d.kv for d in devices)
    if len(devices) == stages * tp:
        return tuple(max(d.kv for d in devices[i * tp : (i + 1) * tp]) for i in range(stages))
    return (max(d.kv for d in devices),) * stages


def _cache(request: PlanRequest, profile: LlamacppProfile, n_ctx: int, layers: int | range | None) -> int:
    """The cache of the layers: their KV buffer and their recurrent states."""
    return _kv(request, profile, n_ctx, layers) + _rs(request, profile, layers)


def _rs(request: PlanRequest, profile: LlamacppProfile, layers: int | range | None) -> int:
    """:func:`llamacpp_rs_bytes` of the layers, one state per slot."""
    return llamacpp_rs_bytes(request.model, layers, profile.slots)


def _kv(request: PlanRequest, profile: LlamacppProfile, n_ctx: int, layers: int | range | None) -> int:
    """:func:`llamacpp_kv_bytes` with the profile's cache types, slots and micro-batch."""
    return llamacpp_kv_bytes(
        request.model,
        n_ctx,
        profile.cache_type_k or "f16",
        profile.cache_type_v or "f16",
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
    kv, kv_all = _cache(request, profile, n_ctx, gpu_layers), _cache(request, profile, n_ctx, None)
    weights_total = result.weights_bytes_total
    weights = math.ceil(weights_total * gpu_layers / model.num_hidden_layers)
    return (
        f"{model.num_hidden_layers - gpu_layers} layers stay in system RAM with their KV cache "
        f"({(weights_total - weights) / GiB:.2f} GiB weights, {(kv_all - kv) / GiB:.2f} GiB KV)."
    )


def llamacpp_max_model_len(request: PlanRequest, result: PlanResult, profile: LlamacppProfile) -> int:
    """The largest ``-c`` per slot that still fits (a binary search over the report), capped at the model's
    maximum."""
    low, high = 0, request.model.context_limit
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
