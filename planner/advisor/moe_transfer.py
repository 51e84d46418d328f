"""vLLM's and SGLang's fused MoE on a set-up aiconfigurator's tables do not time, at the measured kernel's efficiency.

The tables (:mod:`planner.advisor.paged_moe`) time the engines' fused MoE on A100, H100, H200 and B200, BF16, block FP8
and Marlin INT4, the experts' width split over the tensor-parallel GPUs; at decode batches the layer takes several
times its roofline (Qwen3-235B-A22B's BF16 layer on a B200 at moe TP 8: 33 us at 1 token where its bytes take 5).
Elsewhere (B300, GB200 / GB300, AMD Instinct, RTX cards, the L40S, data-parallel ranks holding the experts expert
parallel, NVFP4 / MXFP4) the speed model transfers that measured efficiency, as it applies the HBM share fitted on some
GPUs to all: the layer's time is its roofline time (:func:`planner.advisor.engine_speed.experts_roofline_seconds`)
times measured / roofline of the same engine's kernel at the same shape (hidden, expert width, top-k, experts, the
set-up's GPU count as the moe TP size), the same tokens (interpolated as the tables are) and format on a measured GPU.

Which measured GPU (:func:`transfer_source`): those of the set-up's vendor if any time the shape, else all; of them
the nearest in bandwidth at or below and at or above the set-up's (B300 -> B200, both 8 TB/s; MI300X, 5.3 TB/s ->
H200 at 4.8 and B200 at 8.0; RTX PRO 6000, 1.8 TB/s -> A100 in BF16, H100 in FP8), and of those two the slower
ratio: the ratio varies across the measured GPUs (Qwen3-235B-A22B's BF16 layer at moe TP 8 and 64 tokens, vLLM:
:func:`ratio_spread`), so the conservative neighbour stands in, and the option's note states the spread.

Which format: the table's format of the set-up (:func:`planner.advisor.paged_moe.table_format`); NVFP4 and MXFP4
experts, which no read row times, take the Marlin INT4 rows: vLLM runs 4-bit float experts through the same
``fused_marlin_moe`` kernel with an FP4 weight type where no native FP4 MoE kernel applies
(model_executor/layers/quantization/utils/marlin_utils_fp4.py, ``fused_marlin_moe(..., quant_type_id=
scalar_types.float4_e2m1f.id)`` in quantization/mxfp4.py and modelopt.py), half a byte a weight as the INT4 rows.
A format no GPU times at the shape and GPU count (block FP8 and Marlin INT4 at moe TP 8 of Qwen3-235B-A22B's
1,536-wide experts: 192 columns a GPU, no whole 128-wide FP8 block; the tables hold no such row) takes the BF16 rows'
ratio, the engine's default Triton ``fused_moe_kernel``, whose FP8 and INT8 W8A8 branches are the same kernel
(vLLM 0.11.0 model_executor/layers/fused_moe/fused_moe.py:271, :399-473).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from pydantic import BaseModel

from model_catalog import get_gpu
from planner.advisor.kernel_grid import along
from planner.advisor.paged_moe import NAMED, SAME_KERNEL, TABLE_BITS, experts_bits, paged_moe_seconds, tables
from planner.advisor.throughput import Load, Setup

# 4-bit float experts take the Marlin INT4 rows (module docstring).
CLOSEST: dict[str, str] = {"nvfp4": "int4-marlin", "nvfp4-experts": "int4-marlin", "mxfp4": "int4-marlin"}
# A format with no row of the shape at the set-up's GPU count: the engine's default BF16 kernel's (module docstring).
FALLBACK = "16-bit"


class Transfer(BaseModel, frozen=True, extra="forbid"):
    """The transferred expert time of a set-up and where it comes from."""

    seconds: float  # one GPU's routed-expert time of the step, all MoE layers
    gpu_name: str  # the measured GPU whose ratio is used
    ratio: float  # measured / roofline there
    low: float  # the ratio's range over every measured GPU of the shape (the spread)
    high: float
    measured_on: tuple[str, ...]  # the GPUs the spread is over


def transfer_format(setup: Setup, load: Load) -> str | None:
    """The table whose measured ratio prices ``load``'s experts: the named or compute path's format, else the
    closest kernel's (:data:`CLOSEST`), if the experts' bytes are that format's."""
    path = CLOSEST.get(setup.weights) or NAMED.get(setup.weights) or SAME_KERNEL.get(setup.path, setup.path)
    bits = TABLE_BITS.get(path)
    if bits is None or load.moe is None or abs(experts_bits(load) - bits) > 1.0:  # scales add 0.002-0.5 bits
        return None
    return path


def measured_gpus(setup: Setup, load: Load, path: str) -> list[str]:
    """Catalog ids of the GPUs whose tables time this engine's kernel at ``load``'s shape and GPU count."""
    _, by_setup = tables()
    key = (*load.moe, setup.gpus) if load.moe is not None else ()
    return [g for (e, g, p), rows in by_setup.items() if e == setup.engine and p == path and key in rows]


def transfer_source(setup: Setup, load: Load) -> tuple[str, list[str]] | None:
    """The format and the measured GPUs (the nearest in bandwidth below and above, the vendor's if any) whose ratio
    may price a paged set-up the tables do not time (``None``: measured, another family, or no row of the shape)."""
    if setup.family != "paged" or setup.split != "tensor" or load.moe is None:
        return None
    if paged_moe_seconds(setup, load) is not None:
        return None
    path = transfer_format(setup, load)
    if path is not None and not measured_gpus(setup, load, path):  # no row of the shape: the BF16 kernel's
        path = FALLBACK
    gpus = [get_gpu(g) for g in measured_gpus(setup, load, path)] if path else []
    own = [g for g in gpus if g.vendor == setup.gpu.vendor]
    pool = own or gpus
    if path is None or not pool:
        return None
    bw = setup.gpu.bandwidth_bytes_per_s or 0.0
    below = [g for g in pool if (g.bandwidth_bytes_per_s or 0.0) <= bw]
    above = [g for g in pool if (g.bandwidth_bytes_per_s or 0.0) >= bw]
    near = [max(below, key=lambda g: g.bandwidth_bytes_per_s or 0.0)] if below else []
    near += [min(above, key=lambda g: g.bandwidth_bytes_per_s or 0.0)] if above else []
    return path, list(dict.fromkeys(g.id for g in near))


def measured_ratio(setup: Setup, load: Load, gpu_id: str, path: str, roofline: Callable[[Setup], float]) -> float:
    """Measured / roofline time of the engine's kernel at ``load``'s shape, tokens and GPU count on ``gpu_id``: the
    tables' time (interpolated in tokens) over ``roofline`` of the same set-up on that GPU, its experts split by
    width (the tables' layout)."""
    grid, by_setup = tables()
    assert load.moe is not None
    row = by_setup[(setup.engine, gpu_id, path)][(*load.moe, setup.gpus)]
    there = setup._replace(gpu=get_gpu(gpu_id), attention_dp=False, attention_tp=1)
    base = roofline(there)
    return load.moe_layers * along(grid, row, load.tokens) / base if base > 0 else math.nan


def ratio_spread(setup: Setup, load: Load, path: str, roofline: Callable[[Setup], float]) -> dict[str, float]:
    """Measured / roofline on every GPU whose tables time the shape, by catalog id."""
    return {g: measured_ratio(setup, load, g, path, roofline) for g in measured_gpus(setup, load, path)}


def transferred_moe(setup: Setup, load: Load, roofline: Callable[[Setup], float]) -> Transfer | None:
    """One GPU's routed-expert time of a decode step on a set-up the tables do not time: ``roofline(setup)`` (its
    experts' roofline time, :func:`planner.advisor.engine_speed.experts_roofline_seconds`) times the slower of the
    neighbouring measured GPUs' measured / roofline ratio (:func:`transfer_source`; ``None`` where none applies)."""
    source = transfer_source(setup, load)
    if source is None:
        return None
    path, near = source
    spread = ratio_spread(setup, load, path, roofline)
    finite = {g: v for g, v in spread.items() if math.isfinite(v)}
    picked = max((g for g in near if g in finite), key=lambda g: finite[g], default=None)
    if picked is None:
        return None
    ratio = finite[picked]
    names = tuple(get_gpu(g).name for g in finite)
    low, high = min(finite.values()), max(finite.values())
    return Transfer(
        seconds=roofline(setup) * ratio,
        gpu_name=get_gpu(picked).name,
        ratio=ratio,
        low=low,
        high=high,
        measured_on=names,
    )
