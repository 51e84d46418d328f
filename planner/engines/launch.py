"""Ready-to-paste start commands for every engine (:func:`launch_commands`): each engine's command for the plan
(:meth:`planner.engines.base.Engine.launch_command`) with the deployment's own flags in it — layers on the GPU,
expert and weight offload, KV offload, LoRA, speculative decoding, an uneven split
(:meth:`planner.engines.base.Engine.deployment_flags`) — so the command a reader pastes is the set-up the page
planned (:func:`with_deployment`)."""

from __future__ import annotations

import re

from planner.core.overhead import EngineProfile
from planner.core.parallel import NODE_GPUS
from planner.deploy.gpu_share import raise_shell
from planner.engines.base import Engine, EngineReport
from planner.engines.registry import engines, get_engine
from planner.planning.data_parallel import experts_shared, ranks_apart
from planner.planning.kv_tier import planned_tier
from planner.planning.request import PlanRequest
from planner.planning.results import PlanResult

ENVIRONMENT = re.compile(r"^[A-Z][A-Z0-9_]*=\S+$")
# Flags the engine's own command already carries with its default value: the deployment's value replaces it.
REPLACED = {
    "-ngl": re.compile(r"-ngl \S+"),
    "--split-mode": re.compile(r"--split-mode layer --tensor-split \S+"),
    "--extra_llm_api_options": re.compile(r"--extra_llm_api_options <\(printf [^)]*\)"),
}


def with_deployment(command: str, flags: list[str]) -> str:
    """``command`` (comment lines, then the command) with each of ``flags``: an environment variable before it, a
    flag the command already carries at its default replaced, any other appended.

    >>> print(with_deployment("# a note\\nllama-server -m m.gguf -c 8192 -np 1 -ngl 99", ["-ngl 40", "--n-cpu-moe 4"]))
    # a note
    llama-server -m m.gguf -c 8192 -np 1 -ngl 40 --n-cpu-moe 4
    >>> with_deployment("vllm serve m --tensor-parallel-size 1", ["VLLM_PP_LAYER_PARTITION=20,12"])
    'VLLM_PP_LAYER_PARTITION=20,12 vllm serve m --tensor-parallel-size 1'
    """
    *notes, line = command.splitlines() or [""]
    for flag in flags:
        pattern = REPLACED.get(flag.split(" ", 1)[0])
        found = pattern.search(line) if pattern is not None else None
        if ENVIRONMENT.match(flag):
            line = f"{flag} {line}"
        elif found is not None:
            line = line[: found.start()] + flag + line[found.end() :]
        else:
            line = f"{line} {flag}"
    return "\n".join([*notes, line])


def across_servers(words: str, result: PlanResult) -> str:
    """A comment line saying how a replica wider than one server (:data:`NODE_GPUS`) is started, from the engine's
    ``multi_node`` words; empty within one server.

    >>> from planner.engines.registry import get_engine
    >>> class Split:
    ...     tensor_parallel, pipeline_parallel = 8, 2
    >>> across_servers(get_engine("sglang").support.multi_node, Split())  # doctest: +ELLIPSIS
    '# 2 servers: run this on each with --nnodes 2 --node-rank <0 to 1> --dist-init-addr ...\\n'
    """
    gpus = result.tensor_parallel * result.pipeline_parallel
    if gpus <= NODE_GPUS or not words:
        return ""
    servers = -(-gpus // NODE_GPUS)
    return "# " + words.format(servers=servers, last=servers - 1, gpus=gpus) + "\n"


def ranks_profile(engine: Engine, request: PlanRequest, result: PlanResult) -> tuple[EngineProfile | None, str | None]:
    """Another engine's profile for the plan (``None``: its defaults), and why it does not run it: where the plan's
    data-parallel ranks share the experts (:func:`experts_shared`), its data-parallel attention, which splits them
    so, where it takes it; else its replicas would be whole copies."""
    gpus = result.tensor_parallel * result.pipeline_parallel
    if not experts_shared(
        request.overhead, request.model, gpus, request.replica_of or result.replicas, ranks_apart(request)
    ):
        return None, None
    if "enable_dp_attention" not in engine.setting_fields:
        return None, f"{engine.label} runs data-parallel replicas as whole copies, not ranks sharing the experts"
    profile = engine.profile(enable_dp_attention=True)
    return profile, engine.ranks_refusal(result.tensor_parallel)


def launch_commands(request: PlanRequest, result: PlanResult, report: EngineReport | None = None) -> dict[str, str]:
    """Ready-to-paste start commands for every engine, with the plan's parallelism, context and KV dtype and the
    deployment's flags (:func:`with_deployment`); the request's own engine uses its profile's settings, the others
    their defaults. An engine that does not run the plan (:meth:`Engine.refusal`) gets its reason as a comment above
    the command, once; so does the request's own engine where its start-up as planned fails (``report``, its
    :meth:`Engine.report_figures` when not given: the failure the Memory page shows). The request's own engine
    comes first (a page shows its tab first)."""
    own = request.overhead if isinstance(request.overhead, EngineProfile) else None
    own_name = own.engine_name if own is not None else None
    if own is not None and report is None:
        report = get_engine(own.engine_name).report_figures(request, result, own)
    fails = report.failure if report is not None and report.engine == own_name else None
    share = request.deployment.unified_share if request.deployment else None
    first = [raise_shell(request.gpu, share)] if share and request.gpu and request.gpu.unified_memory else []
    tier = planned_tier(request, result)
    host = tier.host_bytes if tier is not None else 0
    commands = {}
    for engine in sorted(engines(), key=lambda e: e.name != own_name):
        profile, reason = (own, None) if engine.name == own_name else ranks_profile(engine, request, result)
        command = engine.launch_command(request, result, profile)
        reason = reason or engine.refusal(request)  # an engine that does not run the plan says so above its command
        if reason is None and engine.name == own_name and fails:
            command = f"# predicted not to start as planned: {fails.splitlines()[0]}\n" + command
        if reason is None and request.deployment is not None:
            command = with_deployment(command, engine.deployment_flags(request, result, host))
        command = across_servers(engine.support.multi_node, result) + command
        said = f"# not runnable as planned: {reason}"
        lines = [line for line in command.splitlines() if line != said]  # a weight refusal's own note: once
        commands[engine.name] = "\n".join(first + (lines if reason is None else [said, *lines]))
    return commands
