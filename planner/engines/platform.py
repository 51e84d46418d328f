"""What an engine reads from the device it starts on: compute capability, unified memory, native FP8 / FP4, peer access.

vLLM asks the driver (``current_platform.get_device_capability()``, ``is_integrated_gpu``); the catalog holds the
architecture and the product name (:class:`planner.core.gpu.GpuSpec`), from which the capability follows:

- Ampere 8.0 (A100, A800, A30) and 8.6 (GeForce RTX 30, RTX A-series, A10, A10G); Ada 8.9; Hopper 9.0;
- Blackwell 10.0 (B200, B300, GB200, GB300: ``is_device_capability_family(100)``), 12.0 (GB202: RTX 5090, RTX PRO
  6000), 12.1 (GB10, DGX Spark: integrated, unified memory);
- native FP8 GEMMs from 8.9, native FP4 from 10.0 (``Fp8LinearMethod`` / ``ModelOptNvFp4`` fall back to the
  Marlin weight-only kernels below: "Your GPU does not have native support for FP8 computation ...");
- GeForce cards (form factor "consumer") have no peer-to-peer access between cards without an NVLink bridge, so
  vLLM's custom all-reduce is off there ("Custom allreduce is disabled because your platform lacks GPU P2P
  capability", ``distributed/device_communicators/custom_all_reduce.py``) and tensor parallelism runs on NCCL
  alone.
"""

from __future__ import annotations

from pydantic import BaseModel

from planner.core.gpu import GpuSpec

DATACENTER_BLACKWELL = ("b200", "b300", "gb200", "gb300")  # compute capability 10.x
AMPERE_80 = ("a100", "a800", "a30")


class VllmPlatform(BaseModel, frozen=True, extra="forbid"):
    """The device facts vLLM's rules turn on (``None`` capability: not a CUDA device the catalog can name)."""

    capability: tuple[int, int] | None = None
    integrated: bool = False  # unified memory: free memory read from MemAvailable (utils/mem_utils.py)
    peer_access: bool = True  # custom all-reduce possible between cards

    @property
    def fp8_native(self) -> bool:
        return self.capability is not None and self.capability >= (8, 9)

    @property
    def fp4_native(self) -> bool:
        return self.capability is not None and self.capability >= (10, 0)

    @property
    def sm100_family(self) -> bool:
        return self.capability is not None and self.capability[0] == 10

    def attention_backend(self, kv_fp8: bool) -> str:
        """FlashInfer first on compute capability 10; elsewhere FlashAttention unless the KV cache is FP8 off
        Hopper (FlashAttention 2 takes no FP8 KV cache; ``platforms/cuda.py`` ``_get_backend_priorities``,
        0.24.0 :143-158), or on the GB10 / GB202 parts, whose logs show FlashInfer."""
        if self.capability is None:
            return "flash_attn"
        if self.capability[0] in (10, 12) or (kv_fp8 and self.capability != (9, 0)):
            return "flashinfer"
        return "flash_attn"


def _capability(gpu: GpuSpec) -> tuple[int, int] | None:
    arch = (gpu.architecture or "").lower()
    name = f"{gpu.id} {gpu.name}".lower()
    if gpu.vendor != "NVIDIA":
        return None
    if "gb10" in arch or "gb10" in name:
        return (12, 1)
    if arch.startswith("blackwell"):
        return (10, 0) if any(key in name for key in DATACENTER_BLACKWELL) else (12, 0)
    table = {"volta": (7, 0), "turing": (7, 5), "ada lovelace": (8, 9), "hopper": (9, 0)}
    if arch == "ampere":
        return (8, 0) if any(key in name for key in AMPERE_80) else (8, 6)
    return table.get(arch)


def vllm_platform(gpu: GpuSpec | None) -> VllmPlatform:
    """The platform facts of catalog GPU ``gpu`` (``None``: an unnamed CUDA device, datacenter defaults)."""
    if gpu is None:
        return VllmPlatform()
    capability = _capability(gpu)
    consumer = "consumer" in (gpu.form_factor or "").lower()
    return VllmPlatform(
        capability=capability,
        integrated=capability == (12, 1),
        peer_access=not consumer,
    )


def platform_by_name(name: str | None) -> VllmPlatform:
    """The facts an overhead model can read from the device name alone (``StageContext.gpu_name``): GeForce cards
    have no peer access, a GB10 is integrated, the RTX 5090 and RTX PRO 6000 are GB202 (compute capability 12.0).
    The engine report reads the catalog GPU itself (:func:`vllm_platform`)."""
    text = (name or "").lower()
    if "gb10" in text:
        return VllmPlatform(capability=(12, 1), integrated=True)
    gb202 = "rtx 5090" in text or "rtx pro 6000" in text
    return VllmPlatform(capability=(12, 0) if gb202 else None, peer_access="geforce" not in text)
