"""The deployment's figures for every surface (``fit --json``, the CLI table, the Memory page): what each option
puts on the GPU and in host RAM, the decode-speed bound of partial offload, the KV offload tier, the LoRA host
cache, the proposer, memory already in use, the MIG slice and the mixed-GPU split with its launch settings.
Everything comes from one :class:`planner.assessment.assess.Assessment`, so the numbers are the page's."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from planner.assessment.assess import Assessment
from planner.core.overhead import EngineProfile
from planner.deploy.kv_offload import KvOffloadTier
from planner.deploy.lora import adapter_bytes
from planner.deploy.offload import active_fraction, decode_seconds, llamacpp_placement, read_bytes
from planner.engines.registry import get_engine
from planner.planning.extras import layer_offload, output_first
from planner.planning.kv_tier import planned_tier
from planner.planning.request import PlanRequest


class DecodeBound(BaseModel, frozen=True, extra="forbid"):
    """Decoded tokens per second of one sequence at best (every weight byte read once per token)."""

    tokens_per_s: float
    tokens_per_s_all_on_gpu: float
    gpu_read_bytes: int
    host_read_bytes: int
    host_link: str  # "host RAM" (llama.cpp computes CPU layers there) or "PCIe" (vLLM streams offloaded weights)


def _gpu_bandwidth(request: PlanRequest) -> int | None:
    return request.gpu.bandwidth_bytes_per_s if request.gpu is not None else None


def _file_other_bits(request: PlanRequest) -> float | None:
    """The bits the engine's own file of the weights keeps outside the routed experts (the platform row's
    ``other_bits``, as the advisor's speed reads them), None where it keeps the format's."""
    overhead, weights = request.overhead, request.resolved_weights
    if not isinstance(overhead, EngineProfile):
        return None
    rows = get_engine(overhead.engine_name).support.platforms
    return next((r.other_bits for r in rows if weights in r.weights and r.other_bits is not None), None)


def decode_bound(request: PlanRequest, a: Assessment) -> DecodeBound | None:
    """The decode-speed consequence of partial offload (:mod:`planner.deploy.offload`), None without offload or
    without the GPU's bandwidth."""
    options, bandwidth = request.deployment, _gpu_bandwidth(request)
    if options is None or bandwidth is None:
        return None
    model, precision, other = request.model, request.resolved_weights, _file_other_bits(request)
    everything = read_bytes(model, precision, range(model.num_hidden_layers), True, other)
    tp = a.result.tensor_parallel
    all_on_gpu = 1 / decode_seconds(everything // (tp * a.result.pipeline_parallel), bandwidth, 0, 1)
    if layer_offload(options):
        placement = llamacpp_placement(
            model, precision, options.gpu_layers, options.cpu_moe_layers, output_first(request)
        )
        moved = int(placement.host_expert_bytes * active_fraction(model))
        gpu = read_bytes(model, precision, placement.gpu_layers, placement.output_on_gpu, other) - moved
        host = everything - gpu
        seconds = decode_seconds(gpu, bandwidth, host, options.host_bandwidth_bytes_per_s)
        return DecodeBound(
            tokens_per_s=1 / seconds,
            tokens_per_s_all_on_gpu=all_on_gpu,
            gpu_read_bytes=gpu,
            host_read_bytes=host,
            host_link="host RAM",
        )
    offloaded = (
        max(stage.host_weights_bytes for stage in a.result.deployment_stages) if a.result.deployment_stages else 0
    )
    if not offloaded:
        return None
    share = everything / max(1, a.result.weights_bytes_total)  # the part of the weights a token reads
    host = int(offloaded * share)
    gpu = everything // tp - host
    seconds = decode_seconds(gpu, bandwidth, host, options.pcie_bandwidth_bytes_per_s)
    return DecodeBound(
        tokens_per_s=1 / seconds,
        tokens_per_s_all_on_gpu=all_on_gpu,
        gpu_read_bytes=gpu,
        host_read_bytes=host,
        host_link="PCIe",
    )


def offload_tier(request: PlanRequest, a: Assessment) -> KvOffloadTier | None:
    """The KV offload tier of ``request`` (:func:`planner.planning.kv_tier.planned_tier`, which the launch commands
    size their flags by)."""
    return planned_tier(request, a.result)


def launch_settings(request: PlanRequest, a: Assessment) -> list[str]:
    """Engine settings the deployment adds to the launch command (split, offload, LoRA, speculation), in
    the engine's own flags (:meth:`planner.engines.base.Engine.deployment_flags`); none without an engine."""
    if a.report is None:
        return []
    tier = offload_tier(request, a)
    return get_engine(a.report.engine).deployment_flags(request, a.result, tier.host_bytes if tier else 0)


def host_bytes(request: PlanRequest, a: Assessment) -> dict[str, int]:
    """Host RAM by component, the whole deployment (every GPU's process)."""
    result, options = a.result, request.deployment
    gpus_per_stage = result.tensor_parallel * result.replicas
    extras = a.result.deployment_stages or ()
    weights = sum(stage.host_weights_bytes for stage in extras) * gpus_per_stage
    if not extras and request.overhead.splits_layers:  # llama.cpp: token_embd stays in host memory, every replica's
        weights = result.host_weights_bytes_per_replica * result.replicas
    tier = offload_tier(request, a)
    lora = 0
    if options is not None and options.lora is not None:
        lora = (options.lora.max_cpu_loras or options.lora.max_loras) * adapter_bytes(request.model, options.lora)
    return {
        "host_weights_bytes": weights,
        "kv_offload_host_bytes": (tier.host_bytes if tier else 0) * result.replicas,
        "kv_offload_shm_bytes": (tier.shm_bytes if tier else 0) * result.replicas,
        "lora_host_bytes": lora * result.replicas,
    }


def deployment_data(a: Assessment) -> dict[str, Any]:
    """``fit --json``'s deployment fields: one per component, bytes per GPU (the limiting stage's, or the stage
    that holds it) and host bytes; details under ``deployment`` (None without one)."""
    request, result = a.request, a.result
    stages = result.stages
    data: dict[str, Any] = {
        "lora_bytes_per_gpu": max(s.lora_bytes for s in stages),
        "draft_bytes_per_gpu": max(s.draft_bytes for s in stages),
        "other_bytes_per_gpu": max(s.other_bytes for s in stages),
        "offloaded_weights_bytes_per_gpu": max(
            (e.host_weights_bytes for e in a.result.deployment_stages or ()), default=0
        ),
        **host_bytes(request, a),
    }
    options = request.deployment
    if options is None or not options.active:
        data["deployment"] = None
        return data
    tier, bound = offload_tier(request, a), decode_bound(request, a)
    data["deployment"] = {
        "gpu_layers": options.gpu_layers,
        "cpu_moe_layers": options.cpu_moe_layers,
        "cpu_offload_bytes_per_gpu": options.cpu_offload_bytes,
        "decode": bound.model_dump() if bound else None,
        "kv_offload": tier._asdict() if tier else None,
        "used_memory_bytes_per_gpu": options.used_memory_bytes,
        "host": options.host,
        "mig_profile": options.mig_profile,
        "stage_gpus": [
            {"name": g.name, "memory_bytes": g.memory_bytes, "layers": list(s.layers)}
            for g, s in zip(options.stage_gpus, stages, strict=False)
        ],
        "layer_split": [s.layers[1] - s.layers[0] for s in stages],
        "launch_settings": launch_settings(request, a),
    }
    return data
