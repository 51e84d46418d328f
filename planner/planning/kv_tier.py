"""A plan's KV offload tier: :func:`planner.deploy.kv_offload.kv_offload_tier` of the request's options, at the
cache dtype, blocks and context the plan resolved, over a replica's ranks (what the launch commands size their flags
and an LMCache server's buffer by, and what the pages show)."""

from __future__ import annotations

from planner.core.kv import kv_bytes_per_token
from planner.deploy.kv_offload import KvOffloadTier, kv_offload_tier
from planner.planning.request import PlanRequest
from planner.planning.results import PlanResult


def planned_tier(request: PlanRequest, result: PlanResult) -> KvOffloadTier | None:
    """The KV offload tier of ``request`` as planned: the whole model's KV per token at the plan's cache dtype,
    whole blocks of its block size, over its tensor- and pipeline-parallel ranks; None without one."""
    options = request.deployment
    if options is None or options.kv_offload is None:
        return None
    per_token = kv_bytes_per_token(request.model, result.kv_dtype)
    ranks = result.tensor_parallel * result.pipeline_parallel
    return kv_offload_tier(options.kv_offload, per_token, result.block_size, ranks, result.context_tokens)
