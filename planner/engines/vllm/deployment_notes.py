"""What a vLLM release does with the deployment's own flags where it differs from what they say, in the report's notes.

``--cpu-offload-gb`` on Model Runner V2 before 0.28.0 (rule ``v2_weight_offload``): only the V1 runner installs the
weight offloader (``set_offloader(create_offloader(...))``, 0.27.1 ``v1/worker/gpu_model_runner.py:939``; Model
Runner V2 from 0.28.0 ``v1/worker/gpu/model_runner.py:324``), so the flag moves nothing there and the weights load
whole (vllm-project/vllm#51396); the plan holds them whole (:func:`planner.planning.extras.offloads_weights`).

``--kv-offloading-backend lmcache`` from 0.23.0 (rule ``lmcache_server``): vLLM runs LMCache's multi-process
connector, which connects to an LMCache server (``tcp://localhost:5555`` unless ``kv_connector_extra_config`` says
otherwise) and leaves the tier's size to it (0.27.0 ``config/vllm.py:918-924``, "kv_offloading_size is not
propagated"); the flag only switches the offload on. The command's first line is the server to start before it, its
CPU buffer the host tier planned: LMCache's multi-process server, ``python3 -m lmcache.v1.multiprocess.server
--cpu-buffer-size G`` (LMCache's docs, ``docs/source/kv_cache/multiprocess_mode.rst``, lmcache 0.3.11; ``G`` in GiB:
``MPStorageManager`` allocates ``cpu_buffer_size * (1 << 30)`` bytes, ``lmcache/v1/multiprocess/mp_storage_manager.py``;
it listens on ``localhost:5555`` by default, ``--port``). The note says the buffer is a size vLLM does not set.
"""

from __future__ import annotations

import math

from planner.core.units import GiB
from planner.engines.vllm.profile import VllmProfile
from planner.planning.context import speculative_method
from planner.planning.extras import offloads_weights
from planner.planning.kv_tier import planned_tier
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


LMCACHE_SERVER = "tcp://localhost:5555"  # LMCacheMPConnector's default (lmcache_mp_connector.py:486-489)
LMCACHE_SERVER_COMMAND = "python3 -m lmcache.v1.multiprocess.server --cpu-buffer-size"  # G in GiB (module docstring)


def lmcache_server(request: PlanRequest, profile: VllmProfile) -> bool:
    """The deployment's KV tier is LMCache's and the release connects to an LMCache server for it."""
    options = request.deployment
    tier = options.kv_offload if options is not None else None
    return tier is not None and tier.backend == "lmcache" and profile.rules.lmcache_server


def buffer_gib(host_bytes: int) -> float:
    """The server's ``--cpu-buffer-size``: the tier in GiB, rounded up to a hundredth (it must hold the whole tier).

    >>> buffer_gib(16 * GiB), buffer_gib(4_000_000_000)
    (16.0, 3.73)
    """
    return math.ceil(host_bytes * 100 / GiB) / 100


def lmcache_command_line(request: PlanRequest, result: PlanResult, profile: VllmProfile) -> str:
    """The comment line above the command where it needs an LMCache server running, with the server's own command
    sized to the host tier planned ("" where it needs none; module docstring)."""
    tier = planned_tier(request, result)
    if not lmcache_server(request, profile) or tier is None:
        return ""
    return (
        f"# first, in another shell: {LMCACHE_SERVER_COMMAND} {buffer_gib(tier.host_bytes):g} (LMCache's multi-process "
        f"server at {LMCACHE_SERVER}, its CPU buffer the host tier in GiB): vLLM {profile.engine_version} connects to "
        "it for --kv-offloading-backend lmcache and does not pass --kv-offloading-size on (the flag only switches the "
        "offload on)\n"
    )


def lmcache_note(request: PlanRequest, profile: VllmProfile) -> str | None:
    """The LMCache tier's server, where the release connects to one (module docstring)."""
    if not lmcache_server(request, profile):
        return None
    return (
        f"KV offload: vLLM {profile.engine_version} runs --kv-offloading-backend lmcache through LMCacheMPConnector "
        f"(from 0.23.0; vllm PR #42865), which connects to an LMCache server at {LMCACHE_SERVER}: it must be running "
        "before vLLM starts, and it alone sizes the tier, since vLLM does not pass --kv-offloading-size on (the flag "
        "only switches the offload on). The host tier planned here is what that server's CPU buffer must hold."
    )


def deployment_notes(request: PlanRequest, result: PlanResult, profile: VllmProfile) -> list[str]:
    """Every note of this module that applies to the plan."""
    return [n for n in (offload_note(request, profile), lmcache_note(request, profile)) if n]
