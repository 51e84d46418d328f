"""Measured kernel times on a grid of token counts (the GEMM and MoE extracts of
:mod:`planner.advisor.gemm_tables` and :mod:`planner.advisor.paged_moe`): a row's key and its times, and a value
between grid points.

>>> along((1, 4), (1.0, 2.0), 2)
1.3333333333333333
>>> along((1, 4), (1.0, 2.0), 8)
4.0
>>> moe_rows(((4096, 1536, 128, 8, 8, 10.0, 20.0),))
{(4096, 1536, 128, 8, 8): (1e-05, 2e-05)}
"""

from __future__ import annotations

import bisect

MoeKey = tuple[int, int, int, int, int]


def along(grid: tuple[int, ...], values: tuple[float, ...], x: float) -> float:
    """``values`` (one per ``grid`` point) at ``x``: linear between points, the first below the grid, in proportion
    past its end."""
    if x <= grid[0]:
        return values[0]
    if x >= grid[-1]:
        return values[-1] * x / grid[-1]
    j = bisect.bisect_left(grid, x)
    x0, x1 = grid[j - 1], grid[j]
    return values[j - 1] + (values[j] - values[j - 1]) * (x - x0) / (x1 - x0)


def moe_rows(rows: tuple[tuple[float, ...], ...]) -> dict[MoeKey, tuple[float, ...]]:
    """MoE rows as stored (five key integers, then microseconds per grid point) by key, in seconds."""
    return {(int(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4])): tuple(us / 1e6 for us in r[5:]) for r in rows}
