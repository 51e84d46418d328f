"""TensorRT-LLM's collectives per step where measured on the GPU's own server, and attention data parallelism's
collectives in place of tensor parallelism's all-reduces.

**Measured on the server.** NVIDIA's aiconfigurator times NCCL's collectives (``nccl-tests``, fp16, NCCL 2.29.2,
framework ``TRTLLM``) on an RTX PRO 6000 Blackwell Server Edition machine, the GPU the TensorRT-LLM perf overview
ran its RTX PRO cells on (ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce ``aic-
core/src/aiconfigurator_core/systems/data/rtx_pro_6000_server/comm/nccl/2.29.2/nccl_perf.parquet``; its
``message_size`` counts fp16 elements, ``collector/network/collect_nccl.py``: ``size // bytes_per_element``; the
latency column in ms). The same repository's GEMM and MoE tables of that system already price TensorRT-LLM's steps
on the catalog's ``rtx-pro-6000-blackwell`` (:mod:`planner.advisor.gemm_tables`). An all-reduce over 8 GPUs takes
25.6 us at 4 KB and 2,494 us at 32 MB, where the community box the other PCIe all-reduces come from
(:mod:`planner.advisor.allreduce`, Broadcom switches) takes 65.6 and 2,976 us; over 4 GPUs 13.7 and 2,022 us against
15.4 and 1,790. The same files' L40S table (``l40s/comm/nccl/2.27.3``) is not used: its 8-GPU all-reduce of 32 MB
takes 38.9 ms (under 1 GB/s, a machine whose GPUs do not reach each other peer to peer); with it TensorRT-LLM 0.17's
L40S TP 4 and 8 cells, already priced too slow, put 13, 7 and 8 more rows of the first blind set over 50 % (batched,
long context, prefill).

**Attention data parallelism** (TensorRT-LLM's ``enable_attention_dp``; vLLM's and SGLang's data-parallel ranks keep
their all-reduces here): each rank runs attention on its own requests at TP 1, so no all-reduce follows attention;
each MoE layer gathers every rank's tokens for the experts and scatters the sums back: ``CutlassFusedMoE`` in max-
throughput mode, "routing + [dynamic quant for fp8 qdq and nvfp4] [+ fp4_allgather] + FusedMoe Op [no allreduce] +
reducescatter, with AttentionDP on" (``forward_chunk``: ``allgather([x, x_sf, token_selected_slots,
token_final_scales])`` after the input's quantization, then ``reducescatter_or_allreduce``: ``reducescatter`` when
``use_dp``; NVIDIA/TensorRT-LLM ``tensorrt_llm/_torch/modules/fused_moe/fused_moe_cutlass.py``, search-index file id
21418415024). The gathered input is the experts' activation format: NVFP4 (half a byte and one scale byte per 16
values), FP8 (one byte), else 16 bits; the routed ids and weights (8 bytes per token and expert, under 6 % of
Qwen3-30B-A3B's NVFP4 row) are left out. The scattered output is 16-bit.
"""

from __future__ import annotations

from planner.advisor.allreduce import measured_us, pcie_allreduce_seconds
from planner.advisor.hardware import pcie_generation
from planner.advisor.throughput import Load, Setup

# Message sizes of the measured curves, bytes: 256 to 268,435,456 fp16 elements, doubling.
_SIZES: tuple[int, ...] = tuple(2 * 256 * 2**i for i in range(21))
# (op, GPUs) -> microseconds at each of _SIZES (the median where measured twice), rtx_pro_6000_server (above).
# fmt: off
RTX_PRO_SERVER_NCCL_US: dict[tuple[str, int], tuple[float, ...]] = {
    ("all_reduce", 2): (6.34, 6.22, 6.31, 6.7, 6.78, 7.36, 8.09, 9.23, 12.22, 18.52, 31.34, 44.37, 72.01, 129.3,
        243.8, 473.5, 930.6, 1840, 3620, 7106, 13900),
    ("all_reduce", 4): (13.04, 12.86, 13.36, 13.68, 13.54, 14.65, 15.68, 16.93, 24.88, 41.05, 78.08, 86.1, 141.7,
        245.4, 508.6, 1008, 2022, 4032, 8038, 15670, 30490),
    ("all_reduce", 8): (24.57, 24.19, 25.53, 25.56, 26.67, 27.04, 29.36, 34.21, 47.75, 84.79, 156.1, 131.5, 221.2,
        345.5, 661.4, 1248, 2494, 4927, 9757, 23160, 38070),
    ("all_gather", 2): (5.88, 5.94, 6.08, 6.2, 6.2, 6.2, 6.32, 8.29, 10.3, 14.63, 23.95, 31.23, 47.22, 80.22, 145.5,
        277.1, 539.9, 1067, 2113, 4188, 8306),
    ("all_gather", 4): (9.37, 9.34, 9.18, 9.52, 9.84, 10.39, 10.87, 12.32, 16.55, 24.86, 41.3, 51.53, 78.85, 133.6,
        278.1, 549.7, 1096, 2171, 4319, 8596, 17200),
    ("all_gather", 8): (14.22, 14.55, 14.77, 16.07, 15.31, 16.54, 18.41, 19.05, 28.08, 45.66, 91.43, 75.26, 116.9,
        183.1, 338.6, 654.6, 1300, 2590, 5138, 10280, 20410),
    ("reduce_scatter", 2): (5.29, 5.09, 5.66, 5.95, 6.18, 6.23, 7.29, 7.88, 8.43, 13.62, 22.16, 31.24, 48.58, 83.95,
        153.6, 293.6, 574.3, 1132, 2206, 4208, 7971),
    ("reduce_scatter", 4): (9.54, 9.5, 9.44, 9.71, 9.96, 10.38, 10.53, 12.14, 16.52, 24.98, 43.75, 51.26, 83.58,
        136.7, 280.6, 546.3, 1082, 2166, 4335, 8687, 16920),
    ("reduce_scatter", 8): (14.73, 15.14, 15.61, 15.73, 16.02, 16.64, 18.46, 18.8, 28.38, 46.36, 89.32, 72, 119.3,
        177.3, 347.3, 646.8, 1282, 2536, 5145, 10160, 19950),
}
# fmt: on
# The catalog GPUs whose server's collectives are measured (TensorRT-LLM's NCCL), and their curves.
MEASURED_SERVERS: dict[str, dict[tuple[str, int], tuple[float, ...]]] = {
    "rtx-pro-6000-blackwell": RTX_PRO_SERVER_NCCL_US,
}
# Bytes per value of the MoE input attention data parallelism gathers, by weight format (the experts' activations).
GATHERED_BYTES = {"nvfp4": 0.5 + 1 / 16, "fp8": 1.0}


def measured_collective_seconds(setup: Setup, op: str, message_bytes: float) -> float | None:
    """One ``op`` (``all_reduce``, ``all_gather``, ``reduce_scatter``) of ``message_bytes`` over the set-up's GPUs
    as measured on its server, for TensorRT-LLM over PCIe (``None``: another engine, link, GPU or GPU count).

    >>> from model_catalog import get_gpu
    >>> rtx = Setup(get_gpu("rtx-pro-6000-blackwell"), "fused", "fp4", 8, "tensor", False)
    >>> round(measured_collective_seconds(rtx, "all_reduce", 4096) * 1e6, 2)
    25.56
    >>> measured_collective_seconds(rtx._replace(family="paged"), "all_reduce", 4096) is None
    True
    """
    curves = MEASURED_SERVERS.get(setup.gpu.id)
    if setup.family != "fused" or curves is None or setup.link[0] == "nvlink" or (op, setup.gpus) not in curves:
        return None
    curve = tuple(zip(_SIZES, curves[(op, setup.gpus)], strict=True))
    return measured_us(message_bytes, curve, _SIZES) * 1e-6


def attention_dp_seconds(setup: Setup, load: Load, nvlink_latency_s: float) -> float:
    """A step's collectives under attention data parallelism (module docstring): per MoE layer an all-gather of the
    step's tokens in the experts' input format and a reduce-scatter of their 16-bit sums, each as measured on the
    server, else over NVLink a latency and ``(G - 1) / G`` of its message at the fabric's bandwidth, over PCIe as one
    all-reduce of their mean message (an all-reduce is a reduce-scatter then an all-gather)."""
    g = setup.gpus
    scatter = load.allreduce_bytes  # the step's tokens x hidden x 2 bytes
    gather = scatter / 2 * GATHERED_BYTES.get(setup.weights, 2.0)
    measured = [
        measured_collective_seconds(setup, op, b) for op, b in (("all_gather", gather), ("reduce_scatter", scatter))
    ]
    kind, bytes_per_s = setup.link
    if measured[0] is not None and measured[1] is not None:
        one = measured[0] + measured[1]
    elif kind == "nvlink":
        one = 2 * nvlink_latency_s + (gather + scatter) * (g - 1) / g / bytes_per_s
    else:
        one = pcie_allreduce_seconds((gather + scatter) / 2, g, pcie_generation(setup.gpu))
    return load.moe_layers * one
