"""KV offload tiers: the host memory a CPU tier of KV blocks takes, what it holds, and how to size it.

vLLM ``--kv-offloading-size G --kv-offloading-backend native`` (``vllm/config/cache.py``: "size of the KV cache
offloading buffer in GiB. When TP > 1, this is the total buffer size summed across all TP ranks";
``vllm/config/vllm.py`` turns it into the ``OffloadingConnector`` with ``cpu_bytes_to_use = G x 2**30``):
``CPUOffloadingSpec`` (``vllm/v1/kv_offload/cpu/spec.py``) makes ``num_blocks = cpu_bytes_to_use //
(page_size_bytes x kv_cache_tensors x world_size x block_size_factor)``, i.e. whole blocks of ``block_size``
tokens of the whole model's KV (every layer, every rank). Recent releases map that region from
``/dev/shm/vllm_offload_<engine>.mmap`` shared by the workers (``vllm/v1/kv_offload/cpu/shared_offload_region.py``,
``check_shm_free_space``): the container's ``/dev/shm`` must hold it (Docker's default is 64 MiB).

With ``--kv-offloading-backend lmcache`` the releases that configure LMCache in process give it the same size,
``lmcache.max_local_cpu_size = G / (TP x PP)`` per rank (``vllm/config/vllm.py``); later ones connect to an LMCache
server whose own buffer is the tier (the engine's rules say which: vLLM's ``lmcache_server``), sized here alike.

A prefix working set sizes the tier: ``prefix tokens x users x hit rate`` tokens of whole-model KV, rounded up to
whole blocks. What the tier buys: conversations whose KV waits in host RAM and comes back without recomputing the
prefill (an idle user's context, a shared prompt) — beyond the ones the GPU pool holds at once.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from planner.core.units import GiB
from planner.deploy.options import KvOffloadOptions


class KvOffloadTier(NamedTuple):
    """A CPU tier of KV blocks as the engine sizes it."""

    host_bytes: int  # pinned host memory of the tier, all ranks
    shm_bytes: int  # of which /dev/shm must hold (native backend)
    per_rank_bytes: int  # LMCache's max_local_cpu_size per rank (in process); the native tier's share per rank
    tokens: int  # tokens of whole-model KV it holds
    conversations: int  # conversations of the planned context it can park
    working_set_bytes: int  # the prefix working set (0 when none is given)


def block_bytes(kv_bytes_per_token: int, block_size: int) -> int:
    """Bytes of one offloaded block: ``block_size`` tokens of the whole model's KV (every layer and rank)."""
    return kv_bytes_per_token * block_size


def working_set_bytes(options: KvOffloadOptions, kv_bytes_per_token: int, block_size: int) -> int:
    """``prefix tokens x users x hit rate`` tokens, rounded up to whole blocks, in bytes.

    >>> working_set_bytes(KvOffloadOptions(prefix_tokens=1000, users=10, hit_rate=0.5), 100, 16)
    500800
    """
    tokens = math.ceil(options.prefix_tokens * options.users * options.hit_rate)
    blocks = math.ceil(tokens / block_size)
    return blocks * block_bytes(kv_bytes_per_token, block_size)


def kv_offload_tier(
    options: KvOffloadOptions, kv_bytes_per_token: int, block_size: int, ranks: int, context_tokens: int
) -> KvOffloadTier:
    """The tier for ``options``: its size (or the working set's), whole blocks of it, what it holds.

    ``kv_bytes_per_token`` is the whole model's (every layer, summed over the TP ranks of a replica).

    >>> tier = kv_offload_tier(KvOffloadOptions(size_bytes=GiB), 131072, 16, 1, 4096)
    >>> tier.tokens, tier.conversations
    (8192, 2)
    """
    working = working_set_bytes(options, kv_bytes_per_token, block_size) if options.users else 0
    asked = options.size_bytes or working
    per_block = block_bytes(kv_bytes_per_token, block_size)
    blocks = asked // per_block if per_block else 0
    used = blocks * per_block
    native = options.backend == "native"
    return KvOffloadTier(
        host_bytes=used if native else asked,
        shm_bytes=used if native else 0,
        per_rank_bytes=(used if native else asked) // max(1, ranks),
        tokens=blocks * block_size,
        conversations=(blocks * block_size) // context_tokens if context_tokens else 0,
        working_set_bytes=working,
    )


def gib(n_bytes: int) -> float:
    """Bytes as the GiB figure an engine flag takes (``--kv-offloading-size``)."""
    return n_bytes / GiB
