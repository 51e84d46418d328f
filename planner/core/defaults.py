"""What a view plans when the reader gives only a model and a GPU: one set of defaults, read by the dashboard's
sidebar (:mod:`ui.state`) and by ``python -m planner fit`` (:mod:`planner.cli.fit`), so that both give the same
answer for the same model and GPU (the engine is the registry's first, :func:`planner.engines.registry.default_engine`;
the weights and KV dtype the model's serving ones, :mod:`planner.core.serving`).

>>> DEFAULT_CONTEXT_TOKENS, DEFAULT_USERS
(8192, 32)
"""

from __future__ import annotations

from typing import Final

DEFAULT_CONTEXT_TOKENS: Final = 8192  # a conversation of a chat assistant with its history and a document or two
DEFAULT_USERS: Final = 32  # concurrent users the verdict is asked about


def default_context_tokens(max_position_embeddings: int) -> int:
    """The context planned by default: :data:`DEFAULT_CONTEXT_TOKENS`, or the model's maximum where it is shorter
    (an engine refuses a longer one).

    >>> default_context_tokens(131_072), default_context_tokens(4_096), default_context_tokens(512)
    (8192, 4096, 512)
    """
    return min(DEFAULT_CONTEXT_TOKENS, max_position_embeddings)
