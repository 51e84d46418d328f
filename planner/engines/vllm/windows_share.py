"""What a vLLM process holds outside torch under Windows (WSL2, Docker Desktop) beyond the Linux figure: a fitted
share per process (``VllmConstants.windows_non_torch``, fitted on the public WSL2 / Docker Desktop start-ups),
shipped since 2026-12-07 (fifty-third session): 1.18 GiB (docs/fidelity.md, 'The share candidate with a Windows
term, shipped').

Under WSL2 CUDA runs through the Windows display driver model (the paravirtualised ``/dev/dxg`` device: the Linux
``libcuda`` hands allocations and their residency to the Windows driver, ``dxgkio_make_resident``), and what a
process can hold is the Windows driver's to say: residency fails with ENOMEM with ~2 GB per card still free by
nvidia-smi, and a lower ``gpu_memory_utilization`` (0.88 -> 0.80) clears it (microsoft/WSL#41176); a bare
``torch.cuda.init()`` reserves a large hidden mapping per CUDA context under WSL2 (microsoft/WSL#40401, host-side).
vLLM 0.27-0.31 count the drop in free memory from the worker's snapshot to the end of the profile run as consumed
(0.27.1 ``utils/mem_utils.py:317-326``, 0.31.0 :312-321): whatever the Windows driver reserves for the process
after its snapshot lands in the non-torch figure (docs/fidelity.md, 'Windows hosts').
No public log splits it out; what the planner misses there is fitted on the public WSL2 / Docker
Desktop start-ups' KV budgets alone (``bench.calibrate.fit(windows_share=True)``; :mod:`bench.share_split`, two
halves by source, each held out once). Per process, so per rank at any TP (one context each); on a V1 start-up
planned with ``--host windows`` (:attr:`planner.core.overhead.StageContext.windows_host`), eager or compiled.

>>> from planner.engines.vllm.versions import fitted_constants
>>> round(fitted_constants().windows_non_torch / 2**30, 2)
1.18
"""

from __future__ import annotations

from typing import Protocol

from planner.core.overhead import StageContext
from planner.engines.vllm.versions import VllmConstants


class WindowsProfile(Protocol):
    """What :func:`stage_windows_non_torch` reads of a vLLM profile (``VllmProfile``)."""

    @property
    def is_v1(self) -> bool: ...

    @property
    def fitted(self) -> VllmConstants: ...


def stage_windows_non_torch(profile: WindowsProfile, ctx: StageContext) -> int:
    """``VllmConstants.windows_non_torch`` on each rank of a V1 start-up under Windows (``ctx.windows_host``)."""
    if not profile.is_v1 or not ctx.windows_host:
        return 0
    return profile.fitted.windows_non_torch


def windows_note(fitted: VllmConstants) -> str:
    """The Windows share in words (empty where it is 0).

    >>> from planner.engines.vllm.versions import fitted_constants
    >>> windows_note(fitted_constants().model_copy(update={"windows_non_torch": 0}))
    ''
    >>> windows_note(fitted_constants().model_copy(update={"windows_non_torch": 2**30}))[:40]
    'Non-torch memory includes 1.00 GiB per p'
    """
    if not fitted.windows_non_torch:
        return ""
    return (
        f"Non-torch memory includes {fitted.windows_non_torch / 2**30:.2f} GiB per process fitted on public WSL2 / "
        "Docker Desktop start-ups (what the Windows driver holds for vLLM's process beyond Linux's figure; no "
        "log line splits it out): public runs held from none of it to about 1.6 times it."
    )
