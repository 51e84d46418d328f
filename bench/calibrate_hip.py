"""The HIP terms of a CDNA 3 device (:mod:`planner.engines.vllm.hip_graphs`), fitted by :func:`bench.calibrate.fit` on
the start-ups of such devices only (the CUDA graph and non-torch fits leave them out):

- per graph captured: the median over the start-ups of the printed estimate (or capture) over the graphs captured,
  ``layers + 1`` PIECEWISE pieces at each size and the FULL decode graphs;
- non-torch: the median over the TP 1 start-ups of their non-torch figure less the era's datacenter base.

With no such start-up among the cases fitted (a fold that leaves them out) both are 0, and the planner keeps its CUDA
terms there.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable

from planner.core.units import GiB
from planner.engines.vllm.graphs import GraphSet
from planner.engines.vllm.hip_graphs import hip_graphs_captured
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.versions import VllmConstants

GraphPoint = tuple[int, GraphSet, float | None]  # (decoder layers of the rank, its graphs, printed GiB or None)


def hip_per_graph(points: Iterable[GraphPoint]) -> int:
    """Bytes per graph captured: the median of printed / captured over the points that print a positive figure."""
    ratios = [
        gib * GiB / hip_graphs_captured(graphs, layers)
        for layers, graphs, gib in points
        if gib is not None and gib > 0 and hip_graphs_captured(graphs, layers) > 0
    ]
    return round(statistics.median(ratios)) if ratios else 0


def cdna3_non_torch(points: Iterable[tuple[str, float]], probe: VllmConstants) -> int:
    """Bytes a TP 1 rank holds outside torch beyond ``probe``'s datacenter base: the median over (release, GiB)
    points of CDNA 3 start-ups at TP 1."""
    over = [gib - VllmProfile(engine_version=v, constants=probe).non_torch_bytes(1) / GiB for v, gib in points]
    return round(statistics.median(over) * GiB) if over else 0
