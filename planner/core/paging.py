"""What paging saves: the share of reserved KV memory that holds no token, contiguous against paged."""

from __future__ import annotations

import math

from planner.bounds.errors import PlannerError


def reservation_waste(used_tokens: int, reserved_tokens: int, block_size: int = 16) -> tuple[float, float]:
    """(contiguous, paged) fraction of reserved KV memory that holds no token.

    Contiguous: a sequence reserves ``reserved_tokens`` up front and fills ``used_tokens`` (The Memory Math of
    Serving a Model: "max
    context 4,096 but the average reply is 300 tokens: you've reserved ten-plus times what you use"). Paged:
    only the last block is partly empty (Kwon et al. 2023, PagedAttention).
    """
    if used_tokens <= 0 or reserved_tokens < used_tokens:
        raise PlannerError("used_tokens must be positive and at most reserved_tokens")
    contiguous = 1 - used_tokens / reserved_tokens
    paged = 1 - used_tokens / (math.ceil(used_tokens / block_size) * block_size)
    return contiguous, paged
