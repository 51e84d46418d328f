"""The GPU-share lever of a unified-memory machine: a Mac wires at most ``iogpu.wired_limit_mb`` of its memory for
the GPU (75 % by default), so a set-up that does not fit there may fit once the share is raised, up to what leaves
the OS its own (:mod:`planner.deploy.gpu_share`). The memory planned grows with the share, so fitting is monotone
in it: a binary search over hundredths finds the smallest share that holds the goal.
"""

from __future__ import annotations

from planner.core.overhead import EngineProfile
from planner.deploy.gpu_share import HUNDREDTHS, highest_share
from planner.deploy.host import deployment_memory_bytes
from planner.deploy.options import DeploymentOptions
from planner.planning.plan import PlanRequest


def current_share(request: PlanRequest) -> float | None:
    """The GPU share ``request`` is planned at (given, else the OS default); ``None`` when its GPU is not a
    unified-memory machine or its memory is not the share's (a size given by hand, a MIG slice, mixed GPUs)."""
    gpu, deployment = request.gpu, request.deployment or DeploymentOptions()
    if gpu is None or gpu.unified_memory is None or deployment.stage_gpus:
        return None
    share = deployment.unified_share or gpu.unified_memory.default_gpu_share
    return share if request.gpu_memory_bytes == _memory(request, _at_share(request, share)) else None


def _memory(request: PlanRequest, deployment: DeploymentOptions) -> int:
    assert request.gpu is not None
    return deployment_memory_bytes(request.gpu, isinstance(request.overhead, EngineProfile), deployment)


def _at_share(request: PlanRequest, share: float) -> DeploymentOptions:
    return (request.deployment or DeploymentOptions()).model_copy(update={"unified_share": share})


def with_share(request: PlanRequest, share: float) -> PlanRequest:
    """``request`` on the same machine with the GPU's share of memory raised to ``share``."""
    deployment = _at_share(request, share)
    return request.model_copy(update={"deployment": deployment, "gpu_memory_bytes": _memory(request, deployment)})


def share_range(request: PlanRequest) -> tuple[int, int] | None:
    """The shares above the current one a raise can try, in hundredths (``None``: no raise possible)."""
    current = current_share(request)
    if current is None or request.gpu is None:
        return None
    low, high = int(current * HUNDREDTHS) + 1, round(highest_share(request.gpu) * HUNDREDTHS)
    return (low, high) if low <= high else None
