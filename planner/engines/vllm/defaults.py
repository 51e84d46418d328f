"""vLLM's defaults for ``max_num_batched_tokens`` and ``max_num_seqs`` by release, device and usage context
(``EngineArgs.get_batch_defaults``; rule ``batch_defaults`` in ``versions.toml``).

``device memory`` is ``current_platform.get_device_total_memory()`` (the total the engine prints) and the device
name is lower-cased:

- every release: 70 GiB or more and not an A100: 1024 sequences, 8192 tokens for ``vllm serve`` and 16384 for the
  ``LLM`` class; otherwise 256 sequences and 2048 / 8192 tokens (0.19.0 ``engine/arg_utils.py:2024-2091``, 0.24.0
  ``:2375-2420``);
- from 0.28.0: 160 GiB or more (B200, B300, MI300X): 1024 sequences and 16384 tokens for both (0.28.0 ``:2582``);
- the GB10 (DGX Spark) is on the small tier in every release: until 0.32 NVML's device memory query, which
  ``get_device_total_memory`` calls, fails on it ("Integrated parts (e.g. GB10 / DGX Spark) do not implement
  the device-level NVML memory query", 0.33.0 ``platforms/cuda.py:807-814``; no fallback before, 0.27.0
  ``:770-773``), and ``get_batch_defaults`` then takes 0 GiB (``except Exception``, 0.27.0
  ``engine/arg_utils.py:2533-2539``); from 0.33.0 the query falls back to CUDA's total and ``is_gb10`` (compute
  capability 12.1) keeps it off the 70 GiB tier (0.33.0 ``:2963-2986``). A DGX Spark log shows it: 'Profiling
  CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)' at vLLM 0.27.1 with no batch flags.
"""

from __future__ import annotations

from functools import lru_cache

from planner.core.units import GiB

SMALL = ((2048, 8192), 256)  # (server, LLM-class) tokens, sequences
LARGE = ((8192, 16384), 1024)
LARGEST = ((16384, 16384), 1024)


@lru_cache(maxsize=1024)  # pure, asked several times per stage of every plan; bounded
def default_batch(
    gpu_memory_bytes: int, gpu_name: str | None, usage_context: str = "server", tiers: str = "v1"
) -> tuple[int, int]:
    """``(max_num_batched_tokens, max_num_seqs)`` vLLM picks when neither is set (module docstring)."""
    name = (gpu_name or "").lower()
    gb10 = "gb10" in name  # every release (module docstring)
    if tiers != "v1" and gpu_memory_bytes >= 160 * GiB:
        tokens, seqs = LARGEST
    elif gpu_memory_bytes >= 70 * GiB and "a100" not in name and not gb10:
        tokens, seqs = LARGE
    else:
        tokens, seqs = SMALL
    return tokens[0] if usage_context == "server" else tokens[1], seqs
