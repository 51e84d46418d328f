"""TensorRT-LLM's NVFP4 GEMM and MoE times as measured, read from NVIDIA aiconfigurator's tables (no constant fitted).

``trtllm_gemm_tables.toml`` (beside this module) is a compact extract of ai-dynamo/aiconfigurator@095f58a51's
``systems/data/<system>/gemm/trtllm/1.3.0rc20/gemm_perf.parquet`` and ``moe/.../moe_perf.parquet`` for B200,
GB200 and RTX PRO 6000 Blackwell Server (its header says which rows): each TRT-LLM ``Linear`` (activation
quantization and GEMM) and fused MoE layer timed under CUDA graphs at ``m`` tokens. At decode batch sizes these
GEMMs are far from the memory roofline on B200 and GB200 (an 8192 x 8192 NVFP4 GEMM takes 22.7 us at 1-128 tokens,
~0.2 of its bandwidth time) and close to it on the RTX PRO 6000: a per-die share cannot say that, a time by shape
can, and under tensor parallelism each GPU's GEMMs are smaller (``n`` or ``k`` split), so the same table prices
TP 1 and TP 8.

:func:`decode_gemm_seconds` is one GPU's matmul time of a TensorRT-LLM NVFP4 decode step, the sum over its
:class:`~planner.advisor.matmuls.Matmuls` of the latency interpolated linearly in ``m``, ``n`` and ``k`` (past the
grid's widest ``n`` or ``k``, in proportion to the width: a wide matrix is read in proportion). Routed experts run
expert parallel over the replica's GPUs (the perf overview's MoE runs: ``--ep``), the fused MoE's ``num_tokens``
the step's tokens. ``None`` where the tables do not reach: another engine, GPU, arithmetic or split, a model
without shapes, a MoE shape the tables do not hold; the rate model prices those steps.
"""

from __future__ import annotations

import bisect
import tomllib
from functools import cache
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, Field

from planner.advisor.matmuls import Matmul, Matmuls
from planner.advisor.throughput import Load, Setup
from planner.bounds.errors import PlannerError

TABLES_FILE = Path(__file__).with_name("trtllm_gemm_tables.toml")


class _GpuTable(BaseModel, frozen=True, extra="forbid"):
    id: str
    device: str
    gemm_file: str
    moe_file: str
    gemm_us: tuple[tuple[float, ...], ...]  # n, k, then microseconds at each of ``m``
    moe_us: tuple[tuple[float, ...], ...]  # hidden, width, top-k, experts, expert-parallel size, then microseconds


class _Tables(BaseModel, frozen=True, extra="forbid"):
    source: str = Field(pattern=r"^ai-dynamo/aiconfigurator@[0-9a-f]{40}$")
    trtllm_version: str
    m: tuple[int, ...]
    nk: tuple[int, ...]
    moe_tokens: tuple[int, ...]
    gpu: tuple[_GpuTable, ...]


class GpuTimes(NamedTuple):
    """One GPU's measured latencies, in seconds."""

    gemm: dict[tuple[int, int], tuple[float, ...]]  # (n, k) -> seconds at each of ``m``
    moe: dict[tuple[int, int, int, int, int], tuple[float, ...]]  # (hidden, width, top-k, experts, ep) -> seconds


class Tables(NamedTuple):
    m: tuple[int, ...]
    nk: tuple[int, ...]
    moe_tokens: tuple[int, ...]
    gpus: dict[str, GpuTimes]


@cache
def tables(path: Path = TABLES_FILE) -> Tables:
    """The extract, validated (a row whose length is not its grid's fails here, not in a step)."""
    raw = _Tables.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    gpus: dict[str, GpuTimes] = {}
    for g in raw.gpu:
        gemm = {(int(r[0]), int(r[1])): tuple(us / 1e6 for us in r[2:]) for r in g.gemm_us}
        moe = {
            (int(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4])): tuple(us / 1e6 for us in r[5:]) for r in g.moe_us
        }
        if any(len(v) != len(raw.m) for v in gemm.values()) or any(len(v) != len(raw.moe_tokens) for v in moe.values()):
            raise PlannerError(f"{path.name}: {g.id}: a row does not match its grid")
        gpus[g.id] = GpuTimes(gemm, moe)
    return Tables(raw.m, raw.nk, raw.moe_tokens, gpus)


def _along(grid: tuple[int, ...], values: tuple[float, ...], x: float) -> float:
    """``values`` (one per ``grid`` point) at ``x``: linear between points, the first below the grid, in proportion
    past its end."""
    if x <= grid[0]:
        return values[0]
    if x >= grid[-1]:
        return values[-1] * x / grid[-1]
    j = bisect.bisect_left(grid, x)
    x0, x1 = grid[j - 1], grid[j]
    return values[j - 1] + (values[j] - values[j - 1]) * (x - x0) / (x1 - x0)


def _bracket(grid: tuple[int, ...], x: int) -> tuple[int, int, float, float]:
    """The grid points around ``x``, the weight of the upper one, and the scale past the grid's end."""
    if x <= grid[0]:
        return grid[0], grid[0], 0.0, 1.0
    if x >= grid[-1]:
        return grid[-1], grid[-1], 0.0, x / grid[-1]
    j = bisect.bisect_left(grid, x)
    return grid[j - 1], grid[j], (x - grid[j - 1]) / (grid[j] - grid[j - 1]), 1.0


def gemm_seconds(t: Tables, times: GpuTimes, m: int, n: int, k: int) -> float:
    """One GEMM of ``m`` tokens, ``n`` outputs, ``k`` inputs: interpolated over the table's grid."""
    n0, n1, wn, sn = _bracket(t.nk, n)
    k0, k1, wk, sk = _bracket(t.nk, k)

    def at(a: int, b: int) -> float:
        return _along(t.m, times.gemm[(a, b)], m)

    low = at(n0, k0) * (1 - wk) + at(n0, k1) * wk
    high = at(n1, k0) * (1 - wk) + at(n1, k1) * wk
    return (low * (1 - wn) + high * wn) * sn * sk


def _per_gpu(mm: Matmul, gpus: int) -> tuple[int, int]:
    if mm.parallel == "column":
        return max(1, mm.n // gpus), mm.k
    return mm.n, max(1, mm.k // gpus)


def step_gemm_seconds(gpu_id: str, shapes: Matmuls, tokens: int, gpus: int) -> float | None:
    """One GPU's matmul time of a decode step of ``tokens`` tokens over ``gpus`` tensor-parallel GPUs (``None``:
    the GPU or the MoE shape is not in the tables)."""
    t = tables()
    times = t.gpus.get(gpu_id)
    if times is None:
        return None
    total = 0.0
    for mm in (*shapes.dense, shapes.head):
        n, k = _per_gpu(mm, gpus)
        total += mm.repeats * gemm_seconds(t, times, tokens, n, k)
    if shapes.moe is not None:
        moe = times.moe.get((*shapes.moe, gpus))
        if moe is None:
            return None
        total += shapes.moe_layers * _along(t.moe_tokens, moe, tokens)
    return total


def decode_gemm_seconds(setup: Setup, load: Load) -> float | None:
    """The measured matmul time of one GPU in a TensorRT-LLM NVFP4 decode step (see the module docstring)."""
    if setup.family != "fused" or setup.path != "fp4" or setup.split != "tensor" or load.matmuls is None:
        return None
    return step_gemm_seconds(setup.gpu.id, load.matmuls, load.tokens, setup.gpus)
