"""What a vLLM release does with the deployment's own flags where it differs from what they say, in the report's notes.

``--cpu-offload-gb`` on Model Runner V2 before 0.28.0 (rule ``v2_weight_offload``): only the V1 runner installs the
weight offloader (``set_offloader(create_offloader(...))``, 0.27.1 ``v1/worker/gpu_model_runner.py:939``; Model
Runner V2 from 0.28.0 ``v1/worker/gpu/model_runner.py:324``), so the flag moves nothing there and the weights load
whole (vllm-project/vllm#51396); the plan holds them whole (:func:`planner.planning.extras.offloads_weights`).
"""

from __future__ import annotations

from planner.core.units import GiB
from planner.engines.vllm.profile import VllmProfile
from planner.planning.context import speculative_method
from planner.planning.extras import offloads_weights
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult


def offload_note(request: PlanRequest, profile: VllmProfile) -> str | None:
    """Where ``--cpu-offload-gb`` is asked and the release ignores it for the model (module docstring): that the
    weights load whole, and the setting under which they would not."""
    options = request.deployment
    if options is None or not options.cpu_offload_bytes or offloads_weights(request):
        return None
    taker = profile.weight_offload_taker(request.model, request.resolved_weights, speculative_method(request))
    cure = f" {taker[1]} starts the V1 runner, which offloads." if taker is not None and taker[1] else ""
    return (
        f"--cpu-offload-gb {options.cpu_offload_bytes / GiB:g} moves nothing here: vLLM {profile.engine_version} runs "
        f"{request.model.display_name} on Model Runner V2, which installs no weight offloader before 0.28.0 (only "
        "the V1 runner calls set_offloader; vllm-project/vllm#51396), so the weights are planned whole on the GPU."
        + cure
    )


def deployment_notes(request: PlanRequest, result: PlanResult, profile: VllmProfile) -> list[str]:
    """Every note of this module that applies to the plan."""
    return [n for n in (offload_note(request, profile),) if n]
