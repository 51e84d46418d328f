"""The one timing helper of ``make bench``: the median of repeated runs, in milliseconds."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def median_ms(fn: Callable[[], Any], repeat: int, warmup: int = 2) -> float:
    """Run ``fn`` ``warmup`` times untimed, then ``repeat`` times; the median wall time in milliseconds."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)
