"""Deployment options against what an engine takes (:class:`planner.engines.support.EngineSupport`): which it
refuses and why, and the launch arguments of the ones it takes, in its own spelling.

Flags: llama.cpp ``-ngl`` / ``--n-cpu-moe`` and ``--split-mode layer --tensor-split`` (``common/arg.cpp``); vLLM
``--cpu-offload-gb`` (``vllm/config/offload.py``), ``--kv-offloading-size`` / ``--kv-offloading-backend``
(``vllm/config/vllm.py``) and ``VLLM_PP_LAYER_PARTITION`` (``vllm/distributed/utils.py`` ``get_pp_indices``).
LoRA slots: :mod:`planner.engines.lora_flags`. Speculative decoding is each engine's own
(:meth:`planner.engines.base.Engine.speculative_flags`).
"""

from __future__ import annotations

from planner.core.units import GiB
from planner.deploy.options import DeploymentOptions
from planner.engines.lora_flags import lora_arguments
from planner.engines.support import EngineSupport
from planner.planning.request import PlanRequest
from planner.planning.results import PlanResult


def options_refusal(support: EngineSupport, options: DeploymentOptions | None) -> str | None:
    """Why the engine does not take ``options`` (the first option it has no flag for), else ``None``."""
    if options is None:
        return None
    label = support.label
    if (options.gpu_layers is not None or options.cpu_moe_layers) and not support.layer_offload_flags:
        return f"{label} does not keep layers in system RAM (-ngl / --n-cpu-moe are llama.cpp's)" + (
            f"; it offloads weights with {support.cpu_offload_flag}" if support.cpu_offload_flag else ""
        )
    if options.cpu_offload_bytes and not support.cpu_offload_flag:
        return f"{label} has no --cpu-offload-gb" + (
            f"; it keeps layers in system RAM with {support.layer_offload_flags[0]}"
            if support.layer_offload_flags
            else ""
        )
    if options.lora is not None and support.lora is None:
        return f"{label}'s LoRA adapter slots are not planned here (vLLM and SGLang's are)"
    if options.kv_offload is not None and options.kv_offload.backend not in support.kv_offload_backends:
        backend = options.kv_offload.backend
        return (
            f"the {backend} KV offload tier is vLLM's (--kv-offloading-backend {backend}); {label}'s own host KV "
            "cache, where it has one, is not planned here"
        )
    if options.speculative is not None and options.speculative.method not in support.speculative_methods:
        methods = ", ".join(support.speculative_methods) or "none"
        return f"{label} does not run {options.speculative.method} speculative decoding (it runs: {methods})"
    if options.stage_gpus and not support.stage_split:
        return f"{label} does not split layers unevenly over mixed GPUs"
    return None


def stage_split_arguments(support: EngineSupport, split: tuple[int, ...]) -> str:
    """How the engine is told the layers of each stage: ``VLLM_PP_LAYER_PARTITION`` (set before the command), or
    llama.cpp's ``--tensor-split`` (the last device also takes the output layer).

    >>> from planner.engines.registry import get_engine
    >>> stage_split_arguments(get_engine("llamacpp").support, (20, 12))
    '--split-mode layer --tensor-split 20,13'
    """
    if support.stage_split == "tensor-split":
        counts = (*split[:-1], split[-1] + 1)
        return f"--split-mode layer --tensor-split {','.join(map(str, counts))}"
    return f"VLLM_PP_LAYER_PARTITION={','.join(map(str, split))}"


def deployment_flags(
    support: EngineSupport, request: PlanRequest, result: PlanResult, kv_offload_host_bytes: int
) -> list[str]:
    """The launch arguments the deployment options add, each entry shell-safe."""
    options = request.deployment or DeploymentOptions()
    out = []
    if options.stage_gpus:
        out.append(stage_split_arguments(support, tuple(b - s for s, b in (st.layers for st in result.stages))))
    if options.gpu_layers is not None:
        out.append(f"-ngl {options.gpu_layers}")
    if options.cpu_moe_layers:
        out.append(f"--n-cpu-moe {options.cpu_moe_layers}")
    if options.cpu_offload_bytes:
        out.append(f"{support.cpu_offload_flag} {options.cpu_offload_bytes / GiB:g}")
    if options.kv_offload is not None:
        size = kv_offload_host_bytes / GiB
        out.append(f"--kv-offloading-size {size:.1f} --kv-offloading-backend {options.kv_offload.backend}")
    if options.lora is not None and support.lora is not None:
        out.append(lora_arguments(support.lora, request.model, options.lora))
    return out  # speculative decoding: each engine's own arguments (Engine.speculative_flags)
