"""TensorRT-LLM's maximum sequence length when one sequence of ``max_seq_len`` does not fit in its KV cache: it
warns and starts with a shorter one, where the planner used to say it refuses.

- 1.x (PyTorch flow): ``KVCacheManager.__init__`` (``tensorrt_llm/_torch/pyexecutor/resource_manager.py``) compares
  the attention window (``max_seq_len`` unless ``max_attention_window`` is set) with
  ``get_max_atten_window_upper_bound``: ``floor(blocks x tokens_per_block / (beam x tokens_per_block))`` blocks of
  ``tokens_per_block``, less a sink-token bubble (no sink tokens here), with beam width 1; above it,
  ``logger.warning("maxAttentionWindow and maxSequenceLen are too large for at least one sequence to fit in
  kvCache. They are reduced to N")``, and ``self.max_seq_len = N``; it asserts ("Impossibe to fit in any sequence
  in kvCache") only with no block at all. Read from the search index's stored version of NVIDIA/TensorRT-LLM (the
  snapshot is over the fetch limit), not pinned to the v1.0.0 tag, as the module docstring of
  :mod:`planner.engines.trtllm` says.
- before 1.0 (C++ runtime, ``cpp/tensorrt_llm/batch_manager/trtGptModelInflightBatching.cpp``): the same check with
  ``getMaxAttentionWindowUpperBound``, ``TLLM_LOG_WARNING("maxAttentionWindow and maxSequenceLen are too large for
  at least one sequence to fit in kvCache. they are reduced to %d")`` and "maxInputLen is reduced to %d" (N - 1).
  Indicative: some of those releases reduce a few tokens further (a public 0.x log: 82 blocks of 64, reduced to
  5185).
"""

from __future__ import annotations

REDUCED = "maxAttentionWindow and maxSequenceLen are too large for at least one sequence to fit in kvCache."


def reduced_max_seq_len(blocks: int, block_tokens: int, pool_bytes: int, sequence_bytes: int) -> int | None:
    """The ``max_seq_len`` TensorRT-LLM starts with when one sequence (``sequence_bytes``) needs more than the pool
    (``pool_bytes``): ``get_max_atten_window_upper_bound``, ``blocks x block_tokens`` with beam width 1 and no sink
    tokens (module docstring, 1.x ``resource_manager.py``); ``None`` when it fits or no block is left.

    >>> reduced_max_seq_len(2158, 32, 100, 200), reduced_max_seq_len(2158, 32, 200, 100)
    (69056, None)
    """
    if blocks <= 0 or pool_bytes >= sequence_bytes:
        return None
    return blocks * block_tokens


def reduced_lines(reduced: int, pytorch_flow: bool) -> tuple[str, ...]:
    """The warnings it prints (module docstring): the PyTorch flow's logger, or the C++ runtime's two lines."""
    if pytorch_flow:
        return (f"[TensorRT-LLM][WARNING] {REDUCED} They are reduced to {reduced}",)
    return (
        f"[TensorRT-LLM][WARNING] {REDUCED} they are reduced to {reduced}",
        f"[TensorRT-LLM][WARNING] maxInputLen is reduced to {reduced - 1}",
    )
