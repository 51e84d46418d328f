"""What an accelerator's catalog entry implies for the engines: its CUDA compute capability, whether it is an
integrated or a graphics die, its runtime and host (:class:`DevicePlatform`, :func:`device_platform`), derived once
from the entry's strings and figures (:attr:`planner.core.gpu.GpuSpec.platform`)."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from planner.bounds.hashing import HashedOnce

# CUDA compute capability by architecture (NVIDIA, "CUDA GPUs - Compute Capability", developer.nvidia.com/cuda-gpus):
# Volta 7.0, Turing 7.5, Ampere 8.0 (A100, A800, A30) or 8.6 (GeForce RTX 30, RTX A-series, A10, A10G), Ada 8.9,
# Hopper 9.0, Blackwell 10.0 (B200, B300, GB200, GB300), 12.0 (GB202: RTX 5090, RTX PRO 6000), 12.1 (GB10).
_CAPABILITY = {"volta": (7, 0), "turing": (7, 5), "ada lovelace": (8, 9), "hopper": (9, 0)}
DATACENTER_BLACKWELL = ("b200", "b300", "gb200", "gb300")  # compute capability 10.x
AMPERE_80 = ("a100", "a800", "a30")
# CUDA GPUs that share the host's memory (integrated): Orin 8.7, Thor 11.0, GB10 12.1 (vLLM 0.19.0
# utils/mem_utils.py:105-122 `shared_sysmem_device_mem_sms`; torch's `is_integrated` from 0.21).
INTEGRATED_CAPABILITIES = ((8, 7), (11, 0), (12, 1))
# The graphics dies (GA10x 8.6, AD10x 8.9, GB20x 12.0: GeForce, RTX workstation, A10/L4/L40-class cards), as against
# the compute dies of the datacenter parts (GA100 8.0, GH100 9.0, GB100/GB110 10.x) (developer.nvidia.com/cuda-gpus).
GRAPHICS_CAPABILITIES = ((8, 6), (8, 9), (12, 0))
# A graphics die's card is a desktop one when its name or form factor says so (GeForce, RTX, consumer, workstation),
# unless it is sold passive for servers (the RTX PRO 6000 Blackwell Server Edition, as the L40S is of AD102)
DESKTOP_WORDS = ("geforce", "rtx", "consumer", "workstation")
DATACENTER_WORDS = ("passive", "server edition")
RUNTIMES: dict[str, Literal["cuda", "rocm"]] = {"NVIDIA": "cuda", "AMD": "rocm"}  # the GPU runtime by vendor


class DevicePlatform(HashedOnce, frozen=True, extra="forbid"):
    """What software reads from the device it runs on, as the catalog entry determines it: the CUDA compute
    capability (``None``: not an NVIDIA CUDA device), whether the GPU shares the host's memory, whether cards
    reach each other directly (peer-to-peer: GeForce cards have none without an NVLink bridge), and the GPU runtime
    (CUDA, ROCm, or another: Intel XPU, Gaudi, Metal)."""

    capability: tuple[int, int] | None = None
    integrated: bool = False
    peer_access: bool = True
    runtime: Literal["cuda", "rocm", "other"] = "cuda"
    # A graphics die on a card sold for desktops and workstations (GeForce, RTX), not the same die on a passive or
    # headless datacenter card (L40S, L40, L4, A10, A10G, L20)
    desktop_card: bool = False
    # The share fitted on Linux desktop-card start-ups applies (the default); False under Windows (planner.deploy.host)
    desktop_host: bool = True
    # Apple silicon: llama.cpp's Metal backend maps the whole model file as the GPU's buffer (a public M4 log's
    # "MTL0_Mapped model buffer size = 4789.19 MiB" is the CUDA log's 4455.34 plus its CPU_Mapped 333.84)
    maps_model_file: bool = False
    # An AMD Instinct CDNA 3 die (gfx942: MI300X, MI325X), a discrete ROCm device: where HIP's cost per graph captured
    # and its non-torch memory were measured (planner.engines.vllm.hip_graphs); not the APUs, not CDNA 4 (unmeasured)
    cdna3: bool = False
    # A Grace CPU hosts the GPU (a Grace Blackwell / Grace Hopper superchip: the entry's form factor names it), whose
    # host-side Python runs slower than an x86 server's (planner.advisor.host_cpu); not GB10, whose Arm cores are
    # MediaTek's
    grace_host: bool = False
    multiprocessors: int | None = None  # SMs, as torch reports them (GpuSpec.multiprocessors); None: unknown

    @property
    def fp8_native(self) -> bool:
        """FP8 tensor cores: compute capability 8.9 (Ada) and later."""
        return self.capability is not None and self.capability >= (8, 9)

    @property
    def fp4_native(self) -> bool:
        """FP4 tensor cores: Blackwell, compute capability 10.0 and later."""
        return self.capability is not None and self.capability >= (10, 0)

    @property
    def sm100_family(self) -> bool:
        """Datacenter Blackwell (compute capability 10.x)."""
        return self.capability is not None and self.capability[0] == 10

    @property
    def graphics_die(self) -> bool:
        """A graphics die (:data:`GRAPHICS_CAPABILITIES`) rather than a datacenter compute die."""
        return self.capability in GRAPHICS_CAPABILITIES


@lru_cache(maxsize=256)  # keyed by a catalog entry's strings: at most a few hundred GPUs, a small model each
def device_platform(
    vendor: str, architecture: str | None, name: str, form_factor: str | None, multiprocessors: int | None = None
) -> DevicePlatform:
    """:attr:`GpuSpec.platform` from the entry's fields (``name``: the id and the product name)."""
    capability = compute_capability(vendor, architecture, name)
    words = f"{name} {form_factor or ''}".lower()
    return DevicePlatform(
        capability=capability,
        integrated=capability in INTEGRATED_CAPABILITIES,
        peer_access="consumer" not in (form_factor or "").lower(),
        runtime=RUNTIMES.get(vendor, "other"),
        maps_model_file=vendor == "Apple",
        cdna3=vendor == "AMD" and (architecture or "").upper() == "CDNA 3",
        grace_host="grace" in (form_factor or "").lower(),
        multiprocessors=multiprocessors,
        desktop_card=capability in GRAPHICS_CAPABILITIES
        and any(w in words for w in DESKTOP_WORDS)
        and not any(w in words for w in DATACENTER_WORDS),
    )


def compute_capability(vendor: str, architecture: str | None, name: str) -> tuple[int, int] | None:
    """The CUDA compute capability of an NVIDIA part from its architecture and product name (``name``: the id
    and the product name); ``None`` for other vendors or an architecture the table does not hold."""
    arch = (architecture or "").lower()
    name = name.lower()
    if vendor != "NVIDIA":
        return None
    if "gb10" in arch or "gb10" in name:
        return (12, 1)
    if arch.startswith("blackwell"):
        return (10, 0) if any(key in name for key in DATACENTER_BLACKWELL) else (12, 0)
    if arch == "ampere":
        return (8, 0) if any(key in name for key in AMPERE_80) else (8, 6)
    return _CAPABILITY.get(arch)
