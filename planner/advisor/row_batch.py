"""What a benchmark row's replica holds and runs at: the engine a row's family names, the row's set-up planned under
it as its own accounting sizes the KV pool, and the batch a max-throughput row runs at (the sequences the pool
holds, capped by the engine's running limit: trtllm-bench's own for the fused rows)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from planner.advisor.benchmarks import BenchmarkRow
from planner.bounds.errors import PlannerError
from planner.core.params import parameter_breakdown
from planner.engines.registry import engines
from planner.engines.trtllm_bench import bench_settings, kv_cache_requests, running_limit

if TYPE_CHECKING:
    from planner.assessment.assess import Assessment


def engine_of_family(family: str) -> str:
    """The first registered engine whose speed is modelled as ``family`` (the benchmark rows name the family)."""
    for engine in engines():
        if engine.support.speed_family == family:
            return engine.name
    raise PlannerError(f"benchmarks: no registered engine has the {family!r} speed family")


def assessed_row(row: BenchmarkRow, engine: str, version: str | None = None) -> Assessment:
    """The row's replica planned under ``engine`` (its release ``version``; ``None``: the registry's default) at the
    run's context (``input + output`` tokens), as its own accounting sizes the KV pool."""
    from model_catalog import get_gpu, get_model
    from planner.assessment.assess import assess
    from planner.engines.registry import engine_profile
    from planner.planning.plan import PlanRequest

    gpu, spec = get_gpu(row.gpu_id), get_model(row.model_id).spec
    context = row.input_tokens + row.output_tokens
    # TensorRT-LLM's performance runs set kv_cache_free_gpu_mem_fraction 0.95 "where it fits" (perf-overview.md).
    profile = engine_profile(engine, fraction=0.95 if row.family == "fused" else None, version=version)
    pipeline = row.split == "pipeline"
    request = PlanRequest(
        model=spec,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes_for(True),
        gpu_count=row.gpus_per_replica,
        tensor_parallel=1 if pipeline else row.gpus_per_replica,
        pipeline_parallel=row.gpus_per_replica if pipeline else 1,
        weights=row.weights,
        kv_dtype=row.kv_dtype,
        context_tokens=context,
        max_model_len=context,
        overhead=profile,
    )
    return assess(request)


def max_batch(row: BenchmarkRow) -> int:
    """Sequences of ``input + output`` tokens one replica's KV pool holds under the row's engine (its own
    accounting), capped at the engine's batch limit."""
    from model_catalog import get_gpu
    from planner.engines.vllm.defaults import default_batch

    gpu = get_gpu(row.gpu_id)
    assessed = assessed_row(row, engine_of_family(row.family))
    held = max(1, math.floor(assessed.concurrency))
    # the batch limit the engine runs a max-throughput run at when its pool holds more: for the fused rows (every
    # one a trtllm-bench throughput run naming no max_batch_size) the one trtllm-bench derives from the dataset
    # (planner.engines.trtllm_bench), vLLM's V1 default max_num_seqs on the GPU
    if row.family == "fused":
        return min(held, bench_running_limit(row))
    return min(held, default_batch(gpu.memory_bytes_for(True), gpu.name)[1])


def bench_running_limit(row: BenchmarkRow) -> int:
    """The requests trtllm-bench keeps in flight for ``row``: its ``max_batch_size`` for the row's lengths and
    set-up (:func:`planner.engines.trtllm_bench.bench_settings`), per stage and per attention-DP rank."""
    from model_catalog import get_gpu, get_model

    spec, gpu = get_model(row.model_id).spec, get_gpu(row.gpu_id)
    pp = row.gpus_per_replica if row.split == "pipeline" else 1
    gpus, lengths = (row.gpus_per_replica // pp, pp), (row.input_tokens, row.output_tokens)
    params = parameter_breakdown(spec).total
    memory, release = gpu.memory_bytes, row.engine_version
    requests = kv_cache_requests(spec, params, row.weights, row.kv_dtype, memory, gpus, lengths, release)
    settings = bench_settings(requests, *lengths, pp)
    return running_limit(settings.max_batch_size, gpus[0], pp, row.attention_dp)
