"""Sharing a GPU: MIG slices, memory other processes already hold (a pasted ``nvidia-smi``), and what a running
engine occupies.

MIG (NVIDIA Multi-Instance GPU User Guide, r580 "Supported MIG Profiles", tables 6-9): a GPU instance gets a
fraction of the memory slices (eighths) and of the SM slices (sevenths). The memory an engine sees on a slice is
what ``nvidia-smi mig -lgip`` lists for the profile; where a public listing of that GPU was found it is used (the
source beside it), elsewhere the guide's memory fraction of the GPU's reported memory (marked ``estimated``;
an H100's listing is 2 % under that fraction). On a slice the engine's device total is the slice's memory
(``torch.cuda.mem_get_info``), so vLLM's ``gpu_memory_utilization`` applies to it.

Memory already in use: vLLM refuses to start when the free memory after its CUDA context is below
``gpu_memory_utilization x total`` (``vllm/v1/worker/gpu_worker.py`` ``init_device``:
:mod:`planner.engines.vllm.failures`); its KV budget stays ``util x total`` ("a per-instance limit",
``vllm/config/cache.py``). Engines sizing from free memory (SGLang, TensorRT-LLM, llama.cpp) lose it from the pool.

``nvidia-smi`` parsing is bounded and linear: at most :data:`MAX_SMI_CHARS` characters and :data:`MAX_SMI_LINES`
lines, each split on ``|`` and ``,`` and read token by token; no regular expression.
"""

from __future__ import annotations

from typing import NamedTuple

from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.core.units import GiB, MiB

MAX_SMI_CHARS = 200_000
MAX_SMI_LINES = 5_000
MAX_MIB = 10**8  # 95 TiB: no GPU comes near


class MigProfile(NamedTuple):
    """One GPU instance profile of NVIDIA's tables."""

    name: str  # "3g.40gb"
    memory_eighths: int  # memory slices of 8
    sm_sevenths: int  # SM slices of 7
    listed_gib: float | None  # the memory ``nvidia-smi mig -lgip`` lists, where a public listing was found
    source: str


_GUIDE = "NVIDIA MIG User Guide r580, Supported MIG Profiles"
_H100_LGIP = "nvidia-smi mig -lgip on an H100 80GB HBM3 (public transcript, find_string id 8225626544)"
_A100_80_LGIP = "nvidia-smi mig -lgip on an A100 80GB (public transcripts, find_string ids 68858751843, 37196432096)"
_A100_40_LGIP = "nvidia-smi mig -lgip on an A100 40GB (public transcript, find_string id 4867217048)"


def _table(rows: list[tuple[str, int, int, float | None]], source: str) -> dict[str, MigProfile]:
    return {name: MigProfile(name, mem, sm, listed, source if listed else _GUIDE) for name, mem, sm, listed in rows}


# Catalog GPU id -> its profiles: (name, memory eighths, SM sevenths, listed GiB or None).
MIG_PROFILES: dict[str, dict[str, MigProfile]] = {
    "h100-sxm-80gb": _table(
        [("1g.10gb", 1, 1, 9.75), ("1g.20gb", 2, 1, 19.62), ("2g.20gb", 2, 2, 19.62), ("3g.40gb", 4, 3, 39.50),
         ("4g.40gb", 4, 4, 39.50), ("7g.80gb", 8, 7, 79.25)], _H100_LGIP),
    "h100-pcie-80gb": _table(
        [("1g.10gb", 1, 1, None), ("1g.20gb", 2, 1, None), ("2g.20gb", 2, 2, None), ("3g.40gb", 4, 3, None),
         ("4g.40gb", 4, 4, None), ("7g.80gb", 8, 7, None)], _GUIDE),
    "h200-sxm-141gb": _table(
        [("1g.18gb", 1, 1, None), ("1g.35gb", 2, 1, None), ("2g.35gb", 2, 2, None), ("3g.71gb", 4, 3, None),
         ("4g.71gb", 4, 4, None), ("7g.141gb", 8, 7, None)], _GUIDE),
    "b200-sxm": _table(
        [("1g.23gb", 1, 1, None), ("1g.45gb", 2, 1, None), ("2g.45gb", 2, 2, None), ("3g.90gb", 4, 3, None),
         ("4g.90gb", 4, 4, None), ("7g.180gb", 8, 7, None)], _GUIDE),
    "a100-sxm-80gb": _table(
        [("1g.10gb", 1, 1, 9.50), ("1g.20gb", 2, 1, None), ("2g.20gb", 2, 2, 19.50), ("3g.40gb", 4, 3, 39.25),
         ("4g.40gb", 4, 4, 39.25), ("7g.80gb", 8, 7, 79.00)], _A100_80_LGIP),
    "a100-sxm-40gb": _table(
        [("1g.5gb", 1, 1, 4.75), ("1g.10gb", 2, 1, 9.62), ("2g.10gb", 2, 2, 9.62), ("3g.20gb", 4, 3, 19.50),
         ("4g.20gb", 4, 4, 19.50), ("7g.40gb", 8, 7, None)], _A100_40_LGIP),
}  # fmt: skip
MIG_PROFILES["a100-pcie-80gb"] = MIG_PROFILES["a100-sxm-80gb"]
MIG_PROFILES["a100-pcie-40gb"] = MIG_PROFILES["a100-sxm-40gb"]


def mig_profiles(gpu_id: str) -> dict[str, MigProfile]:
    """The MIG profiles of a catalog GPU (empty when it has none)."""
    return MIG_PROFILES.get(gpu_id, {})


def mig_profile(gpu_id: str, name: str) -> MigProfile:
    profiles = mig_profiles(gpu_id)
    if not profiles:
        raise PlannerError(f"mig: {gpu_id} has no MIG profiles (MIG runs on A100, H100, H200 and B200)")
    if name not in profiles:
        raise PlannerError(f"mig: {gpu_id} has no profile {name!r}; choose one of {', '.join(profiles)}")
    return profiles[name]


def mig_memory_bytes(gpu: GpuSpec, profile: MigProfile) -> int:
    """The slice's memory: the listed figure, else the guide's fraction of the GPU's reported memory, in MiB."""
    if profile.listed_gib is not None:
        return round(profile.listed_gib * GiB)
    return gpu.memory_bytes * profile.memory_eighths // 8 // MiB * MiB


def mig_gpu(gpu: GpuSpec, gpu_id: str, name: str) -> GpuSpec:
    """``gpu`` as a slice: its memory is the slice's (what the engine sees), its bandwidth the memory fraction of
    the whole GPU's (each memory slice has its own controllers)."""
    profile = mig_profile(gpu_id, name)
    memory = mig_memory_bytes(gpu, profile)
    bandwidth = gpu.bandwidth_bytes_per_s * profile.memory_eighths // 8 if gpu.bandwidth_bytes_per_s else None
    estimated = "" if profile.listed_gib is not None else " (estimated from the memory fraction)"
    nominal = name.partition(".")[2].removesuffix("gb")  # "3g.40gb" -> 40, the marketed size of the slice
    return gpu.model_copy(
        update={
            "name": f"{gpu.name} MIG {name}",
            "memory_marketed_gb": float(nominal) if nominal.isdigit() else memory / 10**9,
            "memory_reported_bytes": memory,
            "memory_reported_source": profile.source + estimated,
            "engine_visible_bytes": memory,
            "engine_visible_source": profile.source + estimated,
            "bandwidth_bytes_per_s": bandwidth,
        }
    )


class SmiGpu(NamedTuple):
    """One GPU of a pasted ``nvidia-smi``: memory used and total, in bytes."""

    used_bytes: int
    total_bytes: int


def _mib(token: str) -> int | None:
    """``"1234MiB"`` or ``"1234 MiB"`` (the unit already split off) -> MiB; None when not a MiB figure."""
    digits = token.strip()
    if digits.endswith("MiB"):
        digits = digits[:-3].strip()
    if not digits or len(digits) > 9 or not (digits.isascii() and digits.isdigit()):
        return None
    return int(digits)


def _pair(field: str) -> SmiGpu | None:
    """A ``used / total`` memory cell (``"  3MiB /  81559MiB "``), else None."""
    used, slash, total = field.partition("/")
    if not slash or "MiB" not in total:
        return None
    a, b = _mib(used), _mib(total)
    if a is None or b is None or b == 0 or a > b or b > MAX_MIB:
        return None
    return SmiGpu(a * MiB, b * MiB)


def _csv(line: str) -> SmiGpu | None:
    """A ``--query-gpu=memory.used,memory.total --format=csv`` row: ``"3 MiB, 81559 MiB"``."""
    parts = line.split(",")
    if len(parts) != 2 or "MiB" not in parts[0] or "MiB" not in parts[1]:
        return None
    a, b = _mib(parts[0]), _mib(parts[1])
    if a is None or b is None or b == 0 or a > b or b > MAX_MIB:
        return None
    return SmiGpu(a * MiB, b * MiB)


def parse_nvidia_smi(text: str) -> list[SmiGpu]:
    """Memory used and total of every GPU in a pasted ``nvidia-smi`` table (or its ``--query-gpu=memory.used,
    memory.total --format=csv`` output), in order; raises :class:`PlannerError` when there is none.

    >>> parse_nvidia_smi("| N/A 30C P0 70W / 700W |  4096MiB /  81559MiB |  0%  Default |")
    [SmiGpu(used_bytes=4294967296, total_bytes=85520809984)]
    """
    if len(text) > MAX_SMI_CHARS:
        raise PlannerError(f"nvidia-smi: longer than {MAX_SMI_CHARS:,} characters; paste the GPU table only")
    lines = text.splitlines()
    if len(lines) > MAX_SMI_LINES:
        raise PlannerError(f"nvidia-smi: more than {MAX_SMI_LINES:,} lines; paste the GPU table only")
    found: list[SmiGpu] = []
    for line in lines:
        if "MiB" not in line:
            continue
        cells = line.split("|") if "|" in line else [line]
        for cell in cells:
            gpu = _pair(cell) if "/" in cell else _csv(cell)
            if gpu is not None:
                found.append(gpu)
                break
    if not found:
        raise PlannerError("nvidia-smi: no 'used / total MiB' memory figures found in the pasted text")
    return found


def used_memory_bytes(gpus: list[SmiGpu], count: int) -> int:
    """Memory in use on the GPUs a plan takes: the first ``count`` listed, the fullest one counting (every rank
    of an engine meets the same start-up check)."""
    return max(g.used_bytes for g in gpus[: max(1, count)])
