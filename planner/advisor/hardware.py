"""What the hardware offers a step of a serving engine: its memory class, 16-bit rates, the link between GPUs of one
replica, the dense TFLOPS of a matmul path (no constants fitted; what a step asks of it is
:mod:`planner.advisor.throughput`).

>>> PCIE_BYTES_PER_S[5] / PCIE_BYTES_PER_S[4]
2.0
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from planner.advisor.kernels import ComputePath
from planner.bounds.memo import BoundedMemo
from planner.core.gpu import GpuSpec

MemoryClass = Literal["hbm", "gddr", "apple", "lpddr"]
LinkKind = Literal["nvlink", "pcie"]

# Per-direction PCIe x16 bandwidth by generation (PCI-SIG: 16 / 32 / 64 GT/s x 16 lanes, 128b/130b coding).
PCIE_BYTES_PER_S = {3: 15.75e9, 4: 31.5e9, 5: 63.0e9}


def memory_class(gpu: GpuSpec) -> MemoryClass:
    """HBM, GDDR, Apple unified memory, or other LPDDR shared with a CPU (DGX Spark, Strix Halo): the share of the
    datasheet bandwidth a decode step reaches differs by class (Apple quotes the whole chip's bandwidth, which its
    GPU alone does not reach)."""
    kind = (gpu.memory_type or "").upper()
    if gpu.vendor == "Apple":
        return "apple"
    if gpu.unified_memory is not None or "LPDDR" in kind or "UNIFIED" in kind:
        return "lpddr"
    return "hbm" if "HBM" in kind else "gddr"


def fp16_accumulate_factor(gpu: GpuSpec) -> float:
    """How much faster than the catalog's 16-bit rate (FP32 accumulation, what serving engines use) a GPU runs FP16
    matmuls that accumulate in FP16, as llama.cpp's cuBLAS path does (``CUBLAS_COMPUTE_16F``,
    ggml-org/llama.cpp ``ggml-cuda.cu``; PR 3370 took a 3090 Ti's pp512 from 1,661 to 3,984 t/s with it): the
    entry's sourced ``fp16_accumulate`` over its ``fp16`` (GeForce parts and the L40 halve FP32 accumulation: RTX
    4090 165.2 / 330.3, RTX 5090 209.5 / 419, L40 181 / 362 dense), 1 where the catalog states no difference."""
    fp16 = gpu.compute.tflops("fp16")
    if gpu.compute.fp16_accumulate is None or not fp16:
        return 1.0
    return gpu.compute.fp16_accumulate / fp16


# The generation read off each GPU's form factor and interconnect text (every all-reduce over PCIe asks it): one entry
# per distinct text, a catalog holds ~50; 256 keep a few catalogs' worth (short strings and ints).
PCIE_TEXTS = 256
_GENERATIONS: BoundedMemo[str, int] = BoundedMemo(PCIE_TEXTS)


def pcie_generation(gpu: GpuSpec) -> int:
    """The PCIe generation the card's link runs (from its form factor or interconnect text; Gen4 when unstated),
    kept per text (:data:`PCIE_TEXTS`, least recently used out)."""
    text = f"{gpu.form_factor or ''} {gpu.interconnect or ''}"
    kept = _GENERATIONS.get(text)
    if kept is None:
        found = re.search(r"(?:Gen\s?|PCIe\s)([345])", text)
        kept = _GENERATIONS.put(text, int(found.group(1)) if found else 4)
    return kept


def pcie_lanes(gpu: GpuSpec) -> int:
    return 8 if re.search(r"\bx8\b", gpu.form_factor or "") else 16


XGMI_PEERS = 7  # an 8-GPU AMD Instinct platform: each GPU has one Infinity Fabric link to each other GPU


@lru_cache(maxsize=1024)  # pure in the (frozen) GPU entry and a count; asked for every step of every option
def link(gpu: GpuSpec, gpus: int) -> tuple[LinkKind, float]:
    """How ``gpus`` GPUs of one replica exchange activations, and the bytes per second of the link: NVLink on
    baseboards (half the quoted bidirectional figure, what an all-reduce over it moves; NVSwitch gives any group
    the whole of it), an NVLink bridge for a pair only, Infinity Fabric's one link per peer (:func:`fabric_share`),
    else PCIe's per-direction figure (an all-reduce over PCIe takes NCCL's measured time instead,
    :func:`planner.advisor.allreduce.pcie_allreduce_seconds`)."""
    text = (gpu.interconnect or "").lower()
    fabric = gpu.interconnect_bandwidth_bytes_per_s
    bridged = "bridge" in text
    if fabric and "infinity" in text:
        return "nvlink", fabric / 2 * fabric_share(gpus)
    if fabric and "nvlink" in text and (not bridged or gpus <= 2):
        return "nvlink", fabric / 2
    if gpu.purchase.kind == "baseboard" and ("infinity" in text or fabric):
        return "nvlink", (fabric or 2 * PCIE_BYTES_PER_S[5]) / 2
    per_direction = PCIE_BYTES_PER_S[pcie_generation(gpu)] * pcie_lanes(gpu) / 16
    return "pcie", per_direction


def fabric_share(gpus: int) -> float:
    """The share of a GPU's Infinity Fabric a group of ``gpus`` uses: AMD's 8-GPU platforms link each GPU to each of
    its 7 peers by one link and no switch, so a group moves data over ``gpus - 1`` of them (stas00/ml-engineering
    @744d01e18b79 ``network/README.md``: "unless you use the whole 8-GPU node in a single process group you will
    have a 7x slower comms performance"; all-reduce busbw measured on MI300X: 47.7 GB/s on 2 GPUs, 312.9 on 8).

    >>> fabric_share(2), fabric_share(8)
    (0.14285714285714285, 1.0)
    """
    return min(max(gpus - 1, 1), XGMI_PEERS) / XGMI_PEERS


LOW_PRECISION_LABELS = {"fp8": "FP8 dense", "int8": "INT8 dense", "fp4": "FP4 dense"}  # compute_tflops's figures


def compute_tflops(gpu: GpuSpec, path: ComputePath) -> tuple[float | None, str]:
    """Dense TFLOPS the matmuls of ``path`` run at on ``gpu`` (``None``: unknown), and which figure that is."""
    compute = gpu.compute
    if path in ("fp8", "int8", "fp4"):
        value = compute.tflops(path)
        label = LOW_PRECISION_LABELS[path]
        return (value, label) if value else (None, f"{label} unknown for this GPU")
    for fmt, label in (("bf16", "BF16 dense"), ("fp16", "FP16 dense")):
        value = compute.tflops(fmt)  # type: ignore[arg-type]
        if value:
            return value, label
    fp32 = compute.tflops("fp32")
    if fp32:
        return fp32, "FP32 (no 16-bit matrix figure: 16-bit math at the FP32 rate)"
    return None, "16-bit TFLOPS unknown for this GPU"


def default_compute_path(gpu: GpuSpec, weights: str) -> ComputePath:
    """The arithmetic when no support row says: the format's own tensor cores when the GPU has a figure for them
    (FP8, INT8, FP4 for NVFP4 / MXFP4), else 16-bit (weight-only dequantisation)."""
    own: dict[str, Literal["fp8", "int8", "fp4"]] = {"fp8": "fp8", "int8": "int8", "nvfp4": "fp4", "mxfp4": "fp4"}
    path = own.get(weights)
    if path is not None and gpu.compute.tflops(path):
        return path
    return "16-bit"
