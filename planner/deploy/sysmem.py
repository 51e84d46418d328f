"""Windows' system-memory fallback: what an engine under WSL2 or Docker Desktop allocates beyond the card after its KV
pool runs from system memory instead of failing (``DeploymentOptions.host == "windows"``, one GPU).

**The driver's rule.** From driver 536.40 NVIDIA's Windows driver lets an application that exhausts the GPU's memory
use shared (system) memory, "albeit at lower speeds"; 546.01 added the setting "CUDA - Sysmem Fallback Policy" to turn
it off per program, the driver default leaving it on (NVIDIA support article 5490,
nvidia.custhelp.com/app/answers/detail/a_id/5490; the setting's values, Driver Default / Prefer No Sysmem Fallback /
Prefer Sysmem Fallback: Orbmu2k/nvidiaProfileInspector#166). NVIDIA's CUDA on WSL guide does not say whether it covers
WSL2; the public WSL2 reports say it does, whatever the per-program setting:

- microsoft/WSL#11050 (titled that WSL2 does not respect the policy): under WSL2 a 30 GiB ``torch.ones`` on a 16 GiB
  card succeeded; the second 30 GiB, the first still held (60 GiB), raised the out-of-memory error (the shared memory
  is bounded, by default half of the host's RAM), so it is no refusal of the fallback;
- syv-ai/qwen38-27b-rtx3090#25 item 14 and PR #83 (gotcha 53): on WSL2 RTX 4090s an over-committed vLLM boot that is a
  hard out-of-memory at KV allocation on a native card starts and serves two to six times slower, 1,818 MiB of its
  working set in host shared memory by the Windows adapter counters; #156: a WSL2 RTX 3090 at util 0.93 shows 0.61-0.98
  GB of shared usage while serving;
- microsoft/WSL#40732 (a pure-CUDA reproducer): a WSL2 process that oversubscribes the card gets no allocation error,
  WDDM pages.

**What the failures cited against it are.** None is an allocation beyond the card after the KV pool on one GPU: the
Marlin repack's out-of-memory at load (syv-ai/qwen38-27b-rtx3090#1, ``expandable_segments:True``) is the WSL GPU-PV
residency path refusing CUDA's virtual-memory calls with the card nearly empty (``dxgkio_make_resident -12`` with
23.7 GiB free; #2, fixed by ``expandable_segments:False``); microsoft/WSL#41176 is a two-GPU tensor-parallel load
refused residency with ~2 GB free per GPU; noonghunna/club-3090#32 a two-GPU load refused 44 MiB with 15.41 GiB free.
The twenty-five Windows start-ups of ``tests/fidelity`` hold no CUDA out-of-memory: their five refusals are vLLM's own
arithmetic (the free-memory check three times, the KV check, no KV memory), and every start planned with less free
memory than its capture and the source's warm-up (``tests/deploy/test_sysmem.py``) started.

So the rule: on one GPU under Windows the capture and the sampler warm-up after the pool do not refuse the start when
they exceed what the card has left; the report warns that the overflow runs from system memory. Not covered: more than
one GPU (the residency failures above are all tensor-parallel), and the checks that are vLLM's arithmetic.
"""

from __future__ import annotations

from planner.core.units import GiB
from planner.deploy.host import HostOs

SOURCE = "NVIDIA support article 5490 (driver 536.40, 'CUDA - Sysmem Fallback Policy'); microsoft/WSL#11050"


def spills_to_system_memory(host: HostOs, gpus: int) -> bool:
    """Whether an allocation beyond the card after the KV pool runs from system memory rather than failing: under
    Windows on one GPU (module docstring).

    >>> [spills_to_system_memory(host, gpus) for host, gpus in (("windows", 1), ("windows", 2), ("linux", 1))]
    [True, False, False]
    """
    return host == "windows" and gpus == 1


def spill_note(over_bytes: int, step: str) -> str:
    """The warning for a start that proceeds only through the fallback: ``over_bytes`` beyond the card in ``step``."""
    return (
        f"{step}: ~{over_bytes / GiB:.2f} GiB beyond what the card has left after the KV pool. Under Windows "
        "(WSL2, Docker Desktop) the driver's system-memory fallback runs the overflow from shared system memory, so "
        f"the engine starts, slower while it is there ({SOURCE}). Lower --gpu-memory-utilization to keep it on the "
        "card."
    )
