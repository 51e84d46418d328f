"""What an engine does with a request it preempts for want of KV room, per engine (read from the engines' sources):
whether the request's tokens stay in a prefix cache it resumes from (:func:`planner.advisor.validation.burst_limits`
drains a burst so, :class:`planner.advisor.drain.Limits`)."""

from __future__ import annotations

# vLLM V1 turns prefix caching on for a generating model unless told not to (0.11.0 engine/arg_utils.py:1544-1561,
# 0.10.2 :1621-1625); a preempted request's blocks are freed to the free queue still cached
# (v1/core/block_pool.py:338-350) and found again when it is rescheduled (v1/core/kv_cache_manager.py:175-183).
# SGLang's retraction is not read here (its rows keep the drain without the cache).
RESUMES_FROM_CACHED_PREFIX: frozenset[str] = frozenset({"vllm"})


def resumes_from_cached_prefix(engine: str) -> bool:
    """Whether ``engine`` keeps a preempted request's tokens in its prefix cache for it to resume from
    (:data:`RESUMES_FROM_CACHED_PREFIX`, with its source); ``False`` for an engine not read.

    >>> resumes_from_cached_prefix("vllm"), resumes_from_cached_prefix("sglang")
    (True, False)
    """
    return engine in RESUMES_FROM_CACHED_PREFIX
