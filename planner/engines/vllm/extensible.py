"""vLLM 0.34's extensible KV cache: the pool sized from the memory measured after warm-up and CUDA-graph capture,
not from ``gpu_memory_utilization x total`` before them (rule ``extensible_kv_cache`` in ``versions.toml``).

Read in the 0.34.0 wheel (paths under ``vllm/``):

- **On by default** on CUDA and ROCm (``config/vllm.py:3180-3270`` ``_resolve_extensible_kv_cache``) unless
  ``--kv-cache-memory-bytes`` or ``num_gpu_blocks_override`` is set (or elastic EP, or a KV connector that shares
  the cache over legacy IPC), and at run time unless the model has no KV cache (``v1/executor/abstract.py:152-161``);
  ``--no-enable-extensible-kv-cache`` turns it off. Neither hybrid, MLA, sliding-window, multimodal, speculative
  decoding, tensor or pipeline parallelism nor ``--enforce-eager`` does.
- **The default fraction** is then 1.0, else 0.92 (``config/cache.py:495-501`` ``resolved_gpu_memory_utilization``).
- **The profile run** only sets a capacity, the address space reserved (``gpu_worker.py:776-780`` with no graph
  estimate: ``v1/worker/gpu/model_runner.py:1121-1125`` returns 0); that is what its "Available KV cache memory"
  line prints.
- **The pool** is committed after warm-up and CUDA-graph capture (``gpu_worker.py:1022-1239``), from the free
  memory measured then (``v1/worker/extensible_kv_cache.py:592-617``)::

      available = min(requested - used, free_at_start - used - margin) - transient
      margin    = max(1 GiB (3 GiB on ROCm), 0.75 x transient)          # :63-74, :615

  where ``requested = ceil(util x total)`` (``v1/worker/utils.py:742-743``), ``used`` is what the worker holds
  since its first snapshot after ``empty_cache`` (weights, non-torch memory, the captured graphs), and
  ``transient`` the largest activation peak of the profile run and the sizing steps (``record_transient_peak``,
  :268-278; the planner's activation peak: those steps run the same ``max_num_batched_tokens`` batch). At the
  default 1.0 the first term never binds.
- **Blocks**: each layer's segment is committed in 2 MiB granules (``utils/extensible_tensor.py:25-31``), so the
  pool holds the most blocks whose rounded segments fit (``blocks_within``, :300-318); the "GPU KV cache size"
  and concurrency lines print that count (``v1/core/kv_cache_planning.py:1864-1906``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from planner.core.units import GiB, MiB

EXTENSIBLE_UTILIZATION = 1.0  # config/cache.py:499-500: the default fraction with the extensible KV cache
MARGIN_FLOOR_BYTES = {"cuda": 1 * GiB, "rocm": 3 * GiB}  # extensible_kv_cache.py:64 KV_CACHE_MARGIN_FLOOR_BYTES
MARGIN_FRACTION = 0.75  # extensible_kv_cache.py:65 KV_CACHE_MARGIN_FRACTION
GRANULE_BYTES = 2 * MiB  # utils/extensible_tensor.py:25-31: max(the driver's granularity, 2 MiB)


class Measured(NamedTuple):
    """What the worker measures before it commits the pool (bytes, one rank)."""

    total: int  # the device's total memory
    free_at_start: int  # free at the worker's first snapshot (after the CUDA context and NCCL)
    used: int  # held since that snapshot after empty_cache: weights, non-torch memory, captured graphs
    transient: int  # the largest activation peak of the profile run and the sizing steps


def margin_bytes(transient: int, runtime: str = "cuda") -> int:
    """What the pool leaves free beside the transient peak: ``max(floor, 0.75 x transient)``.

    >>> margin_bytes(0) // GiB, margin_bytes(4 * GiB) // GiB, margin_bytes(0, "rocm") // GiB
    (1, 3, 3)
    """
    floor = MARGIN_FLOOR_BYTES.get(runtime, MARGIN_FLOOR_BYTES["cuda"])
    return max(floor, int(transient * MARGIN_FRACTION))


def available_bytes(m: Measured, utilization: float, runtime: str = "cuda") -> int:
    """The bytes the pool may take (``extensible_kv_cache.py:613-617``), never below zero.

    An 80 GiB device with 1 GiB held at the snapshot, 20 GiB used and a 2 GiB transient, at the default 1.0:
    80 - 1 - 20 - 1.5 (the margin) - 2.

    >>> m = Measured(total=80 * GiB, free_at_start=79 * GiB, used=20 * GiB, transient=2 * GiB)
    >>> available_bytes(m, 1.0) / GiB
    55.5
    >>> available_bytes(m, 0.5) / GiB  # 40 - 20 - 2: the fraction binds
    18.0
    """
    requested = math.ceil(utilization * m.total)
    headroom = m.free_at_start - m.used - margin_bytes(m.transient, runtime)
    return max(0, min(requested - m.used, headroom) - m.transient)


def reserved_bytes(total: int, utilization: float, held_at_start: int, transient: int, runtime: str = "cuda") -> int:
    """What the pool leaves of ``total`` beside the weights, non-torch memory, graphs and the transient peak, as one
    reserve: ``max(total - ceil(util x total), held_at_start + margin)`` (:func:`available_bytes` rewritten with
    ``free_at_start = total - held_at_start``).

    >>> reserved_bytes(80 * GiB, 1.0, 1 * GiB, 2 * GiB) / GiB
    2.5
    """
    requested = math.ceil(utilization * total)
    return max(total - requested, held_at_start + margin_bytes(transient, runtime))


def blocks_within(kv_bytes: int, strides: tuple[int, ...], granule: int = GRANULE_BYTES) -> int:
    """The most blocks whose segments, each ``n x stride`` rounded up to whole granules, fit in ``kv_bytes``
    (``ExtensibleKVCache.blocks_within``, by bisection rather than vLLM's step-down loop).

    >>> blocks_within(64 * MiB, (MiB, MiB))  # two 32 MiB segments
    32
    >>> blocks_within(30 * MiB, (3 * MiB // 2, 3 * MiB // 2))  # 10 would round each 15 MiB to 16: 9 (14 MiB)
    9
    """
    per_block = sum(strides)
    if per_block <= 0 or kv_bytes <= 0:
        return 0

    def footprint(n: int) -> int:
        return sum(-(-n * s // granule) * granule for s in strides)

    low, high = 0, kv_bytes // per_block
    while low < high:
        mid = (low + high + 1) // 2
        if footprint(mid) <= kv_bytes:
            low = mid
        else:
            high = mid - 1
    return low
