"""What an engine's start-up guarantees of the KV pool it serves with, per engine (read from the engines' sources):
whether it refuses to start unless its pool holds one request of its longest context
(:func:`planner.advisor.validation.burst_limits` takes a burst's pool at least that)."""

from __future__ import annotations

# vLLM 0.11.0 (the wheel): check_enough_kv_cache_memory (vllm/v1/core/kv_cache_utils.py:678-723) raises unless the
# KV cache memory holds one request of max_model_len ("To serve at least one request with the models's max seq len");
# earlier V1 releases carry the same check. SGLang's start-up checks only that some pool is left (not read further).
HOLDS_MAX_MODEL_LEN: frozenset[str] = frozenset({"vllm"})


def pool_holds_max_model_len(engine: str) -> bool:
    """Whether ``engine`` starts only with a KV pool that holds one request of its ``max_model_len``
    (:data:`HOLDS_MAX_MODEL_LEN`, with its source); ``False`` for an engine not read.

    >>> pool_holds_max_model_len("vllm"), pool_holds_max_model_len("sglang")
    (True, False)
    """
    return engine in HOLDS_MAX_MODEL_LEN
