"""The KV budget a log shows, printed or derived from the blocks or tokens it printed.

Logs that print no "Available KV cache memory" line often print the pool's blocks (the Mamba refusal: "exceeds
available Mamba cache blocks (969)") or its tokens and concurrency. vLLM sizes the pool as ``budget // bytes per
block`` (``get_kv_cache_config_from_groups``), so the budget lies within one block of ``blocks x bytes per
block``; from 0.20.1 the tokens are ``int(blocks / pages per request x max_model_len)``, so the blocks follow
from the tokens (``round(tokens / max_model_len x pages per request)``). The bytes per block and the pages per
request are the engine's own arithmetic (:mod:`planner.engines.vllm.blocks`), which the logs that print both
figures reproduce exactly (tests/fidelity). A derived budget is the middle of its block.
"""

from __future__ import annotations

from typing import Any

from planner.core.units import GiB
from planner.engines.base import engine_total_bytes
from planner.engines.vllm.blocks import VllmStage, block_of, pages_per_request
from planner.engines.vllm.in_flight import in_flight_tokens
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.stage import vllm_stage
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult


def block_bytes(stage: VllmStage) -> int:
    """Bytes one block of the pool takes on this rank (every group's layers, a draft model's pages)."""
    return stage.page_bytes * stage.group_size + stage.draft_page_bytes


def request_pages(stage: VllmStage, max_model_len: int, in_flight: int) -> int:
    """Pages one request of ``max_model_len`` holds (the divisor of the printed concurrency), as the planner's
    capacity counts them (planner.engines.vllm.capacity): each group at its own spec type's block, a windowed group
    over every batch in flight (``in_flight``: 0.30.0 ``config/vllm.py`` :602-610 ``max_in_flight_tokens``)."""
    return sum(
        pages_per_request(key, max_model_len, block_of(stage, key), in_flight, stage.mamba_pages)
        for key in stage.groups
    )


def printed_kv(
    case: dict[str, Any], request: PlanRequest, result: PlanResult, profile: VllmProfile
) -> tuple[float | None, str]:
    """``(KV budget in GiB, how)``: ``"printed"``, ``"from blocks"``, ``"from tokens"`` or ``(None, "")``."""
    reported = case["reported"]
    if reported.get("kv_cache_gib") is not None:
        return float(reported["kv_cache_gib"]), "printed"
    if not profile.is_v1:
        return None, ""
    stage = vllm_stage(request, result, profile, 0, engine_total_bytes(request))
    per_block = block_bytes(stage)
    blocks = reported.get("gpu_blocks")
    how = "from blocks"
    tokens, max_len = (
        reported.get("kv_cache_tokens"),
        reported.get("max_concurrency_at_tokens") or case.get("max_model_len"),
    )
    if blocks is None and tokens and max_len and profile.rules.printed_tokens == "concurrency":
        _, in_flight = in_flight_tokens(request, result, profile)
        blocks = round(tokens / max_len * request_pages(stage, max_len, in_flight))
        how = "from tokens"
    if blocks is None or not per_block:
        return None, ""
    return (blocks + 0.5) * per_block / GiB, how
