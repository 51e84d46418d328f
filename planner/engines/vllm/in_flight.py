"""Tokens a request's sliding-window and chunked-local layers hold beyond their window: what vLLM reserves for them
when it sizes a request's pages (``max_memory_usage_bytes``, the start-up check and the printed concurrency) and
when it admits one (``max_admission_blocks_per_request``, one source for both from 0.26.0).

- Up to 0.25.1: one batch, ``max_num_batched_tokens`` (0.25.1 ``v1/kv_cache_interface.py:561``:
  ``min(sliding_window - 1 + max_num_batched_tokens, max_model_len)``).
- From 0.26.0: ``VllmConfig.max_in_flight_tokens``, every batch that may be scheduled and not yet settled:
  ``max_concurrent_batches x max_num_batched_tokens`` (0.26.0 ``config/vllm.py:511-533``,
  ``v1/kv_cache_interface.py:502-537`` chunked-local and ``:567-598`` sliding-window; 0.33.0
  ``config/vllm.py:588-598``).
  With asynchronous scheduling (on by default, 0.26.0 ``config/vllm.py:1059-1107``) that is two batches on the V1
  model runner at PP 1 and PP + 1 on Model Runner V2; without it, PP. (0.34.0, not among the releases read,
  gives PP + 1 on any runner, ``config/vllm.py:560-566``: it differs only under PP on the V1 runner.) The
  default leaves asynchronous scheduling off for some speculative methods (rule ``async_off_for``: a draft model
  and Medusa in 0.26.0, Medusa from 0.28.0, none from 0.33.0).

>>> max_concurrent_batches(1, async_on=True, v2_runner=False), max_concurrent_batches(2, True, True)
(2, 3)
>>> max_concurrent_batches(2, async_on=True, v2_runner=False), max_concurrent_batches(1, False, False)
(2, 1)
"""

from __future__ import annotations

from planner.engines.base import engine_total_bytes
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.versions import VllmRules
from planner.planning.context import speculative_method
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult


def async_scheduling(rules: VllmRules, speculative_method: str | None) -> bool:
    """Whether the release schedules asynchronously by default for this speculative method (``None``: none)."""
    return speculative_method not in rules.async_off_for


def max_concurrent_batches(pipeline_parallel: int, async_on: bool, v2_runner: bool) -> int:
    """Batches vLLM may have scheduled and not settled (``VllmConfig.max_concurrent_batches``)."""
    if async_on and v2_runner:
        return pipeline_parallel + 1
    if async_on and pipeline_parallel <= 1:
        return 2
    return pipeline_parallel


def in_flight_tokens(request: PlanRequest, result: PlanResult, profile: VllmProfile) -> tuple[int, int]:
    """(``max_num_batched_tokens``, the tokens one sliding-window or chunked-local layer of ``request`` reserves
    beyond its window) under ``profile``'s release: the step's tokens by GPU and usage context
    (:meth:`VllmProfile.batch`), and one batch of them, or every batch in flight (rule ``sliding_in_flight``)."""
    gpu_name = request.gpu.name if request.gpu is not None else None
    batched, _ = profile.batch(engine_total_bytes(request), gpu_name, result.max_model_len, request.model)
    rules = profile.rules
    if not rules.sliding_in_flight:
        return batched, batched
    v2 = profile.runs_v2(request.model, request.resolved_weights, speculative_method(request))
    on = async_scheduling(rules, speculative_method(request))
    return batched, batched * max_concurrent_batches(result.pipeline_parallel, on, v2)


def window_note(groups: tuple[tuple[str, int], ...], batched: int, reserved: int, max_model_len: int) -> str | None:
    """What a running request holds in the stage's sliding-window and chunked-local layers (``groups``: the
    (spec type, window) of each KV group), when that is less than the whole context; ``None`` otherwise.

    >>> window_note((("sliding", 1024), ("full", 0)), 8192, 16384, 131072)  # doctest: +ELLIPSIS
    'Windowed layers (window 1,024): a running request holds up to 17,407 tokens in each (its window and 2 batches...'
    >>> window_note((("full", 0),), 8192, 16384, 131072) is None
    True
    """
    windows = sorted({w for kind, w in groups if kind in ("sliding", "chunked")})
    if not windows:
        return None
    held = min(windows[-1] - 1 + reserved, max_model_len)
    if held >= max_model_len:
        return None
    batches = reserved // batched if batched else 1
    flight = f"{batches} batches of {batched:,} tokens in flight" if batches > 1 else f"one batch of {batched:,} tokens"
    shown = ", ".join(f"{w:,}" for w in windows)
    return (
        f"Windowed layers (window {shown}): a running request holds up to {held:,} tokens in each (its window and "
        f"{flight}), not the whole context; the concurrency vLLM prints counts them so."
    )
