"""What unified memory (DGX Spark GB10) adds to vLLM's non-torch figure, by the loader that reads the weights.

On unified memory vLLM reads free memory as the host's MemAvailable (``utils/mem_utils.py``
``MemorySnapshot.measure``, 0.27.0 :147-155), so whatever the host stops counting as available between the worker's
first snapshot and the end of the profile run is non-torch there. vLLM's loaders keep nothing of their own after
loading (safetensors' prefetch only reads blocks into the page cache, 0.24.0 ``weight_utils.py`` :728-741;
fastsafetensors is closed, 0.29.0 :1098-1104; inductor compiles in-process, ``TORCHINDUCTOR_COMPILE_THREADS=1``,
0.29.0 ``env_override.py`` :105), yet the public start-ups split by loader:

- the loaders that read the checkpoint ahead of the copy (``--safetensors-load-strategy prefetch``, from 0.18.0;
  ``--load-format fastsafetensors``, which from fastsafetensors 0.3 pins each shard through PyTorch's caching host
  allocator on a GB10; ``--load-format instanttensor``, 4.4-5.6 GiB less KV than the default loader in a public
  two-Spark A/B) leave 0.25-0.34 of the weights a rank loaded beyond the planner's other terms (six start-ups);
- vLLM's default loader (memory-mapped safetensors, ``lazy``; it prefetches on its own only from NFS or Lustre,
  0.30.0 ``weight_utils.py`` :886-931) leaves -0.01 to 0.24 (a 0.6B model: 1.6, its 2 GiB at 1.1 GiB of weights).

Neither is a rule of the source: each is a share of the ``weights_bytes`` the rank loaded, the median of the
per-start-up shares of its loader class in ``make calibrate`` (``VllmConstants.uma_weights_share`` and
``uma_weights_share_lazy``; docs/fidelity.md, 'Unified memory').

>>> reads_ahead(None, None), reads_ahead("fastsafetensors", None), reads_ahead(None, "prefetch")
(False, True, True)
>>> reads_ahead(None, "lazy")
False
"""

from __future__ import annotations

from planner.engines.vllm.versions import VllmConstants

READ_AHEAD_FORMATS = ("fastsafetensors", "instanttensor")  # --load-format values that read ahead
READ_AHEAD_STRATEGIES = ("prefetch",)  # --safetensors-load-strategy values that read ahead


def reads_ahead(load_format: str | None, load_strategy: str | None) -> bool:
    """Whether the weights are read by a loader that reads the checkpoint ahead of the copy (module docstring)."""
    return load_format in READ_AHEAD_FORMATS or load_strategy in READ_AHEAD_STRATEGIES


def unified_share(constants: VllmConstants, read_ahead: bool) -> float:
    """The fitted share of the loaded weights unified memory adds to non-torch for the loader class."""
    return constants.uma_weights_share if read_ahead else constants.uma_weights_share_lazy


def unified_non_torch_bytes(constants: VllmConstants, weights_bytes: int, read_ahead: bool) -> int:
    """What unified memory adds to one rank's non-torch figure: :func:`unified_share` of the weights it loaded."""
    return round(unified_share(constants, read_ahead) * weights_bytes)
