"""What a unified-memory start-up found free at the worker's first snapshot, read from its loader's own line when it
prints no "Free memory on device" line.

On an integrated GPU vLLM takes free memory as the host's MemAvailable (``psutil.virtual_memory().available``,
0.27.1 ``utils/mem_utils.py`` :147-155, PR #35356), and the safetensors loader prints the same reading as
"Available RAM" (``_get_available_ram_bytes``, 0.27.1 ``model_loader/weight_utils.py`` :696-710, printed at
:862-871; no cgroup limit outside a container). Between the two readings the worker builds its model runner
(``gpu_worker.init_device`` takes the snapshot at :395, then constructs ``GPUModelRunner``, :408-423, whose
``InputBatch`` zero-fills two host buffers of ``max_num_seqs x max_model_len``, int32 and bool,
``gpu_input_batch.py`` :134-146, built at ``gpu_model_runner.py`` :704) and allocates the parameters
(``initialize_model`` before ``load_weights``, ``base_loader.py`` :53-64). So a start-up's free memory at the
snapshot is its loader's reading plus what was taken between them, which a start-up printing both lines measures.

>>> token_buffer_bytes(256, 32_768), token_buffer_bytes(256, 786_432)
(41943040, 1006632960)
"""

from __future__ import annotations

from planner.core.units import GiB

TOKEN_BUFFER_BYTES_PER_SLOT = 4 + 1  # InputBatch: token_ids_cpu_tensor int32 + is_token_ids_tensor bool


def token_buffer_bytes(max_num_seqs: int, max_model_len: int) -> int:
    """V1's two host token buffers, zero-filled after the snapshot (0.27.1 ``v1/worker/gpu_input_batch.py``
    :134-146: ``max_num_reqs x max_model_len`` int32 and bool)."""
    return max_num_seqs * max_model_len * TOKEN_BUFFER_BYTES_PER_SLOT


def taken_before_read_gib(free_at_start_gib: float, available_at_load_gib: float) -> float:
    """What a start-up printing both lines took between the snapshot and the loader's reading (GiB as printed)."""
    return free_at_start_gib - available_at_load_gib


def free_at_start_gib(available_at_load_gib: float, taken_before_read: float) -> float:
    """The snapshot's free memory: the loader's "Available RAM" plus what the worker took before that line."""
    return available_at_load_gib + taken_before_read


def host_bytes(total_gib: float, free_gib: float, context_bytes: int) -> int:
    """``VllmProfile.unified_memory_host_bytes``: total less free at the snapshot, less the CUDA context the
    planner adds back (``planner.engines.vllm.held.held_at_start``)."""
    return round(round(total_gib - free_gib, 2) * GiB) - context_bytes
