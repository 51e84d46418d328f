"""What a device holds when vLLM's worker takes its first memory snapshot (``init_snapshot``, after the CUDA
context and NCCL): the free memory the start-up check compares with ``util x total``, and from which the
extensible KV cache of 0.34 is measured (:mod:`planner.engines.vllm.extensible`).

>>> from planner.engines.vllm.versions import fitted_constants
>>> c = fitted_constants()
>>> held_at_start(c, 1, False) == c.init_baseline_tp1
True
>>> held_at_start(c, 1, True) == UMA_HOST_DEFAULT_BYTES  # the public Sparks' figure already holds the context
True
"""

from __future__ import annotations

from planner.deploy.spark_hosts import UMA_HOST_DEFAULT_BYTES as UMA_HOST_DEFAULT_BYTES
from planner.deploy.spark_hosts import unified_host_bytes
from planner.engines.vllm.versions import VllmConstants


def init_baseline_bytes(c: VllmConstants, world: int) -> int:
    """What the worker holds before its memory snapshot: the CUDA context, and NCCL when ranks talk (fitted)."""
    return c.init_baseline_tp if world > 1 else c.init_baseline_tp1


def held_at_start(c: VllmConstants, world: int, integrated: bool, in_use: int = 0, host: int | None = None) -> int:
    """What the device holds at the snapshot: ``in_use`` by other processes (another engine of the deployment
    too), on unified memory the host's share (``host``, or :data:`UMA_HOST_DEFAULT_BYTES`, read off workers' own
    "Free memory on device (F/T GiB) on startup" lines, so less the one-GPU baseline it already holds), and the
    worker's own baseline (:func:`init_baseline_bytes`)."""
    held = in_use + init_baseline_bytes(c, world)
    if integrated:
        held += host if host is not None else unified_host_bytes(c.init_baseline_tp1)
    return held
