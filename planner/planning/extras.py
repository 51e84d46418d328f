"""A plan's deployment, stage by stage: what :mod:`planner.planning.plan` reads from a request's ``deployment``.

For each pipeline stage (one GPU of it): the weights that stay on the GPU and those in host RAM
(:mod:`.offload`), the layers whose KV cache is on the GPU, the LoRA slots (:mod:`.lora`), the proposer's weights
and KV bytes per token (:mod:`.speculative`, on the last stage) and the memory other processes hold. Mixed GPUs
(:mod:`.mixed`) give each stage its own memory and, optionally, its own number of layers.
"""

from __future__ import annotations

from typing import NamedTuple

from planner.bounds.errors import PlannerError
from planner.core.parallel import stage_layer_ranges
from planner.core.params import ParameterBreakdown
from planner.core.weights import Spread, stage_weights_bytes_per_gpu
from planner.deploy.host import held_bytes
from planner.deploy.lora import lora_slot_bytes, vocab_slot_bytes
from planner.deploy.mixed import check_split, llamacpp_split, ranges_of
from planner.deploy.offload import (
    llamacpp_gpu_layers,
    llamacpp_placement,
    vllm_offloaded_bytes,
)
from planner.deploy.options import DeploymentOptions
from planner.deploy.speculative import Drafter, drafter
from planner.planning.request import PlanRequest

NO_DRAFTER = Drafter(0, 0, 0)


class StageExtras(NamedTuple):
    """One GPU of one pipeline stage, as the deployment changes it (bytes)."""

    weights_bytes: int  # the model's weights resident on this GPU
    host_weights_bytes: int  # this GPU's weights kept in host RAM (offloaded)
    kv_layers: tuple[int, int]  # the stage's layers whose KV cache is on this GPU, [start, stop)
    lora_bytes: int
    draft_bytes: int
    draft_kv_bytes_per_token: int
    lookahead_tokens: int
    other_bytes: int  # held by other processes before the engine starts


def output_first(request: PlanRequest) -> bool:
    """Whether the engine offloads the output layer first (its profile says: llama.cpp builds since PR #18148)."""
    return request.overhead.offloads_output_first


def layer_offload(options: DeploymentOptions | None) -> bool:
    """llama.cpp's per-layer placement is asked for (``-ngl`` or ``--n-cpu-moe``)."""
    return options is not None and (options.gpu_layers is not None or options.cpu_moe_layers > 0)


def offloads_weights(request: PlanRequest) -> bool:
    """Whether the engine's ``--cpu-offload-gb`` moves the request's weights off the GPU in the planned release: the
    profile's :meth:`~planner.core.overhead.OverheadModelBase.weight_offload_taker` is the profile itself (vLLM's
    Model Runner V2 before 0.28.0 installs no offloader: the weights then load whole)."""
    overhead, options = request.overhead, request.deployment
    method = options.speculative.method if options is not None and options.speculative is not None else None
    taker = overhead.weight_offload_taker(request.model, request.resolved_weights, method)
    return taker is not None and taker[0] is overhead


def check_deployment(request: PlanRequest, tensor_parallel: int, pipeline_parallel: int) -> None:
    """Combinations no engine runs, refused with a :class:`PlannerError` naming the options."""
    options = request.deployment
    if options is None:
        return
    if layer_offload(options) and (tensor_parallel > 1 or pipeline_parallel > 1):
        raise PlannerError("gpu layers: llama.cpp's -ngl / --n-cpu-moe are planned on one GPU (TP 1, PP 1)")
    if layer_offload(options) and options.cpu_offload_bytes:
        raise PlannerError("offload: -ngl (llama.cpp) and --cpu-offload-gb (vLLM, SGLang) are different engines")
    if options.mig_profile and tensor_parallel * pipeline_parallel > 1:
        raise PlannerError(
            f"MIG: one server over {tensor_parallel * pipeline_parallel} slices (TP {tensor_parallel} x PP "
            f"{pipeline_parallel}) is not planned: a CUDA process enumerates one MIG slice (NVIDIA's MIG user guide, "
            "CUDA device enumeration; pytorch/pytorch#130181), an engine's ranks are given the same list of "
            "devices, and NCCL between slices is experimental and has no peer-to-peer path (NVIDIA/nccl#1716, "
            "2026-08); plan TP 1, a replica each slice"
        )
    if options.stage_gpus and (pipeline_parallel != len(options.stage_gpus) or tensor_parallel != 1):
        raise PlannerError(
            f"mixed GPUs: {len(options.stage_gpus)} GPUs are {len(options.stage_gpus)} pipeline stages of TP 1, "
            f"not TP {tensor_parallel} x PP {pipeline_parallel}"
        )


def layer_ranges(request: PlanRequest, pipeline_parallel: int) -> list[range]:
    """The decoder layers of each stage: the deployment's split, else the engine's: llama.cpp's over equal GPUs
    (:func:`planner.deploy.mixed.llamacpp_split`, where every GPU gets a layer), vLLM's ``get_pp_indices``."""
    options = request.deployment
    n = request.model.num_hidden_layers
    if options is not None and options.layer_split is not None:
        check_split(options.layer_split, n, pipeline_parallel)
        return ranges_of(options.layer_split)
    if request.overhead.splits_layers and pipeline_parallel > 1 and min(split := llamacpp_split(n, pipeline_parallel)):
        return ranges_of(split)
    return stage_layer_ranges(n, pipeline_parallel)


def kv_layers(request: PlanRequest, stage: range) -> range:
    """The layers of ``stage`` whose KV cache sits on the GPU (llama.cpp keeps a CPU layer's KV on the CPU)."""
    options = request.deployment
    if not layer_offload(options):
        return stage
    assert options is not None
    n = request.model.num_hidden_layers
    ngl = n + 1 if options.gpu_layers is None else options.gpu_layers
    return llamacpp_gpu_layers(n, ngl, output_first(request) or options.gpu_layers is None)[0]


def stage_drafter(
    request: PlanRequest, tensor_parallel: int, last: bool, spread: Spread | None = None, stages: int = 1
) -> Drafter:
    """The proposer on one GPU of a stage (the last one holds it; llama.cpp's draft model is split over the same
    ``stages`` GPUs as the target, its ``--device-draft`` unset: a share on each, common/speculative.cpp loads it
    with the target's devices and tensor split); ``spread``: the target's experts split over data-parallel ranks
    (an MTP module's with them)."""
    options = request.deployment
    split = request.overhead.splits_layers and stages > 1
    if options is None or options.speculative is None or not (last or split):
        return NO_DRAFTER
    precision, kv = request.resolved_weights, request.resolved_kv_dtype
    experts = spread.gpus if spread is not None and "experts" in spread.categories else None
    return drafter(request.model, options.speculative, precision, kv, stages if split else tensor_parallel, experts)


def _stage(
    request: PlanRequest, params: ParameterBreakdown, layers: list[ParameterBreakdown] | None, tp: int,
    stage: range, weights: int, last: bool, spread: Spread | None, stages: int,
) -> StageExtras:  # fmt: skip
    options = request.deployment
    assert options is not None
    model, precision = request.model, request.resolved_weights
    host = 0
    if layer_offload(options):
        ngl = options.gpu_layers
        placement = llamacpp_placement(model, precision, ngl, options.cpu_moe_layers, output_first(request))
        weights, host = placement.gpu_bytes, placement.host_bytes
    elif options.cpu_offload_bytes and layers is not None and offloads_weights(request):
        decoder = stage_weights_bytes_per_gpu(model, layers, params, precision, tp, stage, False, False, spread)
        host = vllm_offloaded_bytes(decoder, options.cpu_offload_bytes)
        weights -= host
    lora = 0
    if options.lora is not None:
        lora = lora_slot_bytes(model, options.lora, tp, stage, options.lora.max_loras)
        if request.overhead.lora_wraps_vocabulary():
            lora += vocab_slot_bytes(model, options.lora, stage.start == 0, last, options.lora.max_loras)
    proposer = stage_drafter(request, tp, last, spread, stages)
    return StageExtras(
        weights_bytes=weights,
        host_weights_bytes=host,
        kv_layers=(kv_layers(request, stage).start, kv_layers(request, stage).stop),
        lora_bytes=lora,
        draft_bytes=proposer.weights_bytes,
        draft_kv_bytes_per_token=proposer.kv_bytes_per_token,
        lookahead_tokens=proposer.lookahead_tokens,
        other_bytes=held_bytes(options.used_memory_bytes, options.host),
    )


def stage_extras(
    request: PlanRequest,
    params: ParameterBreakdown,
    layers: list[ParameterBreakdown] | None,
    tensor_parallel: int,
    ranges: list[range],
    weights: list[int],
    spread: Spread | None = None,
) -> tuple[StageExtras, ...] | None:
    """Every stage's :class:`StageExtras` (None without a deployment); ``weights`` are the stages' whole weights,
    ``spread`` what is split over the data-parallel ranks."""
    if request.deployment is None:
        return None
    last = len(ranges) - 1
    return tuple(
        _stage(request, params, layers, tensor_parallel, stage, weights[i], i == last, spread, len(ranges))
        for i, stage in enumerate(ranges)
    )
