"""The overhead context of one GPU (:class:`planner.core.overhead.StageContext`), made in one place for the plan
(:func:`planner.planning.plan.stage_memory`) and for the engines' reports (``planner.engines.vllm.stage``): what an
overhead model sizes from is the same whichever asks, so the plan's breakdown and the engine's lines agree.

Made with ``model_construct``: every field is a validated one of the request (its model, weights, KV dtype, GPU and
deployment) or of the caller's stage (its split, layers, weights and memory), and validating the model spec again (its
shape check) cost ~60 us per stage, more than the rest of the context.
"""

from __future__ import annotations

from planner.core.overhead import StageContext
from planner.planning.data_parallel import ranks_of
from planner.planning.request import PlanRequest
from planner.planning.results import PlanResult


def spec_tokens(request: PlanRequest) -> int:
    """Tokens a drafter proposes per step that the target verifies (0 without speculative decoding; Medusa's heads
    add none: vLLM sizes no graph or sampler for them)."""
    options = request.deployment
    if options is None or options.speculative is None or options.speculative.method == "medusa":
        return 0
    return options.speculative.num_speculative_tokens


def speculative_method(request: PlanRequest) -> str | None:
    """The request's speculative method (``"mtp"``, ``"eagle"``, ...), ``None`` without speculative decoding."""
    options = request.deployment
    return options.speculative.method if options is not None and options.speculative is not None else None


def stage_context(
    request: PlanRequest,
    *,
    gpu_memory_bytes: int,
    split: tuple[int, int],
    stage_index: int,
    layers: tuple[int, int],
    weights_bytes: int,
    held_bytes: tuple[int, int],
    max_model_len: int,
) -> StageContext:
    """One GPU of pipeline stage ``stage_index`` of ``split`` (tensor, pipeline) with ``gpu_memory_bytes``, holding
    ``weights_bytes`` of the stage's ``layers`` and ``held_bytes`` (LoRA slots and a drafter, other processes'
    memory)."""
    options, gpu = request.deployment, request.gpu
    lora_draft, other = held_bytes
    return StageContext.model_construct(
        model=request.model,
        gpu_memory_bytes=gpu_memory_bytes,
        tensor_parallel=split[0],
        pipeline_parallel=split[1],
        is_last_stage=stage_index == split[1] - 1,
        weights_bytes=weights_bytes,
        lora_draft_bytes=lora_draft,
        max_model_len=max_model_len,
        stage_index=stage_index,
        layers=layers,
        weights_format=request.resolved_weights,
        kv_dtype=request.resolved_kv_dtype,
        gpu_name=gpu.name if gpu is not None else None,
        platform=gpu.platform if gpu is not None else None,
        device_total_bytes=gpu.memory_bytes if gpu is not None else None,
        other_bytes=other,
        speculative_tokens=spec_tokens(request),
        speculative_method=speculative_method(request),
        lora=bool(options and options.lora),
        windows_host=bool(options and options.host == "windows"),
        attention_ranks=ranks_of(request, *split) if request.overhead.attends_per_gpu else 1,
    )


def result_context(request: PlanRequest, result: PlanResult, stage_index: int, total: int) -> StageContext:
    """:func:`stage_context` of one rank of ``result``'s stage ``stage_index``, with ``total`` the device total the
    engine sizes from (``planner.engines.base.stage_total_bytes``): what an engine's report sees of the plan."""
    stage = result.stages[stage_index]
    return stage_context(
        request,
        gpu_memory_bytes=total,
        split=(result.tensor_parallel, result.pipeline_parallel),
        stage_index=stage_index,
        layers=stage.layers,
        weights_bytes=stage.weights_bytes,
        held_bytes=(stage.lora_bytes + stage.draft_bytes, stage.other_bytes),
        max_model_len=result.max_model_len,
    )
