"""Mixed GPUs: one pipeline stage per GPU (an RTX 4090 and a 3090), the layers split between them.

vLLM: every rank sizes its own KV budget from its own device (``gpu_memory_utilization x`` its total,
``determine_available_memory``) and the engine keeps the smallest block count of all ranks
(``vllm/v1/core/kv_cache_utils.py`` ``get_kv_cache_configs``: ``min(num_blocks)``), so the stage with the fewest
tokens of room limits. The layer split defaults to ``get_pp_indices`` (even, the remainder to the last stages)
and is set with ``VLLM_PP_LAYER_PARTITION="20,12"`` (``vllm/distributed/utils.py``).

llama.cpp ``--split-mode layer --tensor-split a,b``: the split fractions are made cumulative and layer ``il`` goes
to the first device whose cumulative share exceeds ``il / act_gpu_layers`` (``std::upper_bound`` in
``llama_model::load_tensors``), with ``act_gpu_layers = n_layer + 1`` counting the output layer, which goes to the
last device. Giving the layer counts as the split (the last one plus the output layer) reproduces the split.

The best split maximises the conversations the deployment holds: for two stages every split point is tried; for
more, a local search moves one layer at a time between neighbouring stages while the limiting stage gains
(:func:`planner.assessment.search.best_layer_split`).
"""

from __future__ import annotations

import bisect
import struct

from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.deploy.host import HostOs, device_memory_bytes
from planner.deploy.options import DeploymentOptions, StageGpu


def stage_gpu(gpu: GpuSpec, engine: bool, host: HostOs = "linux") -> StageGpu:
    """A catalog GPU as one stage: the memory an engine sees on ``host`` (or the device reports) and its
    bandwidth (:func:`planner.deploy.host.device_memory_bytes`)."""
    memory = device_memory_bytes(gpu, engine, host)
    return StageGpu(name=gpu.name, memory_bytes=memory, bandwidth_bytes_per_s=gpu.bandwidth_bytes_per_s)


def check_split(split: tuple[int, ...], num_layers: int, stages: int) -> None:
    """A layer split must give every stage at least one layer and sum to the model's layers."""
    if len(split) != stages:
        raise PlannerError(f"layer split: {len(split)} counts for {stages} pipeline stages")
    if sum(split) != num_layers:
        given = "+".join(map(str, split))
        raise PlannerError(f"layer split: {given} = {sum(split)} layers, the model has {num_layers}")


def _f32(x: float) -> float:
    """``x`` rounded to a C ``float`` (llama.cpp computes the split in single precision)."""
    return float(struct.unpack("f", struct.pack("f", x))[0])


def llamacpp_split(num_layers: int, devices: int) -> tuple[int, ...]:
    """The decoder layers each of ``devices`` equal GPUs gets from llama.cpp's layer split (``--tensor-split
    1,1,...``, or its default by free memory on identical cards): layer ``il`` goes to the first device whose
    cumulative share exceeds ``il / (n_layer + 1)`` in single precision (``std::upper_bound`` in
    ``llama_model::load_tensors``), the output layer (index ``n_layer``) to the last. So the first devices hold one
    layer more where the last holds the output: Llama 3 70B's 80 layers on two GPUs are 41 and 39 plus the output
    (a public 2 x RTX 3090 Qwen1.5-72B Q3_K_M load prints 16,854 and 16,893 MiB model buffers,
    xorbitsai/inference#1202). With nearly as many devices as layers the last may hold the output alone.

    >>> llamacpp_split(80, 2), llamacpp_split(80, 3), llamacpp_split(32, 4), llamacpp_split(3, 3)
    ((41, 39), (27, 27, 26), (9, 8, 8, 7), (2, 1, 0))
    """
    bounds, total = [], 0.0
    for _ in range(devices):
        total = _f32(total + 1.0)
        bounds.append(total)
    bounds = [_f32(b / total) for b in bounds]
    act = num_layers + 1  # the output layer counts (act_gpu_layers = min(-ngl, n_layer + 1))
    counts = [0] * devices
    for il in range(num_layers):
        counts[min(bisect.bisect_right(bounds, _f32(_f32(il) / _f32(act))), devices - 1)] += 1
    return tuple(counts)


def ranges_of(split: tuple[int, ...]) -> list[range]:
    """Consecutive layer ranges of a split: ``(20, 12)`` -> ``[range(0, 20), range(20, 32)]``.

    >>> ranges_of((20, 12))
    [range(0, 20), range(20, 32)]
    """
    out, start = [], 0
    for count in split:
        out.append(range(start, start + count))
        start += count
    return out


def stage_memory_bytes(options: DeploymentOptions | None, stage: int, default: int) -> int:
    """The memory of pipeline stage ``stage``'s GPU: its own when the GPUs are mixed, else ``default``."""
    if options is None or not options.stage_gpus:
        return default
    return options.stage_gpus[stage].memory_bytes
