"""A budget derived from the printed tokens (bench.derived) inverts the planner's own token arithmetic
(planner.engines.vllm.capacity): from 0.20.1 vLLM prints ``int(num_blocks / pages per request x max_model_len)``
(0.30.0 ``v1/core/kv_cache_utils.py`` :2373-2383, ``get_max_concurrency_for_kv_cache_config`` :1083-1094), where a
sliding-window group's pages per request are ``cdiv(min(window - 1 + max_in_flight_tokens, max_model_len), block)
+ 1`` (``v1/kv_cache_interface.py``, ``SlidingWindowSpec`` :807-852) and ``max_in_flight_tokens`` is every
concurrent batch's ``max_num_batched_tokens`` (``config/vllm.py`` :602-610), the planner's ``in_flight_tokens``. A
derivation that reads one batch where the planner reads every batch in flight scores a sliding-window model against
a budget the planner would not print from the same tokens."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bench.derived import printed_kv
from bench.fidelity_cases import build_request, load_cases, setup_of
from planner.bounds.errors import PlannerError
from planner.core.units import GiB
from planner.engines.registry import engine_report
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import plan

GPT_OSS_GB10 = "vllm-0.30.0-gb10-gpt-oss-20b-mxfp4-32k"
GEMMA4_H100 = "vllm-0.26.0-h100-gemma-4-31b-it-bf16-8k-gke"


def _tokens_only() -> list[dict[str, Any]]:
    """The vLLM V1 cases whose log prints tokens but neither the KV memory nor the blocks."""
    out = []
    for case in load_cases():
        setup = setup_of(case)
        reported = case["reported"]
        if setup.engine != "vllm" or setup.out_of_scope or not reported.get("kv_cache_tokens"):
            continue
        if reported.get("kv_cache_gib") is None and reported.get("gpu_blocks") is None:
            out.append(case)
    return out


def _round_trip(case: dict[str, Any]) -> tuple[float, float, float] | None:
    """(the planner's KV GiB, the budget derived from its own printed tokens, one block in GiB)."""
    setup = setup_of(case)
    try:
        request = build_request(case, setup)
        result = plan(request)
    except PlannerError:
        return None
    profile = request.overhead
    if not isinstance(profile, VllmProfile) or not profile.is_v1:
        return None
    report = engine_report(request, result)
    own = copy.deepcopy(case)
    own["reported"]["kv_cache_tokens"] = report.kv_cache_tokens
    derived, how = printed_kv(own, request, result, profile)
    if derived is None or how != "from tokens":
        return None
    per_block = report.available_kv_cache_bytes_per_gpu / max(report.gpu_blocks, 1) / GiB
    return report.available_kv_cache_bytes_per_gpu / GiB, derived, per_block


def test_the_derived_budget_inverts_the_planners_own_tokens() -> None:
    """Every tokens-only case: the planner's own tokens give back its KV budget within two blocks (a block of
    rounding each way: the printed tokens are truncated, the derived budget is the middle of its block)."""
    checked, off = 0, []
    for case in _tokens_only():
        trip = _round_trip(case)
        if trip is None:
            continue
        checked += 1
        planned, derived, block = trip
        if abs(derived - planned) > 2 * block:
            off.append((case["id"], round(planned, 2), round(derived, 2)))
    assert checked >= 25 and off == []


@pytest.mark.parametrize("case_id", [GPT_OSS_GB10, GEMMA4_H100])
def test_sliding_window_models_read_every_batch_in_flight(case_id: str) -> None:
    """gpt-oss-20b (sliding window 128 on half its layers) and Gemma 4 31B (sliding window 1,024): the two whose
    derivation read one batch where vLLM reserves every batch in flight (before: 2.80 and 0.96 GiB off)."""
    trip = _round_trip(next(c for c in load_cases() if c["id"] == case_id))
    assert trip is not None
    planned, derived, block = trip
    assert derived == pytest.approx(planned, abs=2 * block)
