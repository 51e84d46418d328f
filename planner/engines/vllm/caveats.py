"""What a vLLM plan cannot know about the machine it runs on, said beside the figures (report notes).

vLLM measures its non-KV memory as a drop in the whole device's free memory, not as its own process's use: from
0.27 ``total_consumed = before_create.free_memory - after_profile.free_memory`` (0.28.0 ``utils/mem_utils.py``
:317-318; before 0.27 ``non_torch_increase`` is the same device-wide ``total - free`` taken between the same two
snapshots, 0.24.0 :306), and the worker says so: "Here we assume that the other processes using the same GPU did
not change their memory usage during the profiling" (0.28.0 ``v1/worker/gpu_worker.py:548``, 0.24.0 :478). Free
memory is ``cudaMemGetInfo`` on a discrete GPU and the host's ``MemAvailable`` on unified memory
(``MemorySnapshot.measure``, 0.28.0 :147-155). So what the rest of the machine does in the minutes of loading and
profiling lands in vLLM's figure: on a desktop the display server's and other programs' allocations, on a DGX
Spark everything the host stops counting as available. No planner input describes that, so the planner keeps its
fitted amounts (``VllmConstants.graphics_extra``, the unified-memory shares of :mod:`planner.engines.vllm.unified`)
and says how much of the KV budget rests on them, and, on unified memory, which host figure decides the start-up
check and the input that settles it (``VllmProfile.unified_memory_host_bytes``).
"""

from __future__ import annotations

import math

from planner.core.units import GiB
from planner.deploy.host import host_note
from planner.deploy.spark_hosts import SPARK_HOSTS
from planner.engines.base import gib_text, stage_total_bytes
from planner.engines.platform import vllm_platform
from planner.engines.vllm.blocks import VllmStage
from planner.engines.vllm.compile_copy import compile_copy_bytes, compile_inputs
from planner.engines.vllm.held import UMA_HOST_DEFAULT_BYTES
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.start_memory import free_at_start
from planner.engines.vllm.terms import activation_dtype_bytes
from planner.engines.vllm.unified import unified_non_torch_bytes
from planner.engines.vllm.windows_share import windows_note
from planner.planning.context import result_context, speculative_method
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult

# What public DGX Sparks' hosts held of the pool when vLLM's worker started (planner/deploy/spark_hosts.py):
# a fact of each machine (desktop, services, page cache), quoted, not fitted.
PUBLIC_SPARK_HOST_GIB = (min(h.held_gib for h in SPARK_HOSTS), max(h.held_gib for h in SPARK_HOSTS))
# The CUDA-graph estimates public DGX Spark start-ups printed ("Estimated CUDA graph memory", or the worker's
# "equivalent to" notice): -0.81 GiB (0.24, Qwen3.6-27B NVFP4 with MTP 2) to 5.07 (0.29, MiniMax-M2.7 AWQ at TP 2),
# tests/fidelity/cases; quoted, not fitted.
PUBLIC_SPARK_GRAPH_ESTIMATE_GIB = (-0.81, 5.07)


# The seventh blind set (tests/fidelity/cases/vllm-blind-2026-12g.json): vLLM 0.31.1 (ROCm) on one MI300X, Gemma 4
# E4B / 26B-A4B / 31B at 32,768 tokens, on which HIP's terms of a CDNA 3 device are fitted
# (planner.engines.vllm.hip_graphs); their KV as planned with them, and as the CUDA terms planned them (GiB,
# planned - printed), quoted.
ROCM_EVIDENCE = (
    "HIP's cost per graph captured (one per layer piece and capture size; vllm issue #19579, ROCm/pytorch#2286) and "
    "its non-torch memory are fitted on three public vLLM 0.31 start-ups on one MI300X (Gemma 4 E4B, 26B-A4B, 31B; "
    "KV -0.21 to +0.54 GiB of theirs, -0.25 to +0.60 with each left out of the fit): one card, one ROCm image, one "
    "model family"
)
ROCM_ELSEWHERE = (
    "three public vLLM 0.31 start-ups on one MI300X took about 2.1 MiB for each graph captured (one per layer piece "
    "and capture size; vllm issue #19579) and 0.8-0.95 GiB more non-torch memory than the CUDA-fitted terms planned "
    "here, which were 4.1-6.1 GiB short on their KV; no start-up of this device shows its own (a Strix Halo APU took "
    "0.22 MiB a graph)"
)


def rocm_note(request: PlanRequest, profile: VllmProfile) -> str | None:
    """On an AMD GPU (ROCm), with graphs captured: on a CDNA 3 device, where HIP's fitted terms are planned
    (:data:`ROCM_EVIDENCE`); elsewhere what the MI300X start-ups showed beside the CUDA-fitted working memory planned
    there (:data:`ROCM_ELSEWHERE`); none under ``--enforce-eager`` or the V0 engine."""
    if request.gpu is None or request.gpu.vendor != "AMD" or not profile.is_v1 or profile.enforce_eager:
        return None
    if request.gpu.platform.cdna3 and profile.fitted.hip_graph_bytes:
        return f"ROCm: {ROCM_EVIDENCE}. Other models and releases are not measured; --enforce-eager captures no graphs."
    return f"ROCm: {ROCM_ELSEWHERE}. The KV cache here may be that much smaller; --enforce-eager captures no graphs."


# A first boot compiles cold (planner.engines.vllm.compile_copy): planned warm, the verdict's margin is held to what
# the cold compile's table copy adds to the profile transient, derived, not quoted.
FIRST_BOOT_EVIDENCE = (
    "with an empty torch.compile cache (a first boot of this model and settings, a new container, "
    "VLLM_DISABLE_COMPILE_CACHE=1) Inductor benchmarks the embedding lookup on a random copy of the embedding table "
    "inside vLLM's memory profile; public first boots print it as their peak activation (Qwen3-14B / -32B AWQ on an "
    "RTX 5090: 1.46 GiB, their table 1.45; a restart with its cache: 0.33)"
)


def first_boot_bytes(request: PlanRequest, result: PlanResult, profile: VllmProfile) -> int:
    """Planned with a warm compile cache (``VllmProfile.compile_cache``, the default): the KV cache per GPU a cold
    first boot gives up, the first stage's transient planned cold less warm (:mod:`planner.engines.vllm.compile_copy`);
    0 planned cold, with ``--kv-cache-memory-bytes`` (no memory profile sizes the cache) or where no compile reads the
    table. The verdict's margin is held to it (``EngineReport.first_boot_bytes``).

    Cold less warm without planning the profile twice: the copy is the only term the cache state moves, and the peak
    is the larger of it and the run (``ProfileTerms.peak``; the fused-MoE workspace the activation leaves out is the
    same in both), so the difference is what the cold copy holds over the warm peak
    (tests/engines/test_vllm_compile_copy.py compares it with the profile planned cold)."""
    if profile.compile_cache == "cold" or profile.kv_cache_memory_bytes is not None or not profile.is_v1:
        return 0
    ctx = result_context(request, result, 0, stage_total_bytes(request, result, 0))
    inputs = compile_inputs(profile, ctx.model, first_stage=True)._replace(cold=True)
    copy = compile_copy_bytes(ctx.model, ctx.tensor_parallel, activation_dtype_bytes(ctx.weights_format), inputs)
    return max(0, copy - profile.stage_terms(ctx).peak) if copy else 0


def first_boot_note(lost: int) -> str | None:
    """:func:`first_boot_bytes` (``lost``, the report's own figure) in words, where it applies."""
    if lost < GiB // 100:
        return None
    return (
        f"First boot: {FIRST_BOOT_EVIDENCE}. Planned with a warm cache, as a restart finds it: a first boot here "
        f"holds {gib_text(lost)} GiB less KV cache per GPU (plan it with --compile-cache cold)."
    )


# Public start-ups on desktop dies in rented, server or VM machines (tests/fidelity): two held none of the desktop
# share (vllm-0.22-rtx3090ti-gemma4-e4b-it-32k-util09, 1.31 GiB more KV than planned; the RunPod RTX 4090
# vllm-0.27-rtx4090-runpod-qwen3-8b-bf16-8k-util092, 1.26 GiB more since its cold compile's table copy is planned,
# 2026-12-07; the AutoDL RTX PRO 6000 that held none either is a Server Edition, since 2026-12-05 its own catalog card,
# passive, planned without it as the L40S is), two held it (a Vast.ai RTX 3090,
# vllm-0.27-rtx3090-vast-qwen36-35b-a3b-gptq-mtp1-131k-kv-refusal; a Proxmox VM driving no display,
# vllm-0.24-2x3090-qwen36-27b-autoround-mtp3-club3090-642)
HEADLESS_EVIDENCE = (
    "two held none of it (an RTX 3090 Ti passed through to a VM, a RunPod RTX 4090) and two held it "
    "(a Vast.ai RTX 3090, two RTX 3090s in a Proxmox VM driving no display)"
)


def graphics_note(request: PlanRequest, result: PlanResult, profile: VllmProfile) -> str | None:
    """On a graphics die (GeForce, RTX workstation), compiled: the fitted share the non-torch figure holds there
    (:meth:`VllmProfile.graphics_compile_bytes`: none for an eager start-up or under Windows); under Windows what
    that host changes (:func:`planner.deploy.host.host_note`) and the Windows share (:func:`windows_note`)."""
    options = request.deployment
    if options is not None and options.host != "linux":
        return f"{host_note(options.host, options.used_memory_bytes)} {windows_note(profile.fitted)}".strip()
    share = profile.graphics_compile_bytes(result.tensor_parallel, vllm_platform(request.gpu))
    if share <= 0:
        return None
    return (
        f"Non-torch memory includes {gib_text(share)} GiB per GPU fitted on public compiled GeForce / RTX "
        "workstation start-ups, which vLLM's source does not name: vLLM counts the whole card's drop in free "
        "memory while it loads, compiles and profiles (another program's allocations meanwhile count as vLLM's). "
        "Public runs on these cards left from none of it to about twice it (a restart that reuses its compile "
        f"cache holds less); of the rented, server and VM start-ups, {HEADLESS_EVIDENCE}, so the KV cache may be "
        "this much larger. --enforce-eager is planned without it. Under Windows (WSL2, Docker Desktop) choose the "
        "Windows machine (Deployment, --host windows): CUDA reports the whole card and the desktop holds part of it."
    )


def unified_memory_notes(request: PlanRequest, result: PlanResult, profile: VllmProfile, first: VllmStage) -> list[str]:
    """On unified memory (DGX Spark GB10): the fitted share of the weights the non-torch figure holds, and the host
    figure the start-up check turns on (vLLM compares ``util x total`` with ``MemAvailable``, 0.28.0
    ``v1/worker/utils.py:449-462``)."""
    if not profile.is_v1 or not vllm_platform(request.gpu).integrated:
        return []
    notes = []
    share = unified_non_torch_bytes(profile.fitted, first.weights, profile.reads_ahead)
    if share > 0:
        notes.append(
            f"Unified memory: non-torch memory includes {gib_text(share)} GiB for what the host stops counting as "
            f"available while vLLM loads and profiles ({_share_basis(profile)}; vLLM's source fixes no such amount), "
            "so the KV cache can be this much larger or smaller (public DGX Spark start-ups: 12 of 14 within 1.4 "
            "GiB)."
        )
    if first.capacity is not None:  # the extensible KV cache (0.34): no start-up check, the pool measured
        total, free = free_at_start(request, result, profile)
        notes.append(
            f"Unified memory: vLLM 0.34's extensible KV cache skips the start-up check and sizes the pool from the "
            f"host's MemAvailable after warm-up, so every GiB the host holds then comes out of the KV cache; the "
            f"planner takes {gib_text(total - free)} GiB held ({_held_basis(profile)}). Public DGX Sparks held "
            f"{PUBLIC_SPARK_HOST_GIB[0]:g} to {PUBLIC_SPARK_HOST_GIB[1]:g} GiB; a gpu_memory_utilization below 1 "
            "keeps memory for the host (vLLM's own advice on unified memory, config/cache.py:229-234)."
        )
    elif profile.rules.startup_free_memory_check and profile.kv_cache_memory_bytes is None:
        total, free = free_at_start(request, result, profile)
        requested = math.floor(profile.utilization * total)
        given = _held_basis(profile)
        notes.append(
            f"Unified memory: vLLM starts only if its worker's 'Free memory on device' (the host's MemAvailable) "
            f"covers gpu_memory_utilization x total ({gib_text(requested)} GiB), i.e. if at most "
            f"{gib_text(total - requested)} GiB of the pool is held then (the OS, other programs, vLLM's CUDA "
            f"context); the planner takes {gib_text(total - free)} GiB ({given}). Public DGX Sparks held "
            f"{PUBLIC_SPARK_HOST_GIB[0]:g} to {PUBLIC_SPARK_HOST_GIB[1]:g} GiB (median "
            f"{gib_text(UMA_HOST_DEFAULT_BYTES)} of {len(SPARK_HOSTS)}); total less MemAvailable on yours "
            "(unified_memory_host_bytes) settles it."
        )
    return notes


def unified_graph_note(request: PlanRequest, profile: VllmProfile) -> str | None:
    """On unified memory, where the budget loses a CUDA-graph estimate: vLLM measures it as the drop in
    ``cudaMemGetInfo`` across the first captures, ``first_capture = mem_samples[0]`` unclamped (0.24.0
    ``v1/worker/gpu_model_runner.py`` :6512-6533, 0.30.0 :6762-6766, 0.31.0 :6687-6691), and subtracts it as measured
    (0.24.0 ``v1/worker/gpu_worker.py`` :467-492, 0.30.0 :588-625, 0.31.0 :640-676); on an integrated GPU that reading
    moves with the host, so the estimate can fall below zero and add to the KV pool (vllm issue #44740)."""
    platform = vllm_platform(request.gpu)
    if not platform.integrated or platform.runtime != "cuda":
        return None
    if not profile.graphs_in_budget(request.model, request.resolved_weights, speculative_method(request)):
        return None
    low, high = PUBLIC_SPARK_GRAPH_ESTIMATE_GIB
    return (
        "Unified memory: the CUDA-graph estimate vLLM takes off the KV budget is the drop in cudaMemGetInfo across "
        "its first captures, which moves with the host and is applied as measured; the planner's is a discrete "
        f"GPU's. Public DGX Spark start-ups printed {low:g} to {high:g} GiB (below zero it adds to the KV cache; "
        "vllm issue #44740: -35.69 GiB with MTP, then out of memory once serving)."
    )


def _share_basis(profile: VllmProfile) -> str:
    """The fitted share the note applies, its loader class and the other class's (planner.engines.vllm.unified)."""
    fitted = profile.fitted
    ahead, lazy = fitted.uma_weights_share, fitted.uma_weights_share_lazy
    if profile.reads_ahead:
        return (
            f"{ahead:.2f} of the loaded weights with a loader that reads ahead, fitted on public DGX Spark start-ups; "
            f"vLLM's default loader: {lazy:.2f}"
        )
    return (
        f"{lazy:.2f} of the loaded weights with vLLM's default loader, fitted on public DGX Spark start-ups; "
        f"--safetensors-load-strategy prefetch, --load-format fastsafetensors or instanttensor: {ahead:.2f}"
    )


def _held_basis(profile: VllmProfile) -> str:
    """Where the host's share the planner takes comes from."""
    if profile.unified_memory_host_bytes is not None:
        return "your host figure and vLLM's context"
    return f"the median of {len(SPARK_HOSTS)} public DGX Sparks'"


def machine_notes(
    request: PlanRequest, result: PlanResult, profile: VllmProfile, first: VllmStage, first_boot: int
) -> list[str]:
    """Every caveat of this module that applies to the plan: the desktop dies' compile amount, ROCm, the first boot's
    transient (``first_boot``: :func:`first_boot_bytes`, computed once by the report) and unified memory."""
    caveats = (
        graphics_note(request, result, profile),
        rocm_note(request, profile),
        first_boot_note(first_boot),
    )
    unified = [*unified_memory_notes(request, result, profile, first), unified_graph_note(request, profile)]
    return [*(n for n in caveats if n), *(n for n in unified if n)]
