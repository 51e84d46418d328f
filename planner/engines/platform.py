"""What vLLM reads from the device it starts on, on top of the catalog's device facts
(:class:`planner.core.gpu.DevicePlatform`: compute capability, integrated memory, peer access).

vLLM asks the driver (``current_platform.get_device_capability()``, ``is_integrated_gpu``); the catalog holds the
architecture and the product name, from which :attr:`planner.core.gpu.GpuSpec.platform` derives them:

- native FP8 GEMMs from 8.9, native FP4 from 10.0 (``Fp8LinearMethod`` / ``ModelOptNvFp4`` fall back to the
  Marlin weight-only kernels below: "Your GPU does not have native support for FP8 computation ...");
- GeForce cards (form factor "consumer") have no peer-to-peer access between cards without an NVLink bridge, so
  vLLM's custom all-reduce is off there ("Custom allreduce is disabled because your platform lacks GPU P2P
  capability", ``distributed/device_communicators/custom_all_reduce.py``) and tensor parallelism runs on NCCL
  alone;
- the attention backend it picks (:meth:`VllmPlatform.attention_backend`).
"""

from __future__ import annotations

from functools import lru_cache

from planner.bounds.memo import BoundedMemo
from planner.core.gpu import GpuSpec
from planner.core.platform import DevicePlatform


class VllmPlatform(DevicePlatform, frozen=True, extra="forbid"):
    """The device facts vLLM's rules turn on (``None`` capability: not a CUDA device the catalog can name)."""

    @property
    def nvlink_collectives(self) -> bool:
        """Whether tensor parallelism brings vLLM's NVLink collectives beside NCCL: on compute capability 9.0 and
        10.x only, the FlashInfer all-reduce + RMSNorm fusion workspace (0.19.0 ``config/vllm.py:116-135``
        ``enable_allreduce_rms_fusion``: TP > 1 on Hopper / datacenter Blackwell) and the symmetric-memory
        all-reduce buffers (0.22.0 ``distributed/device_communicators/all_reduce_utils.py:52-71``, capabilities
        9.0 / 10.0 / 10.3), on top of NCCL, which vLLM leaves free to use cuMem (and with it NVLink SHARP buffers on
        NVSwitch systems) since vllm PR #24141. Elsewhere (Ampere, Ada, the 12.x parts) TP is NCCL and, with peer
        access, the custom all-reduce's small IPC buffers. A device without a capability (not one the catalog
        names) is taken as the datacenter default, an H100."""
        if not self.peer_access:
            return False
        return self.capability is None or self.capability == (9, 0) or self.sm100_family

    def attention_backend(self, kv_fp8: bool, sinks: bool = False) -> str:
        """FlashInfer first on compute capability 10; elsewhere FlashAttention, unless the KV cache is FP8 and
        the device has no FlashAttention 3 (Hopper) or 4 (compute capability 10): FlashAttention 2, the one on
        Ampere, Ada and the 12.x parts (GB202, GB10), takes no FP8 KV cache, so FlashInfer serves it
        (``platforms/cuda.py`` ``_get_backend_priorities``, 0.20.0 :136-157, 0.27.1 :145-161;
        ``v1/attention/backends/fa_utils.py`` ``flash_attn_supports_kv_cache_dtype``, 0.27.1 :296-316). The
        GB10 and GB202 logs with an FP8 KV cache show FlashInfer; with a BF16 cache the RTX PRO 6000's MTP runs
        keep FULL_AND_PIECEWISE graphs, which FlashInfer would drop with speculative decoding (vllm-project/recipes
        commit 2297292). A model with attention sinks (gpt-oss) off Hopper, compute capability 10 and the 12.x parts
        takes Triton, the one backend of the list with sinks there (0.28.0 ``platforms/cuda.py:156-163``,
        ``fa_utils.py:250-253``, ``flashinfer.py:543-555``; :mod:`planner.engines.vllm.sink_attention`)."""
        if self.capability is None:
            return "flash_attn"
        if sinks and self.capability[0] not in (9, 10, 12):
            return "triton"
        if self.capability[0] == 10 or (kv_fp8 and self.capability != (9, 0)):
            return "flashinfer"
        return "flash_attn"


@lru_cache(maxsize=64)  # a handful of distinct device facts (frozen, hashable)
def platform_of(platform: DevicePlatform | None) -> VllmPlatform:
    """vLLM's view of ``platform`` (``None``: an unnamed CUDA device, datacenter defaults)."""
    return VllmPlatform() if platform is None else VllmPlatform(**platform.model_dump())


# vLLM's view of each GPU asked for (every assessment asks it of its GPU, found by the GPU's own hash, computed once:
# planner.bounds.hashing): one entry per GPU entry, a catalog holds ~50; 256 keep a few catalogs' worth.
GPU_PLATFORMS = 256
_GPU_PLATFORMS: BoundedMemo[GpuSpec, VllmPlatform] = BoundedMemo(GPU_PLATFORMS)


def vllm_platform(gpu: GpuSpec | None) -> VllmPlatform:
    """The platform facts of catalog GPU ``gpu`` (``None``: an unnamed CUDA device, datacenter defaults), kept per
    GPU (:data:`GPU_PLATFORMS`, least recently used out)."""
    if gpu is None:
        return platform_of(None)
    kept = _GPU_PLATFORMS.get(gpu)
    return kept if kept is not None else _GPU_PLATFORMS.put(gpu, platform_of(gpu.platform))
