"""A vLLM set-up as the engine sees it, for tests of its per-rank rules: the request (the catalog GPU's memory as
engines see it, ``max_model_len`` = the context), its plan, the release's profile and every rank's stage."""

from __future__ import annotations

from typing import NamedTuple

from model_catalog import get_gpu, get_model
from planner.deploy.options import DeploymentOptions
from planner.engines.base import stage_total_bytes
from planner.engines.registry import engine_profile
from planner.engines.vllm.blocks import VllmStage
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.stage import vllm_stage
from planner.planning.plan import PlanRequest, plan
from planner.planning.results import PlanResult


class Planned(NamedTuple):
    request: PlanRequest
    result: PlanResult
    profile: VllmProfile
    stages: list[VllmStage]


def on_one_gpu(
    model: str, version: str, deployment: DeploymentOptions | None = None, gpu: str = "rtx-4090", **changes: object
) -> PlanRequest:
    """``model`` on one ``gpu`` (its memory as engines see it) at 8,192 tokens under vLLM ``version`` at its
    defaults, with ``deployment``; ``changes``: other request fields (``weights``, ``overhead``, ...)."""
    device = get_gpu(gpu)
    fields: dict[str, object] = {
        "model": get_model(model).spec,
        "gpu": device,
        "gpu_memory_bytes": device.memory_bytes_for(True),
        "context_tokens": 8192,
        "max_model_len": 8192,
        "overhead": VllmProfile(engine_version=version),
        "deployment": deployment,
    }
    return PlanRequest.model_validate({**fields, **changes})


def planned(model: str, gpu: str, tp: int, kv: str, context: int, version: str | None = None) -> Planned:
    """``model`` on ``tp`` x ``gpu`` with a ``kv`` cache at ``context`` tokens under vLLM ``version`` (the default
    release when None); raises PlannerError for a split the model does not divide by."""
    profile = engine_profile("vllm", version=version)
    assert isinstance(profile, VllmProfile)
    device = get_gpu(gpu)
    request = PlanRequest(
        model=get_model(model).spec,
        gpu=device,
        gpu_memory_bytes=device.memory_bytes_for(True),
        gpu_count=tp,
        tensor_parallel=tp,
        kv_dtype=kv,
        context_tokens=context,
        max_model_len=context,
        overhead=profile,
    )
    result = plan(request)
    ranks = range(len(result.stages))
    stages = [vllm_stage(request, result, profile, i, stage_total_bytes(request, result, i)) for i in ranks]
    return Planned(request, result, profile, stages)
