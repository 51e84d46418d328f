"""vLLM's non-torch memory in the profile run (CUDA context growth, cuBLAS, NCCL and all-reduce buffers), by release
era and device: what :meth:`planner.engines.vllm.profile.VllmProfile.non_torch_bytes` returns."""

from __future__ import annotations

from typing import NamedTuple

from planner.engines.platform import VllmPlatform
from planner.engines.vllm.terms import VLLM_V0_NON_TORCH
from planner.engines.vllm.unified import unified_non_torch_bytes
from planner.engines.vllm.versions import VllmConstants


class NonTorchInputs(NamedTuple):
    """What the non-torch terms read of a profile."""

    fitted: VllmConstants
    version: tuple[int, int, int]
    v1: bool
    enforce_eager: bool
    reads_ahead: bool


def non_torch_bytes(
    inputs: NonTorchInputs,
    tensor_parallel: int,
    pipeline_parallel: int = 1,
    platform: VllmPlatform | None = None,
    weights_bytes: int = 0,
) -> int:
    """Non-torch memory of the profile run, by
    release era: at TP 2 and more, vLLM's NVLink collectives where the device has them
    (:attr:`VllmPlatform.nvlink_collectives`), NCCL alone elsewhere; graphics dies (GeForce, RTX workstation)
    hold more at TP 1, a share that divides with TP (fitted, ``VllmConstants.graphics_extra``), on compiled
    start-ups only: what vLLM prints there as non-torch is 0.15-0.56 GiB, so the fitted amount is what the
    compiled start-ups' budgets leave beyond it, and public cold / warm pairs put a compile's cost in the
    profile (docs/fidelity.md, 'Graphics dies'); ``--enforce-eager`` turns torch.compile and CUDA graphs off
    (vllm-project/vllm ``docs/design/debug_vllm_compile.md``). On unified memory, a fitted share of the
    ``weights_bytes`` this GPU loaded, by the loader that read them (:mod:`planner.engines.vllm.unified`). On a
    CDNA 3 device, HIP's fitted amount (:func:`cdna3_non_torch_bytes`). ``platform`` None: a datacenter device."""
    if not inputs.v1:
        return VLLM_V0_NON_TORCH
    device = platform or VllmPlatform()
    era = inputs.fitted.non_torch_era(inputs.version)
    extra = unified_non_torch_bytes(inputs.fitted, weights_bytes, inputs.reads_ahead) if device.integrated else 0
    extra += graphics_compile_bytes(inputs, tensor_parallel, device)
    extra += cdna3_non_torch_bytes(inputs, device)
    if tensor_parallel > 1:
        tp2 = era.tp2 if device.nvlink_collectives or era.tp2_nccl is None else era.tp2_nccl
        return tp2 + era.per_extra_rank * (tensor_parallel - 2) + extra
    return (era.pp if pipeline_parallel > 1 else era.tp1) + extra


def graphics_compile_bytes(inputs: NonTorchInputs, tensor_parallel: int, platform: VllmPlatform) -> int:
    """What a compiled V1 start-up holds on a desktop card (:attr:`DevicePlatform.desktop_card`) beyond the
    datacenter base, per rank (``VllmConstants.graphics_extra``, fitted on such cards, divided by TP); none on the
    datacenter cards of the same dies (docs/fidelity.md, 'Desktop cards only'), off a Linux desktop
    (``platform.desktop_host``) or under ``--enforce-eager``."""
    if not inputs.v1 or inputs.enforce_eager or not (platform.desktop_card and platform.desktop_host):
        return 0
    return inputs.fitted.graphics_extra // tensor_parallel


def cdna3_non_torch_bytes(inputs: NonTorchInputs, platform: VllmPlatform) -> int:
    """What a V1 rank on a CDNA 3 device (:attr:`DevicePlatform.cdna3`: MI300X, MI325X) holds outside torch beyond
    the era's datacenter base: ``VllmConstants.cdna3_non_torch``, fitted on the public MI300X start-ups (0.81-0.95
    GiB over the base, whatever the model; no allocation of that size in vLLM 0.31's ROCm paths at TP 1:
    :mod:`planner.engines.vllm.hip_graphs`), per rank; measured at TP 1 with graphs captured only."""
    if not inputs.v1 or not platform.cdna3:
        return 0
    return inputs.fitted.cdna3_non_torch
