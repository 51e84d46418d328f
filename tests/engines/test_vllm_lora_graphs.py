"""With LoRA on, vLLM captures every CUDA graph once per LoRA case (rules ``lora_graph_cases`` and
``lora_graph_cases_v2``): ``cudagraph_specialize_lora`` (default True, 0.27.1 ``config/compilation.py:660``) gives
the cases ``[0, max_loras + 1]`` without ``--specialize-active-lora`` (0.27.1 ``lora/utils.py:49-64``). The V1
runner's dispatcher keys every PIECEWISE and FULL size by them from 0.11.1 (0.11.1 ``v1/cudagraph_dispatcher.py:72-113``
``lora_cases = [True, False]``; 0.27.1 ``:111-130``, ``:181-233``; none in 0.11.0), and its profiler estimates over
the same keys (0.27.1 ``v1/worker/gpu_model_runner.py:6651-6656``); Model Runner V2 from 0.24.0 (0.24.0
``v1/worker/gpu/lora_utils.py:20-36``, ``cudagraph_utils.py:118-132``; 0.27.1 ``cudagraph_utils.py:224-225``;
0.22.0 and 0.23.0 capture one ``has_lora`` case).

The check: the twenty-first blind set's Qwen3-4B LoRA boots on an RTX 4090 (vLLM 0.27.1, Model Runner V2) capture
102 PIECEWISE + 70 FULL graphs and print "Graph capturing finished ... took 1.28 GiB" at 1, 16 and 64 slots."""

from __future__ import annotations

import pytest

from planner.core.units import GiB
from planner.engines.vllm.versions import vllm_rules
from tests.engines.capture_lines import case_by_id, case_capture

LORA = (
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util080",
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora16-8k-util080",
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora64-8k-util080",
)


def test_the_releases_that_capture_per_lora_case() -> None:
    assert not vllm_rules("0.11.0").lora_graph_cases and vllm_rules("0.11.1").lora_graph_cases
    assert vllm_rules("0.27.1").lora_graph_cases
    assert not vllm_rules("0.23.0").lora_graph_cases_v2 and vllm_rules("0.24.0").lora_graph_cases_v2


@pytest.mark.parametrize("case_id", LORA)
def test_the_lora_boots_capture_twice_the_graphs(case_id: str) -> None:
    """The logs' 102 PIECEWISE + 70 FULL (51 + 35 sizes, 2 LoRA cases) at every slot count."""
    graphs = case_capture(case_by_id(case_id)).graphs
    assert (graphs.piecewise, graphs.full) == (102, 70)


@pytest.mark.parametrize("case_id", LORA)
def test_the_lora_boots_capture_what_the_logs_print(case_id: str) -> None:
    """'took 1.28 GiB' printed, 0.88 planned (-0.40): the graphs counted as printed, each at the fitted per-graph cost,
    on the capture's base off Hopper (0.088 GiB, tests/engines/test_vllm_capture_base.py). With the Hopper-fitted base
    of every card before 2026-12-07 (fifty-first session) it was 1.15 (-0.13), and 0.75 (-0.53) with one LoRA case.
    These are the graph terms alone: the 86 graphs captured with adapters active also hold their LoRA kernels, 0.37 GiB
    more, 1.25 planned (2026-12-07, fifty-second session, tests/engines/test_vllm_lora_kernels.py; not refitted to
    these boots)."""
    case = case_by_id(case_id)
    capture = case_capture(case).capture_bytes
    assert case["reported"]["cuda_graph_gib"] == 1.28
    assert capture / GiB == pytest.approx(0.88, abs=0.005)


def test_without_lora_one_case() -> None:
    """The same boot without adapters captures the 51 + 35 sizes once."""
    case = case_by_id(LORA[0])
    setup = case["setup"]
    plain = {**case, "setup": {**setup, "deployment": {k: v for k, v in setup["deployment"].items() if k != "lora"}}}
    graphs = case_capture(plain).graphs
    assert (graphs.piecewise, graphs.full) == (51, 35)
