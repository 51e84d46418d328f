"""What a vLLM process holds outside torch under Windows (WSL2, Docker Desktop) beyond the Linux figure: a fitted
share of the weights the rank loaded (``VllmConstants.windows_weights_share``, fitted on the public WSL2 / Docker
Desktop start-ups), since 2026-12-07 (fifty-fourth session, issue 20); from the fifty-third session until then a
fitted amount per process (1.18 GiB, docs/fidelity.md, 'The share candidate with a Windows term, shipped').

Under WSL2 CUDA runs through the Windows display driver model (the paravirtualised ``/dev/dxg`` device: the Linux
``libcuda`` hands allocations and their residency to the Windows driver, ``dxgkio_make_resident``), and what a
process can hold is the Windows driver's to say: residency fails with ENOMEM with ~2 GB per card still free by
nvidia-smi, and a lower ``gpu_memory_utilization`` (0.88 -> 0.80) clears it (microsoft/WSL#41176); a bare
``torch.cuda.init()`` reserves a large hidden mapping per CUDA context under WSL2 (microsoft/WSL#40401, host-side).
vLLM 0.27-0.31 count the drop in free memory from the worker's snapshot to the end of the profile run as consumed
(0.27.1 ``utils/mem_utils.py:317-326``, 0.31.0 :312-321): whatever the Windows driver reserves for the process
after its snapshot lands in the non-torch figure (docs/fidelity.md, 'Windows hosts').
No public log splits it out beyond two boots: the WSL2 RTX 4090's two Qwen2.5-0.5B start-ups print 0.32 / 0.30 GiB
of non-torch memory (consumed 1.25 / 1.23 GiB less 0.93 of weights), the Linux figure, where the 14B and 27B boots
of the same hosts leave 1.1-2.0 GiB beyond it: what Windows holds grows with what the process loaded, not per
process (a fixed amount planned those two 1.2 GiB short). A third boot that prints its split holds none of it for
5.29 GiB of weights (a WSL2 RTX 4080 record under 0.26.0, run with ``VLLM_WSL2_ENABLE_PIN_MEMORY=1``: pinned memory
on, 0.27.1 ``platforms/cuda.py:286-304``); no per-allocation or per-layer form transfers better held out by source,
and none can be checked release out (:mod:`bench.windows_rules`; docs/fidelity.md, 'The Windows term's form'). The
share is fitted on the public WSL2 / Docker Desktop
start-ups' figures alone (``bench.calibrate.fit_windows_share``; :mod:`bench.windows_split`, two halves by source,
each held out once; :mod:`bench.fold_drift`: the share moves 0.0738 -> 0.0696 without the Qwen3.5 hybrids, whose
nine WSL2 RTX 5090 start-ups moved the amount per process 1.18 -> 0.90 GiB). An empirical share, as unified
memory's (:mod:`planner.engines.vllm.unified`): no source line sets it. Per rank, on a V1 start-up planned with
``--host windows`` (:attr:`planner.core.overhead.StageContext.windows_host`), eager or compiled.

>>> from planner.engines.vllm.versions import fitted_constants
>>> fitted_constants().windows_weights_share
0.0738
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


def windows_non_torch_bytes(share: float, loaded_bytes: int) -> int:
    """``share x loaded_bytes``: what Windows holds for a rank that loaded ``loaded_bytes`` of weights (a drafter's and
    LoRA slots' included, as unified memory's share counts them).

    >>> round(windows_non_torch_bytes(0.0705, round(18.93 * 2**30)) / 2**30, 2)
    1.33
    """
    return round(share * loaded_bytes)


def stage_windows_non_torch(profile: WindowsProfile, ctx: StageContext) -> int:
    """:func:`windows_non_torch_bytes` on each rank of a V1 start-up under Windows (``ctx.windows_host``)."""
    if not profile.is_v1 or not ctx.windows_host:
        return 0
    return windows_non_torch_bytes(profile.fitted.windows_weights_share, ctx.weights_bytes + ctx.lora_draft_bytes)


def windows_note(fitted: VllmConstants) -> str:
    """The Windows share in words (empty where it is 0).

    >>> from planner.engines.vllm.versions import fitted_constants
    >>> windows_note(fitted_constants().model_copy(update={"windows_weights_share": 0.0}))
    ''
    >>> windows_note(fitted_constants().model_copy(update={"windows_weights_share": 0.07}))[:46]
    'Non-torch memory includes 7.0 % of the weights'
    """
    if not fitted.windows_weights_share:
        return ""
    return (
        f"Non-torch memory includes {fitted.windows_weights_share * 100:.1f} % of the weights each process loaded, "
        "fitted on public WSL2 / Docker Desktop start-ups (what the Windows driver holds for vLLM's process beyond "
        "Linux's figure; no log line splits it out): public runs held from none of it to about twice it."
    )
