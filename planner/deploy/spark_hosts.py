"""What a DGX Spark's host holds of its unified pool when an engine starts, read off public vLLM start-ups.

vLLM's worker prints "Free memory on device (F/T GiB) on startup" from its own first snapshot, after its CUDA context
(0.28.0 ``v1/worker/gpu_worker.py:784``), and on unified memory F is the host's ``MemAvailable`` (``utils/mem_utils.py``
``MemorySnapshot.measure``): the start-up check compares it with ``gpu_memory_utilization x T``. ``T - F`` is what the
OS, the desktop, services and the worker's context held then: a fact of each machine, so the planner's default
(:data:`UMA_HOST_DEFAULT_BYTES`) is the median of these machines for every engine on unified memory
(:func:`unified_host_bytes`), and the report quotes their range.

37 machines with no other engine resident, read 2026-12-03 from public files (search-index file ids; one entry per
machine: files holding the same F/T pair are one machine, several boots in one write-up are one machine at the
median of its boots). Left out: machines running another engine (Ollama, llama.cpp, a second vLLM, NIM) and ones in
a state their author calls broken (a leak, memory not yet returned after a kill, page cache right after a
download). Totals: 121.69 GiB on most units, 121.63 or 119.63 on some. docs/fidelity.md, 'Unified memory', lists
them with the lines.

>>> len(SPARK_HOSTS), SPARK_HOSTS[0].held_gib
(37, 7.15)
>>> round(UMA_HOST_DEFAULT_BYTES / GiB, 2)
10.9
"""

from __future__ import annotations

import statistics
from typing import NamedTuple

from planner.core.units import GiB


class SparkHost(NamedTuple):
    """One public machine's start-up line: free and total GiB as printed, and where it is."""

    free_gib: float
    total_gib: float
    source: str

    @property
    def held_gib(self) -> float:
        return round(self.total_gib - self.free_gib, 2)


_ISSUE_47 = "MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks issue #47"
SPARK_HOSTS: tuple[SparkHost, ...] = (
    SparkHost(114.54, 121.69, "file id 68873638920 (nvcr.io/nvidia/vllm:26.08-py3, Qwen3-0.6B, 2026-09-18)"),
    SparkHost(112.41, 121.69, "file id 53754645831 (a Kubernetes pod)"),
    SparkHost(115.94, 121.69, "file id 70820752248 (vLLM 0.27.1, 2026-08-16)"),
    SparkHost(115.95, 121.69, "file id 58508925979"),
    SparkHost(113.24, 121.69, "file id 69160970899 (desktop and k3s running, 2026-09-20)"),
    SparkHost(111.46, 121.69, "file id 57367176791 (refused at 0.92, started at 0.89)"),
    SparkHost(111.45, 121.69, "file id 56786195997 (refused at 0.92)"),
    SparkHost(111.07, 121.69, "file id 69850997386 (refused at 0.92, started at 0.90)"),
    SparkHost(108.54, 121.69, "file id 68969270797 (the median of three boots: 110.2, 108.54, 108.26)"),
    SparkHost(110.37, 121.69, f"{_ISSUE_47} (the maintainer's machine, 2026-08-30)"),
    SparkHost(109.83, 121.69, "file id 68906363102 (refused at 0.92)"),
    SparkHost(108.16, 121.69, "file id 61913380238 ('~108.16/121.69', refused at 0.89)"),
    SparkHost(108.5, 121.69, "file id 68307772477 ('~108.5/121.69', refused at 0.90, 2026-09-21)"),
    SparkHost(107.81, 121.69, "file id 58007594389 (a two-node cluster's head, refused at 0.95)"),
    SparkHost(107.8, 121.69, "file id 57999695271 (two Sparks, refused at 0.90)"),
    SparkHost(106.88, 121.69, "file id 68853561374 (refused at 0.89, started at 0.88)"),
    SparkHost(105.9, 121.69, "file id 68531280425 (started at 0.83)"),
    SparkHost(105.2, 121.69, "file id 70796199266"),
    SparkHost(104.46, 121.69, "file id 60305821358 (refused at 0.87)"),
    SparkHost(104.5, 121.69, "file id 69443520665 (refused at 0.92)"),
    SparkHost(103.09, 121.69, "file id 68828628739 (polkitd at 6.27 GiB, refused at 0.85, 2026-09-19)"),
    SparkHost(103.02, 121.69, "file id 67174463993 (a tool's help text, refused at 0.88)"),
    SparkHost(100.94, 121.69, "file id 57971094213 (dockerd and open-webui, refused at 0.835)"),
    SparkHost(96.75, 121.69, "file id 57379819316 (a two-node cluster's worker)"),
    SparkHost(116.42, 121.69, "file id 57910922476 (~2026-09-01)"),
    SparkHost(109.32, 119.63, "file id 71003308147 (a four-node cluster's head, refused at 0.92, 2026-10-06)"),
    SparkHost(109.66, 119.63, "file id 57116941026 (refused at 0.92, started at 0.85)"),
    SparkHost(110.73, 121.63, "file id 57847876743 (refused at 0.92)"),
    SparkHost(111.18, 121.63, "file id 66380900772 (a two-node cluster's rank 1, started at 0.87)"),
    SparkHost(114.02, 121.63, "file id 69215916437"),
    SparkHost(104.87, 121.63, "file id 61491310219 (refused at 0.87)"),
    SparkHost(116.05, 121.69, "tests/fidelity/cases/vllm-unseen-2026-12.json (a patched 0.23.1rc1 build)"),
    SparkHost(112.26, 119.63, "file id 61222544093 (vLLM 0.27.1, refused at 0.92: the unseen Qwen3.8-27B pair)"),
    SparkHost(111.38, 121.69, "file id 67408821894 (a Qwen3.8-Flash-Next playbook, vLLM 0.29)"),
    SparkHost(101.74, 121.69, f"{_ISSUE_47} (the reporter's headless machine: 101.3-102.2 free, the midpoint)"),
    SparkHost(112.77, 121.63, "file id 58438889952 (a four-node cluster's rank 0, 2026-08-19)"),
    SparkHost(112.97, 121.63, "file id 60302613727 (a three-node cluster: the median of 112.01, 112.97, 113.15)"),
)

# What a unified-memory machine's host (OS, desktop, services, an engine's CUDA context) holds of the pool when an
# engine starts: the median of the public machines above (they range from 5.27 to 24.94 GiB).
UMA_HOST_DEFAULT_BYTES = round(statistics.median(h.held_gib for h in SPARK_HOSTS) * GiB)


SPARK_CAPABILITY = (12, 1)  # GB10: the machines below


def held_more_words(total_bytes: int, fraction: float, in_use_bytes: int = 0) -> str:
    """Where a memory fraction passes vLLM's start-up check on a DGX Spark (``MemAvailable`` at least ``fraction x
    total``: the host, and the memory other processes hold, at most the rest), and how many of the public Sparks
    held more.

    >>> held_more_words(round(121.69 * GiB), 0.91)
    'starts if the host holds at most 10.95 GiB of the pool; 18 of 37 public DGX Sparks held more'
    >>> held_more_words(round(121.69 * GiB), 0.91, 8 * GiB)[:55]
    'starts if the host holds at most 2.95 GiB of the pool; '
    """
    allowed = total_bytes * (1 - fraction) / GiB - in_use_bytes / GiB
    more = sum(h.held_gib > allowed for h in SPARK_HOSTS)
    return (
        f"starts if the host holds at most {allowed:.2f} GiB of the pool; {more} of {len(SPARK_HOSTS)} public DGX "
        "Sparks held more"
    )


def unified_host_bytes(context_bytes: int) -> int:
    """What the host of a unified-memory machine holds beyond an engine's own start-up (``context_bytes``, of which
    the public figure already holds a CUDA context), when no figure of its own is given.

    >>> unified_host_bytes(UMA_HOST_DEFAULT_BYTES + 1), unified_host_bytes(0) == UMA_HOST_DEFAULT_BYTES
    (0, True)
    """
    return max(0, UMA_HOST_DEFAULT_BYTES - context_bytes)
