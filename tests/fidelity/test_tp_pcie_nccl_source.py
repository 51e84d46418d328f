"""Tensor parallelism on PCIe: what NCCL and vLLM's collectives hold a rank, read at the source, against the four
TP 4 PCIe start-ups the planner over-plans (issue 20, read 2026-12-07, fifty-fourth session, helper ``nccl``;
docs/fidelity.md "Tensor parallelism on PCIe: NCCL's share read at the source").

Source facts pinned here:

- Every communicator a TP 4 rank builds is made and warmed before the worker's memory snapshot, so what it holds then
  is outside the KV budget. The worker sets up the distributed environment (0.27.1 ``v1/worker/gpu_worker.py:376``,
  0.24.0 :322) and then takes the snapshot "after NCCL is initialized" (0.27.1 :390-396, 0.24.0 :336-342); the
  budget is measured from it (0.27.1 ``utils/mem_utils.py:311-326``, 0.24.0 :289-304). Each ``PyNcclCommunicator``
  runs ``ncclCommInitRank`` and a one-element all-reduce at construction
  (``distributed/device_communicators/pynccl.py:136-145`` in both).
- A MoE model gets a second device communicator over the same ranks whether or not ``--enable-expert-parallel`` is
  set: the EP group is built for every MoE model (0.27.1 ``distributed/parallel_state.py:1920-1950``, 0.24.0
  :1872-1895) and ``CudaCommunicator`` gives it a ``PyNcclCommunicator`` (0.27.1
  ``device_communicators/cuda_communicator.py:85-89``, 0.24.0 :75-79). The EP and non-EP boots below hold the same
  communicators.
- The custom all-reduce's IPC buffers are not made on more than two PCIe-only GPUs (0.27.1
  ``custom_all_reduce.py:179-185``; 0.24.0 :150-156); where made (TP 2 with P2P) they are allocated in its
  constructor, before the snapshot. The symmetric-memory all-reduce and the FlashInfer fusion workspace are Hopper /
  datacenter Blackwell only (``VllmPlatform.nvlink_collectives``); ``VLLM_ALLREDUCE_USE_FLASHINFER`` is off by default
  (0.27.1 ``envs.py:1789-1790``).
- What NCCL can add after the snapshot is the buffers of an algorithm it connects at its first use (runtime connect,
  NCCL 2.22 on: ``ncclPrepareTasks`` marks ``algoNeedConnect``, ``src/enqueue.cc``). A connection's device buffers
  are one per protocol: LL 8 x 512 x 8 x 16 = 524,288 bytes, LL128 120 x 640 x 8 x 8 = 4,915,200, Simple
  ``NCCL_BUFFSIZE`` 4 MiB (NCCL ``src/init.cc`` ``DEFAULT_LL_BUFFSIZE`` / ``DEFAULT_LL128_BUFFSIZE`` /
  ``DEFAULT_BUFFSIZE``): 9,633,792 bytes. On PCIe NCCL builds 2 channels (public ``NCCL_DEBUG=INFO`` logs: 4 RTX 4090s
  with P2P "Channel 00/0 .. 01/0 via P2P/direct pointer", tinygrad/open-gpu-kernel-modules#22; 8 RTX 4090s "Ring 00 /
  Ring 01 ... via SHM", NVIDIA/nccl-tests#307); a rank receives on at most three connections a channel (the ring's
  previous rank, the intra-node tree's parent and child); the SHM transport (no P2P) keeps its buffers in host memory.
  At most 2 x 3 x 9,633,792 bytes a communicator, two communicators: 0.108 GiB a rank, about what the planner
  already counts at TP 4 beyond TP 1 off NVLink (``per_extra_rank`` x 2, fitted on H100s). NVLink SHARP, the large
  post-snapshot NCCL amount of an NVSwitch box (the fitted ``tp2``), has no PCIe counterpart.

So no rule in TP size, transport and communicator count moves these boots by their residuals: the RTX PRO 6000's
rank prints 0.35 GiB more non-torch memory than planned where NCCL could add 0.11 at most (its TP communicator alone
would need 14 channels of fresh connections; at twice the logged 2 channels both would hold 0.22), and its
EP twin, with the same communicators, prints 0.11 GiB more pool. The planner is unchanged.
"""

from __future__ import annotations

import math

from model_catalog import get_gpu
from planner.core.units import GiB
from planner.engines.base import EngineReport
from planner.engines.platform import vllm_platform
from tests.fidelity import by_id

RTX_TP4 = "vllm-0.27-4xrtxpro6000-qwen3-235b-a22b-2507-fp8-tp4-32k"
RTX_TP4_EP = "vllm-0.27-4xrtxpro6000-qwen3-235b-a22b-2507-fp8-tp4-ep-32k"
L40S_TP4 = "vllm-0.24-4xl40s-qwen3-coder-30b-a3b-bf16-tp4-32k"

NCCL_LL = 8 * 512 * 8 * 16  # NCCL_LL_LINES_PER_THREAD x NCCL_LL_MAX_NTHREADS x NCCL_STEPS x sizeof(ncclLLFifoLine)
NCCL_LL128 = 120 * 640 * 8 * 8  # NCCL_LL128_ELEMS_PER_THREAD x NCCL_LL128_MAX_NTHREADS x NCCL_STEPS x 8
NCCL_SIMPLE = 1 << 22  # NCCL_BUFFSIZE's default
PCIE_CHANNELS = 2  # public NCCL_DEBUG=INFO logs of PCIe boxes (module docstring)
RECV_CONNECTIONS = 3  # ring's previous rank, tree parent, tree child
MOE_COMMUNICATORS = 2  # the TP group's and the EP group's PyNcclCommunicator


def _report(case_id: str) -> EngineReport:
    report = by_id.result(case_id).report
    assert report is not None
    return report


def _nccl_bound() -> int:
    """The most device memory NCCL's lazily connected collectives can add a PCIe rank of a MoE model at TP 4."""
    return PCIE_CHANNELS * RECV_CONNECTIONS * (NCCL_LL + NCCL_LL128 + NCCL_SIMPLE) * MOE_COMMUNICATORS


def test_a_connection_holds_nine_mib_of_buffers() -> None:
    assert (NCCL_LL, NCCL_LL128, NCCL_SIMPLE) == (524_288, 4_915_200, 4_194_304)
    assert NCCL_LL + NCCL_LL128 + NCCL_SIMPLE == 9_633_792
    assert _nccl_bound() == 115_605_504  # 0.108 GiB


def test_the_planned_tp_term_off_nvlink_already_holds_nccl_pcie_buffers() -> None:
    """Off NVLink the planner adds to TP 1's non-torch memory nothing at TP 2 (``tp2_nccl``: the era's tp1) and
    ``per_extra_rank`` a rank beyond (0.05 GiB, fitted on H100s): 0.100 GiB at TP 4, within 0.01 GiB of NCCL's bound."""
    for case_id, gpu in ((RTX_TP4, "rtx-pro-6000-blackwell"), (L40S_TP4, "l40s")):
        profile, platform = by_id.vllm_profile(case_id), vllm_platform(get_gpu(gpu))
        assert platform.peer_access and not platform.nvlink_collectives
        tp1, tp2, tp4 = (profile.non_torch_bytes(tp, 1, platform) for tp in (1, 2, 4))
        assert tp2 == tp1
        assert tp4 - tp1 == 107_374_182
        assert abs(tp4 - tp1 - _nccl_bound()) < 0.01 * GiB


def test_the_rtx_pro_6000_tp4_miss_is_non_torch_memory_nccl_cannot_hold() -> None:
    """Worker_TP1's line: 56.89 GiB consumed (weights + non-torch), 0.76 peak activation (the graph estimate in it,
    ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` on by default, 0.27.1 ``envs.py:2018-2019``), 27.85 GiB of pool
    (``gpu_worker.py:751-789``); Worker_TP0 loaded 55.19 GiB. Planned: activation and graph estimate 0.76 (within
    0.01), weights within 0.01 (0.06 under, 56,623,104 bytes, until the 2507 checkpoint was catalogued with its
    262,144 RoPE positions, 2026-12-07: tests/fidelity/test_qwen3_2507_positions.py), non-torch 1.35 GiB (0.35 the
    TP 4 term, 1.00 the persistent MoE workspace) where the rank printed 1.70: 0.35 GiB under, three times NCCL's
    bound."""
    report = _report(RTX_TP4)
    printed_consumed, printed_activation, printed_weights = 56.89, 0.76, 55.19
    assert abs((report.activation_bytes + report.cuda_graph_bytes) / GiB - printed_activation) < 0.01
    assert abs(printed_weights - report.weights_bytes / GiB) < 0.01
    non_torch_miss = printed_consumed - printed_weights - report.non_torch_bytes / GiB
    assert abs(non_torch_miss - 0.35) < 0.01
    assert non_torch_miss > 3 * _nccl_bound() / GiB
    # the EP group's communicator runs no collective after its warm-up in a boot without expert parallelism, so the TP
    # communicator alone would need 14 channels of three fresh connections (PCIe boxes log 2)
    per_channel = RECV_CONNECTIONS * (NCCL_LL + NCCL_LL128 + NCCL_SIMPLE)
    assert math.ceil(non_torch_miss * GiB / per_channel) == 14


def test_the_ep_twin_holds_the_same_communicators_and_prints_more_pool() -> None:
    """With ``--enable-expert-parallel`` the same four cards build the same TP and EP communicators; the planner
    plans the two boots alike (+0.33 and +0.22 GiB; +0.38 and +0.27 before the 2507 checkpoint's RoPE positions);
    the post's table prints 27.85 and 27.96 GiB: 0.11 apart, by what the expert-parallel layers hold, not by a
    communicator."""
    plain, ep = by_id.result(RTX_TP4), by_id.result(RTX_TP4_EP)
    assert plain.report is not None and ep.report is not None
    assert plain.report.available_kv_cache_bytes_per_gpu == ep.report.available_kv_cache_bytes_per_gpu
    assert plain.kv_error_gib is not None and ep.kv_error_gib is not None
    assert (round(plain.kv_error_gib, 2), round(ep.kv_error_gib, 2)) == (0.33, 0.22)
