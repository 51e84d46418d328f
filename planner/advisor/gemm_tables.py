"""TensorRT-LLM's GEMM and MoE times as measured, read from NVIDIA aiconfigurator's tables (no constant fitted).

``trtllm_gemm_tables.toml`` (beside this module) is a compact extract of ai-dynamo/aiconfigurator@095f58a51's
``systems/data/<system>/gemm/trtllm/<version>/gemm_perf.parquet`` and ``moe/.../moe_perf.parquet``, one table per
GPU and arithmetic (its header says which rows, each table which file, dtype and kernel): each TRT-LLM ``Linear``
(activation quantization and GEMM) and fused MoE layer timed under CUDA graphs at ``m`` tokens.

- **NVFP4** on B200, GB200 and RTX PRO 6000 Blackwell Server (1.3.0rc20). At decode batch sizes these GEMMs are far
  from the memory roofline on B200 and GB200 (an 8192 x 8192 NVFP4 GEMM takes 22.7 us at 1-128 tokens, ~0.2 of its
  bandwidth time) and close to it on the RTX PRO 6000: a per-die share cannot say that, a time by shape can.
- **16-bit** (the files' bfloat16) on A100-SXM4-80GB (1.0.0, the only version aiconfigurator measured on A100; its
  1.3.0rc15 ``reuse.yaml`` points back to it), H100 SXM, H200 and L40S (1.3.0rc20). An 8192 x 8192 GEMM at 128
  tokens takes 113.6 us on A100, 1.7x its bandwidth time; TensorRT-LLM 0.17's FP16 cells on 4 and 8 A100s, first
  over-predicted by a median +39 to +52 %, land at -34 to +30 % with these times (tests/advisor/unseen_2026_12.py).
- **FP8 is measured and not used.** aiconfigurator's per-tensor FP8 tables for H100, H200 and L40S put the package's
  TensorRT-LLM FP8 rows on H100 and H200 at a median -14 % (11 fit rows; -2 % with the rate model) and -14 % (15
  held-out rows; -3 %): slower than the engines those rows ran. The lead, not traced: the PyTorch flow's FP8
  ``Linear`` quantizes its activation in a kernel of its own, which TensorRT engines fuse into the norm before it.
  The rate model (``GEMM_EFFICIENCY``) keeps pricing FP8. Also tried: aiconfigurator's own static-FP8
  derivation (aic-core/rust/aiconfigurator-core/src/operators/gemm.rs ``fp8_static``: the dynamic-FP8 time less its
  measured activation-scale pass, less the activation's quantization where the input is already FP8, floored at the
  roofline): those rows move to -10 % (H100, fit) and -15 % (H200), the fit again drives ``cb_bw_hbm`` to 1.00, and
  the unseen set gets worse (53 -> 55 rows over 50 %). Pricing the output head on the 16-bit table (quantized
  checkpoints keep ``lm_head`` in BF16) moved every row by under 1 % and the unseen set 53 -> 54: not kept.

Under tensor parallelism each GPU's GEMMs are smaller (``n`` or ``k`` split), so the same table prices TP 1 and
TP 8. The tables are the PyTorch backend's kernels; the TensorRT engines of 0.17 call the same cuBLAS / CUTLASS
GEMMs for 16-bit and NVFP4 matrices, and the A100 cells above are the check.

:func:`decode_gemm_seconds` is one GPU's matmul time of a TensorRT-LLM decode step, the sum over its
:class:`~planner.advisor.matmuls.Matmuls` of the latency interpolated linearly in ``m``, ``n`` and ``k`` on the
table's own grids (past the widest ``n`` or ``k``, in proportion to the width: a wide matrix is read in proportion).
Routed experts run expert parallel over the replica's GPUs where the run names an expert-parallel size (the v1.0 perf
overview's MoE runs, ``--ep``, all with attention data parallelism: :attr:`Setup.attention_dp`), else tensor parallel
(``moe_tp_us``): with neither size given TensorRT-LLM splits every expert's width over the GPUs (``Mapping.__init__``,
``tensorrt_llm/mapping.py`` at NVIDIA/TensorRT-LLM@05ebebb2c1d3: ``moe_tp_size = tp_size``, ``moe_ep_size = 1``), and
0.17's ``trtllm-bench build`` names none (``LLM(..., tensor_parallel_size=tp_size, pipeline_parallel_size=pp_size)``,
``tensorrt_llm/bench/build/build.py`` at @000a01de66f0; perf-overview.md at v0.17: ``build --tp_size --pp_size
--dataset``); nor does the advisor's own ``trtllm-serve`` line without attention data parallelism. Each GPU then runs
all the step's tokens through every expert's slice, so aiconfigurator's skewed routing (power law) barely moves it,
where one expert a GPU waits on the most-routed one (A100 Mixtral-8x7B at 2,048 tokens: 1.255 ms a layer at moe TP 8,
4.494 ms at EP 8; TensorRT-LLM 0.17's 8 x A100 long-output cells were under-predicted by 43-49 % with the EP time).
The fused MoE's ``num_tokens`` is the step's tokens. A prompt in a serving run
(:func:`prompt_moe_seconds`) adds its share of a chunk's tokens to the decode step's MoE, which TensorRT-LLM runs in
the same forward: the measured time at the decode batch plus the chunk, less that at the batch (its dense matmuls
keep the rate model: only the experts, whose grouped GEMM over ``tokens x top-k / experts`` rows a dense GEMM's share
does not describe, are read from the table; pricing the dense ones too moved the fit's vLLM constants and put the
unseen 12c / 12d sets over more rows). ``None`` where the tables do not reach: another engine, GPU,
arithmetic or split, a model without shapes, a MoE shape the tables do not hold at that parallelism; the rate model
prices those steps.

The extract is made with pandas from the parquet files: for each table, the rows of its ``gemm_dtype`` and
``kernel_source``, the median latency at each (``n``, ``k``, ``m``) of its grids; for MoE, ``moe_tp_size`` 1,
distribution ``power_law_1.01``, each catalog MoE shape at expert-parallel sizes 1, 2, 4 and 8 where measured.
"""

from __future__ import annotations

import bisect
import tomllib
from functools import cache
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, Field

from planner.advisor.kernel_grid import along, moe_rows
from planner.advisor.kernels import ComputePath
from planner.advisor.matmuls import Matmul, Matmuls
from planner.advisor.throughput import Load, Setup
from planner.bounds.errors import PlannerError

TABLES_FILE = Path(__file__).with_name("trtllm_gemm_tables.toml")


class _Table(BaseModel, frozen=True, extra="forbid"):
    gpu: str
    path: ComputePath
    device: str
    trtllm_version: str
    gemm_file: str
    gemm_dtype: str
    gemm_kernel: str
    moe_file: str
    moe_dtype: str
    moe_kernel: str
    m: tuple[int, ...]
    n: tuple[int, ...]
    k: tuple[int, ...]
    moe_tokens: tuple[int, ...]
    gemm_us: tuple[tuple[float, ...], ...]  # n, k, then microseconds at each of ``m``
    moe_us: tuple[tuple[float, ...], ...]  # hidden, width, top-k, experts, expert-parallel size, then microseconds
    moe_tp_us: tuple[tuple[float, ...], ...] = ()  # the same, tensor-parallel experts: the moe TP size for the EP one


class _Tables(BaseModel, frozen=True, extra="forbid"):
    source: str = Field(pattern=r"^ai-dynamo/aiconfigurator@[0-9a-f]{40}$")
    table: tuple[_Table, ...]


class GpuTimes(NamedTuple):
    """One GPU's measured latencies in one arithmetic, in seconds, on the grids they were measured at."""

    m: tuple[int, ...]
    n: tuple[int, ...]
    k: tuple[int, ...]
    moe_tokens: tuple[int, ...]
    gemm: dict[tuple[int, int], tuple[float, ...]]  # (n, k) -> seconds at each of ``m``
    moe: dict[tuple[int, int, int, int, int], tuple[float, ...]]  # (hidden, width, top-k, experts, ep) -> seconds
    moe_tp: dict[tuple[int, int, int, int, int], tuple[float, ...]]  # (hidden, width, top-k, experts, moe tp) -> s


def _times(path: Path, t: _Table) -> GpuTimes:
    """One table, checked: every (n, k) pair of its grids, every row as long as its grid."""
    gemm = {(int(r[0]), int(r[1])): tuple(us / 1e6 for us in r[2:]) for r in t.gemm_us}
    moe, moe_tp = moe_rows(t.moe_us), moe_rows(t.moe_tp_us)
    complete = set(gemm) == {(n, k) for n in t.n for k in t.k}
    if not complete or any(len(v) != len(t.m) for v in gemm.values()):
        raise PlannerError(f"{path.name}: {t.gpu} {t.path}: the GEMM rows do not cover the grid")
    if any(len(v) != len(t.moe_tokens) for v in (*moe.values(), *moe_tp.values())):
        raise PlannerError(f"{path.name}: {t.gpu} {t.path}: a MoE row does not match its grid")
    return GpuTimes(t.m, t.n, t.k, t.moe_tokens, gemm, moe, moe_tp)


@cache
def tables(path: Path = TABLES_FILE) -> dict[tuple[str, str], GpuTimes]:
    """The extract, validated, by (catalog GPU id, compute path)."""
    raw = _Tables.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    return {(t.gpu, t.path): _times(path, t) for t in raw.table}


def _bracket(grid: tuple[int, ...], x: int) -> tuple[int, int, float, float]:
    """The grid points around ``x``, the weight of the upper one, and the scale past the grid's end."""
    if x <= grid[0]:
        return grid[0], grid[0], 0.0, 1.0
    if x >= grid[-1]:
        return grid[-1], grid[-1], 0.0, x / grid[-1]
    j = bisect.bisect_left(grid, x)
    return grid[j - 1], grid[j], (x - grid[j - 1]) / (grid[j] - grid[j - 1]), 1.0


def gemm_seconds(times: GpuTimes, m: int, n: int, k: int) -> float:
    """One GEMM of ``m`` tokens, ``n`` outputs, ``k`` inputs: interpolated over the table's grid."""
    n0, n1, wn, sn = _bracket(times.n, n)
    k0, k1, wk, sk = _bracket(times.k, k)

    def at(a: int, b: int) -> float:
        return along(times.m, times.gemm[(a, b)], m)

    low = at(n0, k0) * (1 - wk) + at(n0, k1) * wk
    high = at(n1, k0) * (1 - wk) + at(n1, k1) * wk
    return (low * (1 - wn) + high * wn) * sn * sk


def _per_gpu(mm: Matmul, gpus: int) -> tuple[int, int]:
    if mm.parallel == "column":
        return max(1, mm.n // gpus), mm.k
    return mm.n, max(1, mm.k // gpus)


def step_gemm_seconds(
    gpu_id: str, path: str, shapes: Matmuls, tokens: int, gpus: int, expert_parallel: bool = True, ranks: int = 1
) -> float | None:
    """One GPU's matmul time of a decode step of ``tokens`` tokens over ``gpus`` GPUs in the arithmetic ``path``,
    the routed experts expert parallel or tensor parallel over them (``None``: the GPU, the arithmetic or the MoE
    shape at that parallelism is not in the tables). With ``ranks`` attention data-parallel ranks each runs its own
    ``tokens / ranks`` through the dense matmuls split over its ``gpus / ranks`` GPUs (whole at one GPU a rank:
    :mod:`planner.advisor.rank_balance`), and the experts every rank's tokens."""
    times = tables().get((gpu_id, path))
    if times is None:
        return None
    total, own = 0.0, -(-tokens // ranks)
    for mm in (*shapes.dense, shapes.head):
        n, k = _per_gpu(mm, gpus // ranks)
        total += mm.repeats * gemm_seconds(times, own, n, k)
    if shapes.moe is not None:
        moe = _moe_row(times, shapes, gpus, expert_parallel)
        if moe is None:
            return None
        total += shapes.moe_layers * along(times.moe_tokens, moe, tokens)
    return total


def _moe_row(times: GpuTimes, shapes: Matmuls, gpus: int, expert_parallel: bool) -> tuple[float, ...] | None:
    """The fused MoE's measured times of ``shapes``' experts over ``gpus``, expert or tensor parallel."""
    assert shapes.moe is not None
    return (times.moe if expert_parallel or gpus == 1 else times.moe_tp).get((*shapes.moe, gpus))


def decode_gemm_seconds(setup: Setup, load: Load) -> float | None:
    """The measured matmul time of one GPU in a TensorRT-LLM decode step, where the tables hold its GPU and
    arithmetic (see the module docstring): the experts expert parallel with attention data parallelism (its runs
    name ``--ep``; each rank's dense matmuls on its own tokens), else tensor parallel (TensorRT-LLM's default)."""
    if setup.family != "fused" or setup.split != "tensor" or load.matmuls is None:
        return None
    ranks = setup.gpus // setup.attention_tp if setup.attention_dp else 1
    return step_gemm_seconds(
        setup.gpu.id, setup.path, load.matmuls, load.tokens, setup.gpus, setup.attention_dp, max(1, ranks)
    )


def prompt_moe_seconds(setup: Setup, load: Load, chunk: int, batch: int = 0) -> float | None:
    """The routed experts' measured time one TensorRT-LLM prompt of ``load.tokens`` adds to a serving run: the
    fused MoE of a step that carries ``chunk`` prompt tokens a rank beside ``batch`` decoding sequences, less that of
    the decode tokens alone, for the prompt's share of the chunk. TensorRT-LLM runs a step's context chunks and
    generation tokens in one forward (``PyTorchModelEngine._prepare_tp_inputs``, see
    :func:`planner.advisor.engine_speed.prompt_allreduce_seconds`), so the prompt's tokens join the decode step's
    MoE, whose expert weights that step already reads; with attention data parallelism every rank's chunk meets in
    the experts (``batch`` counts every rank's sequences). ``batch`` 0: the chunk's MoE alone, weights included
    (a prompt priced before its batch is known, :meth:`planner.advisor.build.Built.setup`'s; an option's speed
    prices it again beside its batch, :func:`planner.advisor.option_speed.speed_of`). ``None`` where
    :func:`decode_gemm_seconds` has no table: another engine, split, GPU or arithmetic, a dense model, a MoE shape
    not measured at that parallelism.

    >>> from model_catalog import get_gpu, get_model
    >>> from planner.advisor.throughput import prefill_load
    >>> b200 = Setup(get_gpu("b200-sxm"), "fused", "fp4", 1, "tensor", False)
    >>> prompt = prefill_load(get_model("Qwen/Qwen3-30B-A3B").spec, "nvfp4", 8192)
    >>> alone, beside = prompt_moe_seconds(b200, prompt, 8192), prompt_moe_seconds(b200, prompt, 8192, 1024)
    >>> round(alone * 1e3, 1), round(beside * 1e3, 1)
    (46.5, 39.1)
    """
    if setup.family != "fused" or setup.split != "tensor" or load.matmuls is None or load.matmuls.moe is None:
        return None
    times = tables().get((setup.gpu.id, setup.path))
    row = None if times is None else _moe_row(times, load.matmuls, setup.gpus, setup.attention_dp)
    if times is None or row is None:
        return None
    tokens = chunk * (setup.gpus // setup.attention_tp if setup.attention_dp else 1)
    added = along(times.moe_tokens, row, batch + tokens) - (along(times.moe_tokens, row, batch) if batch else 0.0)
    return load.matmuls.moe_layers * added * load.tokens / tokens
