"""The machine the engine runs on, as it changes what the GPU holds before and while the engine starts
(``DeploymentOptions.host``):

- ``linux`` (the default): the planner's figures are the ones fitted on public Linux start-ups; on a desktop card
  (GeForce, RTX workstation) vLLM's non-torch figure holds a share fitted there
  (:meth:`planner.engines.vllm.profile.VllmProfile.graphics_compile_bytes`; fitted 0 since 2026-12-07, when the
  vision encoder's non-torch amount and the cold compiles stated took its place: docs/fidelity.md).
- ``windows``: WSL2 or Docker Desktop on Windows. CUDA reports the card's whole memory (the 32,607 MiB nvidia-smi
  shows on an RTX 5090: 31.84 GiB, where Linux's driver gives 31.36), the Windows desktop holds part of it before
  the engine starts (:data:`WINDOWS_DESKTOP_BYTES`), and vLLM's non-torch figure holds a per-process share fitted on
  the public WSL2 / Docker Desktop start-ups alone (:mod:`planner.engines.vllm.windows_share`, since 2026-12-07; the
  desktop share above is fitted 0 since then). The desktop share had been
  left out (2026-12-04) because the two WSL2 start-ups that print their non-torch memory print 0.32 and 0.58 GiB,
  the datacenter base; but Linux desktop cards print 0.3-0.56 there too, and the share stands for what the
  planner's estimates miss on them, not for that line (docs/fidelity.md). Over the fifteen WSL2 / Docker Desktop
  start-ups with a KV figure the median |KV error| is 0.64 GiB with it and 1.78 without (2026-12-06); three RTX 4090
  boots go the other way (Qwen2.5-0.5B twice, printing 0.30-0.32 GiB of non-torch, and Qwen3-8B), the same card's
  Qwen3-14B boots do not, and no line says which term the share stands for (docs/fidelity.md, "Windows hosts").
  vLLM 0.22-0.31 count only what grows after the worker's snapshot, so the desktop's memory held before it is planned
  at the start-up check and after the pool, never in the budget.

A headless Linux host (a rented cloud card, a server, a VM) is not a setting: three public headless start-ups on
desktop cards held none of the desktop share, and the two found after a rule was written for them held it (a
Vast.ai RTX 3090, and a Proxmox VM whose two RTX 3090s drove no display), so what decides it is not the display.

>>> held_bytes(0, "windows") == WINDOWS_DESKTOP_BYTES
True
>>> held_bytes(3 * 2**30, "windows") == held_bytes(3 * 2**30, "linux") == 3 * 2**30
True
>>> whole_card("windows"), whole_card("linux")
(True, False)
"""

from __future__ import annotations

from statistics import median
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from planner.core.gpu import GpuSpec

HostOs = Literal["linux", "windows"]
HOSTS: tuple[HostOs, ...] = ("linux", "windows")
HOST_LABELS: dict[HostOs, str] = {"linux": "Linux", "windows": "Windows (WSL2, Docker Desktop)"}

# What the Windows desktop held before vLLM's first snapshot on public WSL2 / Docker Desktop start-ups: the card's
# total less "Free memory on device (F/T GiB)" (GiB as printed, two decimals), by tests/fidelity case. The printed
# figure includes the worker's own CUDA context at its snapshot (:data:`SNAPSHOT_CONTEXT_GIB`).
WINDOWS_HELD_AT_SNAPSHOT: tuple[tuple[str, float], ...] = (
    # tests/fidelity ...-rtx4090-wsl2-qwen25-0.5b-2k-util085: "Free memory on device (22.45/23.99 GiB)"
    ("RTX 4090, WSL2, an Xwayland desktop, driver 591.86", 23.99 - 22.45),
    # ...-rtx5090-wsl2-qwen38-27b-nvfp4-util098-free-memory: "Free memory on device cuda:0 (30.2/31.84 GiB)"
    ("RTX 5090, WSL2, driver 610.74", 31.84 - 30.2),
    # ...-rtx5090-wsl-qwen36-35b-a3b-nvfp4-util082: "Already resident when vLLM read the card | 1.64"
    ("RTX 5090, Docker Desktop, driver 596.36", 1.64),
)
# vLLM's worker's CUDA context at its snapshot, one GPU (planner/engines/vllm/fitted.toml ``init_baseline_tp1``,
# 547,608,330 bytes; tests/engines/test_vllm_host.py holds the two together).
SNAPSHOT_CONTEXT_GIB = 0.51
# The desktop's own memory when the memory in use is not given: the median of the public figures above, less the
# worker's context (1.64 - 0.51 = 1.13 GiB).
WINDOWS_DESKTOP_BYTES = round((median(gib for _, gib in WINDOWS_HELD_AT_SNAPSHOT) - SNAPSHOT_CONTEXT_GIB) * 2**30)


PRINTED_GIB = 0.011  # a GiB figure printed to two decimals matches a byte count within this


def held_bytes(used_memory_bytes: int, host: HostOs) -> int:
    """What other processes hold on each GPU before the engine starts: the memory in use given, else, under
    Windows, the desktop's (:data:`WINDOWS_DESKTOP_BYTES`; nvidia-smi under WSL2 counts the desktop in its use, so
    a figure given replaces it rather than adding to it)."""
    if used_memory_bytes or host != "windows":
        return used_memory_bytes
    return WINDOWS_DESKTOP_BYTES


def whole_card(host: HostOs) -> bool:
    """Whether CUDA reports the card's whole memory (nvidia-smi's total) as the device total: under Windows."""
    return host == "windows"


def printed_total_bytes(gpu: GpuSpec, host: HostOs) -> int:
    """The device total an engine prints for ``gpu`` on ``host``, from the catalog alone: the card's whole memory
    under Windows (:func:`whole_card`), else the engine-visible total when known, else the memory the device
    reports (what a start-up log is compared with: ``planner.calibration``, ``bench.fidelity_cases``)."""
    if whole_card(host):
        return gpu.memory_bytes
    return gpu.engine_visible_bytes or gpu.memory_bytes


def device_memory_bytes(gpu: GpuSpec, engine: bool, host: HostOs, unified_share: float | None = None) -> int:
    """The memory to plan ``gpu`` with (:meth:`planner.core.gpu.GpuSpec.memory_bytes_for`), the card's whole memory
    for an engine under Windows (:func:`whole_card`)."""
    if engine and whole_card(host) and gpu.unified_memory is None:
        return gpu.memory_bytes
    return gpu.memory_bytes_for(engine, unified_share)


class Machine(Protocol):
    """What a deployment says of the machine (:class:`planner.deploy.options.DeploymentOptions`)."""

    @property
    def host(self) -> HostOs: ...

    @property
    def unified_share(self) -> float | None: ...


def deployment_memory_bytes(gpu: GpuSpec, engine: bool, deployment: Machine | None) -> int:
    """:func:`device_memory_bytes` on the deployment's machine and at its GPU share (none: Linux, the OS share)."""
    if deployment is None:
        return device_memory_bytes(gpu, engine, "linux")
    return device_memory_bytes(gpu, engine, deployment.host, deployment.unified_share)


def printed_on(gpu: GpuSpec, total_gib: float | None) -> HostOs | None:
    """The machine a start-up log's device total points to (GiB as printed, two decimals): ``windows`` when it is
    the card's whole memory (nvidia-smi's) and not what the engine prints on Linux, ``linux`` when it is the latter;
    ``None`` when it says neither.

    >>> from model_catalog import get_gpu
    >>> card = get_gpu("rtx-5090")
    >>> printed_on(card, 31.84), printed_on(card, 31.36), printed_on(card, 30.0)
    ('windows', 'linux', None)
    """
    if total_gib is None:
        return None
    visible, whole = gpu.engine_visible_bytes, gpu.memory_reported_bytes
    if visible is not None and abs(visible / 2**30 - total_gib) < PRINTED_GIB:
        return "linux"
    if whole is not None and abs(whole / 2**30 - total_gib) < PRINTED_GIB:
        return "windows"
    return None


def windows_hint(gpu: GpuSpec | None, printed_total_gib: float | None, planned_total_bytes: int) -> str | None:
    """What to say when a pasted log's device total is the card's whole memory (a Windows start-up,
    :func:`printed_on`) while the set-up is planned on Linux's total; ``None`` otherwise."""
    if gpu is None or printed_on(gpu, printed_total_gib) != "windows" or planned_total_bytes == gpu.memory_bytes:
        return None
    return (
        f"The log's device total ({printed_total_gib:.2f} GiB) is the card's whole memory, as CUDA reports it under "
        "Windows (WSL2, Docker Desktop): set the Machine to Windows in the Deployment section to plan it so."
    )


def host_note(host: HostOs, used_memory_bytes: int) -> str | None:
    """What the host changes, in words (``None`` on Linux, the default)."""
    if host != "windows":
        return None
    held = (
        "the memory in use given, the desktop's included"
        if used_memory_bytes
        else f"the desktop holding {WINDOWS_DESKTOP_BYTES / 2**30:.2f} GiB (the median of "
        f"{len(WINDOWS_HELD_AT_SNAPSHOT)} public start-ups; give the memory in use to replace it)"
    )
    return f"Planned under Windows (WSL2, Docker Desktop): the card's whole memory as the device total and {held}."
