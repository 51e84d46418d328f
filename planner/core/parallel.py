"""Tensor and pipeline parallelism: which splits are legal, and which layers each pipeline stage holds."""

from __future__ import annotations

from planner.bounds.errors import PlannerError
from planner.core.model import ModelSpec


def parallel_problem(model: ModelSpec, tensor_parallel: int, pipeline_parallel: int, gpu_count: int) -> str | None:
    """Why this split is illegal, or ``None`` when it is legal.

    Rules (vLLM ``ModelConfig.verify_with_parallel_config``; the same in SGLang):
    - ``tp x pp`` divides the GPU count (the rest are data-parallel replicas);
    - attention heads divide evenly over TP ranks;
    - KV heads divide evenly over TP ranks, or TP is a multiple of them (each rank then keeps a replica);
    - pipeline stages get at least one layer each.
    """
    if tensor_parallel < 1 or pipeline_parallel < 1:
        return "tensor and pipeline parallel sizes must be at least 1"
    world = tensor_parallel * pipeline_parallel
    if world > gpu_count:
        return f"TP {tensor_parallel} x PP {pipeline_parallel} needs {world} GPUs, but the set-up has {gpu_count}"
    if gpu_count % world:
        return f"TP {tensor_parallel} x PP {pipeline_parallel} = {world} does not divide {gpu_count} GPUs"
    heads = model.num_attention_heads
    if heads is not None and heads % tensor_parallel:
        return f"{heads} attention heads do not split evenly over TP {tensor_parallel}"
    if model.mla is None:
        kv = model.resolved_kv_heads
        if kv % tensor_parallel and tensor_parallel % kv:
            return f"{kv} KV heads neither divide by nor divide TP {tensor_parallel}"
    if pipeline_parallel > model.num_hidden_layers:
        return f"PP {pipeline_parallel} exceeds the {model.num_hidden_layers} layers"
    return None


def check_parallel(model: ModelSpec, tensor_parallel: int, pipeline_parallel: int, gpu_count: int) -> None:
    """Raise :class:`PlannerError` with the reason when the split is illegal."""
    problem = parallel_problem(model, tensor_parallel, pipeline_parallel, gpu_count)
    if problem:
        raise PlannerError(f"tensor_parallel: {problem}")


NODE_GPUS = 8  # GPUs in one server (an HGX baseboard, an 8-slot PCIe server): tensor parallel stays within one


def default_parallelism(model: ModelSpec, gpu_count: int) -> tuple[int, int]:
    """A legal (TP, PP) for ``gpu_count`` GPUs: within one server (:data:`NODE_GPUS`) the largest legal TP dividing
    the count, PP 1, GPUs left over becoming data-parallel replicas (8 GPUs and a model whose heads allow TP 4 at
    most: TP 4 x 2 replicas); beyond one server, tensor parallel within each and a pipeline stage a server (vLLM's
    distributed-serving guide: "the tensor parallel size to the number of GPUs in each node, and the pipeline
    parallel size to the number of nodes"), so TP never crosses a server's NVLink.

    >>> from planner.core.model import ModelSpec
    >>> llama_405b = ModelSpec(id="x", hidden_size=16384, num_hidden_layers=126, num_attention_heads=128,
    ...                        num_key_value_heads=8, intermediate_size=53248, vocab_size=128256)
    >>> default_parallelism(llama_405b, 8), default_parallelism(llama_405b, 16), default_parallelism(llama_405b, 6)
    ((8, 1), (8, 2), (2, 1))
    """
    if gpu_count > NODE_GPUS:
        for tp in range(NODE_GPUS, 0, -1):
            pp = gpu_count // tp
            if gpu_count % tp == 0 and parallel_problem(model, tp, pp, gpu_count) is None:
                return tp, pp
    for tp in range(gpu_count, 0, -1):
        if gpu_count % tp == 0 and parallel_problem(model, tp, 1, gpu_count) is None:
            return tp, 1
    return 1, 1  # pragma: no cover - TP 1 is always legal


def stage_layer_ranges(num_layers: int, pipeline_parallel: int) -> list[range]:
    """Decoder layers of each pipeline stage.

    vLLM ``get_pp_indices``: ``num_layers // pp`` each, the remainder given one by one to the stages before
    the last (the first stage also holds the embedding and the last the lm_head).
    """
    base, remainder = divmod(num_layers, pipeline_parallel)
    sizes = [base] * pipeline_parallel
    for i in range(2, remainder + 2):
        sizes[-i] += 1
    ranges, start = [], 0
    for size in sizes:
        ranges.append(range(start, start + size))
        start += size
    return ranges
