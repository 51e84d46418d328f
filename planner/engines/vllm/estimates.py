"""vLLM's profile terms at the default release, reused where no vLLM request is at hand: TensorRT-LLM's engine
workspace (the V0 form of the activation peak) and a calibrated profile's CUDA-graph estimate."""

from __future__ import annotations

from planner.core.model import ModelSpec
from planner.core.overhead import StageContext
from planner.core.units import GiB
from planner.engines.vllm.profile import VLLM_DEFAULT_VERSION, VllmProfile


def vllm_activation_bytes(
    model: ModelSpec,
    max_num_batched_tokens: int,
    max_num_seqs: int,
    tensor_parallel: int,
    with_logits: bool,
    v1: bool = True,
) -> int:
    """The activation peak of a vLLM-like profile run on one GPU with the default release's constants
    (TensorRT-LLM's engine workspace reuses the V0 form: ``v1=False``)."""
    profile = VllmProfile(engine_version=VLLM_DEFAULT_VERSION if v1 else "0.6.4")
    ctx = StageContext(
        model=model,
        gpu_memory_bytes=80 * GiB,
        tensor_parallel=tensor_parallel,
        pipeline_parallel=1,
        is_last_stage=with_logits,
    )
    return profile.terms(model, ctx, max_num_batched_tokens, max_num_seqs).peak


def vllm_cudagraph_bytes(model: ModelSpec, ctx: StageContext, profile: VllmProfile | None = None) -> int:
    """vLLM's CUDA-graph estimate on one GPU of ``ctx`` (the default release's profile unless given)."""
    profile = profile or VllmProfile()
    layers = ctx.layers or (0, model.num_hidden_layers)
    return profile.cudagraph_estimate_bytes(layers[1] - layers[0], profile.context_graphs(ctx))
