"""The CUDA-graph estimate read from the worker's utilization notice when the log prints no "Estimated CUDA graph
memory" line (Model Runner V2, the default from 0.31, prints none: 0.31.0 ``v1/worker/gpu/cudagraph_utils.py``
``profile_cudagraph_memory`` logs nothing). The notice is ``current_util - estimate / total`` rounded to four
places, ``total`` the init snapshot's device total the "Free memory on device (free/total GiB)" line prints
(0.31.0 ``v1/worker/gpu_worker.py:697-718``, the same form from 0.22.0 ``:472-490``), so the estimate comes back to
within half a unit of the fourth place times the total (0.0096 GiB on a 191.69 GiB MI300X)."""

from __future__ import annotations

import pytest

from bench.fidelity_cases import load_cases
from planner.sources.logs import parse_log

CASES = {c["id"]: c for c in load_cases()}
ROCM = {  # the printed notice (current - equivalent utilization) x 191.69 GiB; the capture the usage line prints
    "vllm-0.31-rocm-mi300x-gemma4-e4b-bf16-32k": (4.62, 4.59),  # (0.9000 - 0.8759) x 191.69 = 4.6197
    "vllm-0.31-rocm-mi300x-gemma4-26b-a4b-bf16-32k": (3.41, 3.36),  # (0.9000 - 0.8822) x 191.69 = 3.4121
    "vllm-0.31-rocm-mi300x-gemma4-31b-bf16-32k": (6.54, 6.45),  # (0.9000 - 0.8659) x 191.69 = 6.5366
}
NOTICE_TOLERANCE_GIB = 0.01  # half of 1e-4 utilization on the 191.69 GiB device, and the printed two places


@pytest.mark.parametrize("case_id", sorted(ROCM))
def test_model_runner_v2_estimate_from_the_utilization_notice(case_id: str) -> None:
    """The ROCm MI300X start-ups (vLLM 0.31.1rc1, Model Runner V2) print their estimate only through the notice; the
    "Actual usage ... GiB for CUDAGraph memory" figure is the capture after KV sizing (``cuda_graph_memory_bytes``,
    0.31.0 ``gpu_worker.py:877-880``, ``:943``), not the estimate the budget subtracted."""
    estimate, capture = ROCM[case_id]
    parsed = parse_log("\n".join(CASES[case_id]["verbatim"]))
    assert parsed.cuda_graph_gib == capture
    assert parsed.cuda_graph_estimate_gib == pytest.approx(estimate, abs=NOTICE_TOLERANCE_GIB)


def test_notice_gives_back_a_printed_estimate() -> None:
    """Held out: the GB10 start-up at 0.27 prints "Estimated CUDA graph memory: 1.94 GiB total" (and the pool line's
    "1.94 GiB (estimated)") beside the notice with its 119.63 GiB total; without those two lines the notice alone
    gives the estimate back."""
    lines = CASES["vllm-0.27-gb10-qwen38-27b-bf16-768k-yarn-noprefix"]["verbatim"]
    assert parse_log("\n".join(lines)).cuda_graph_estimate_gib == 1.94
    stripped = [line for line in lines if "Estimated CUDA graph memory" not in line and "(estimated)" not in line]
    parsed = parse_log("\n".join(stripped))
    assert parsed.cuda_graph_estimate_gib == pytest.approx(1.94, abs=0.01)  # 0.0162 x 119.63 = 1.938


def test_no_total_no_estimate() -> None:
    """Without the device total the notice's utilization delta cannot be turned into bytes: nothing is guessed."""
    notice = (
        "INFO [gpu_worker.py:741] CUDA graph memory profiling is enabled (default since v0.21.0). The current "
        "--gpu-memory-utilization=0.9000 is equivalent to --gpu-memory-utilization=0.8759 without CUDA graph memory "
        "profiling. To maintain the same effective KV cache size as before, increase --gpu-memory-utilization to "
        "0.9241. To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0."
    )
    parsed = parse_log(notice + "\nINFO [gpu_worker.py:726] Available KV cache memory: 149.34 GiB")
    assert parsed.cuda_graph_estimate_gib is None
    assert parsed.cudagraph_in_budget
