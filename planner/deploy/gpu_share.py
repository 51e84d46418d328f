"""A unified-memory machine's GPU share: how much of its memory the OS lets the GPU wire, and the command that
raises it (macOS ``sudo sysctl iogpu.wired_limit_mb=<MB>``, Strix Halo's ``amd-ttm --set <GB>``).

The planner counts on the OS default (:class:`planner.core.gpu.UnifiedMemory`) unless the share is given
(:attr:`planner.deploy.options.DeploymentOptions.unified_share`). Raised, it leaves :data:`OS_RESERVE_BYTES` to the
OS at least: macOS itself caps the wired limit a few GB under the memory (a 64 GB M2 Max: "iogpu sysctl cap=58.0GB",
jundot/omlx#1533), and a headless Mac idles at about 4 GB (same thread); exo's setup script wires 80 % (exo-explore/exo
PR #454).

>>> from model_catalog import get_gpu
>>> mac = get_gpu("apple-m4-max")  # 128 GB of DRAM, 75 % by default
>>> highest_share(mac), wired_limit_mib(mac, 0.9)
(0.93, 117965)
>>> raise_text(mac, 0.9)
'sudo sysctl iogpu.wired_limit_mb=117965 (macOS 14 or later; until the next reboot)'
"""

from __future__ import annotations

import math

from planner.core.gpu import GpuSpec
from planner.core.units import GiB

OS_RESERVE_BYTES = 8 * GiB  # what a raised share leaves to the OS at least (module docstring)
MiB = 2**20
HUNDREDTHS = 100  # shares are planned and linked in hundredths, so a link gives the same bytes


def highest_share(gpu: GpuSpec) -> float:
    """The largest share (hundredths, rounded down) that leaves :data:`OS_RESERVE_BYTES` to the OS (0 when the
    machine has less than that)."""
    spare = max(0, gpu.memory_bytes - OS_RESERVE_BYTES)
    return math.floor(spare * HUNDREDTHS / gpu.memory_bytes) / HUNDREDTHS


def share_warning(gpu: GpuSpec, share: float | None) -> str | None:
    """A warning when a GPU share given leaves the OS less than :data:`OS_RESERVE_BYTES` (None: it does not, or no
    share is given).

    >>> from model_catalog import get_gpu
    >>> share_warning(get_gpu("apple-m4-max"), 0.99)
    'a 99% GPU share leaves the OS 1.28 GiB of 128.00 GiB; the planner raises it to at most 93% (8 GiB for the OS)'
    """
    if share is None or gpu.unified_memory is None or share <= highest_share(gpu):
        return None
    left = gpu.memory_bytes - gpu.usable_memory_bytes(share)
    return (
        f"a {share:.0%} GPU share leaves the OS {left / GiB:.2f} GiB of {gpu.memory_bytes / GiB:.2f} GiB; the planner "
        f"raises it to at most {highest_share(gpu):.0%} ({OS_RESERVE_BYTES // GiB} GiB for the OS)"
    )


def wired_limit_mib(gpu: GpuSpec, share: float) -> int:
    """The wired limit that gives the GPU ``share`` of the memory, in MiB (what ``iogpu.wired_limit_mb`` reads)."""
    return math.ceil(gpu.usable_memory_bytes(share) / MiB)


def raise_text(gpu: GpuSpec, share: float) -> str:
    """The catalog's command that raises the GPU's share, with the figure for ``share`` filled in (``<MB>``: MiB,
    ``<GB>``: whole GiB, rounded up); "" for a machine without a unified-memory entry."""
    if gpu.unified_memory is None:
        return ""
    command = gpu.unified_memory.raise_command.replace("<MB>", str(wired_limit_mib(gpu, share)))
    return command.replace("<GB>", str(math.ceil(gpu.usable_memory_bytes(share) / GiB)))


def raise_shell(gpu: GpuSpec, share: float) -> str:
    """:func:`raise_text` as a shell line: the command, then the catalog's words about it as a comment.

    >>> from model_catalog import get_gpu
    >>> raise_shell(get_gpu("apple-m4-max"), 0.79)
    'sudo sysctl iogpu.wired_limit_mb=103547  # (macOS 14 or later; until the next reboot)'
    """
    command, _, rest = raise_text(gpu, share).partition(" (")
    return f"{command}  # ({rest}" if rest else command
