"""The LoRA kernels a CUDA graph captured with adapters active holds (:mod:`planner.engines.vllm.lora_graphs`).

The measurement: alexostapiuk11/coldstart-recon-worker ``fixtures/a5/lora-N64-specialize.json`` (vLLM 0.27.1, Qwen3-4B,
RTX 4090, util 0.80, 64 slots, ``--specialize-active-lora``) logs "Capturing CUDA graphs (PIECEWISE): 100% ... 459/459",
then "Capturing CUDA graphs (FULL): 0/315" and "memory allocation failed with OOM ... (free: 4653056, ...)", after
"Model loading took 12.49 GiB" and "Available KV cache memory: 5.89 GiB"; the same settings without specialization
(``fixtures/a5/lora-N64-restart.json``) print "Free memory on device (22.64/23.52 GiB) on startup ... 12.78 GiB for
consumed memory". The held-out check: the five boots that print "took 1.28 GiB" (tests/fidelity, blind set 2026-12t)."""

from __future__ import annotations

from typing import Any

import pytest

from model_catalog import get_model
from planner.core.units import GiB
from planner.engines.vllm.graphs import GraphSet
from planner.engines.vllm.lora_graphs import LORA_KERNEL_BYTES, lora_graph_bytes, lora_graph_kernels
from planner.engines.vllm.profile import VllmProfile
from tests.engines.capture_lines import case_by_id, case_capture

QWEN3_4B = "Qwen/Qwen3-4B"
LINES = (  # the boots that print their capture, 86 of 172 graphs with adapters active
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util080",
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora16-8k-util080",
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora64-8k-util080",
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util085",
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util092-cold-sampler-oom",
)
# The specialize boot's capture: 51 sizes x 9 LoRA cases (0, 1, 2, 4, 8, 16, 32, 64, 65: lora/utils.py:49-64)
SPECIALIZE = GraphSet(sizes=tuple(range(51)), piecewise=459, mode="PIECEWISE", lora_active=408)


def _capture_gib(case: dict[str, Any]) -> tuple[GraphSet, float]:
    planned = case_capture(case)
    return planned.graphs, planned.rank_bytes / GiB


def test_qwen3_4b_launches_twelve_lora_kernels_a_layer() -> None:
    """qkv_proj, o_proj, gate_up_proj and down_proj, three kernels each, on 36 layers."""
    model = get_model(QWEN3_4B).spec
    assert lora_graph_kernels(model, 36) == 36 * 4 * 3
    assert lora_graph_kernels(model, 18) == 18 * 4 * 3  # a pipeline stage: its share


def test_the_cost_a_kernel_is_the_specialize_boots() -> None:
    """Free at the capture's start 22.64 - 12.78 - 5.89 = 3.97 GiB, all of it taken by the 459 PIECEWISE graphs (the
    FULL warm-up found 4.4 MiB); less the plain graphs' planned terms, per LoRA kernel of the 408 adapter-active
    graphs: 10,614 bytes (each printed figure's 0.005 GiB of rounding moves it by 31)."""
    profile = VllmProfile(engine_version="0.27.1")
    plain = profile.cudagraph_capture_bytes(36, SPECIALIZE.model_copy(update={"lora_active": 0}))
    assert plain / GiB == pytest.approx(2.228, abs=0.001)
    taken = (22.64 - 12.78 - 5.89) * GiB
    kernels = SPECIALIZE.lora_active * lora_graph_kernels(get_model(QWEN3_4B).spec, 36)
    assert (taken - plain) / kernels == pytest.approx(LORA_KERNEL_BYTES, abs=2)
    assert lora_graph_bytes(SPECIALIZE, 432) / GiB == pytest.approx(1.742, abs=0.001)


@pytest.mark.parametrize("case_id", LINES)
def test_the_held_out_lines(case_id: str) -> None:
    """'took 1.28 GiB' printed (the cold boot's Free memory line prints it too): 1.25 planned (0.88, -0.40, with
    every graph at the plain per-graph cost), 86 of the 102 + 70 graphs with adapters active."""
    case = case_by_id(case_id)
    graphs, capture = _capture_gib(case)
    assert case["reported"]["cuda_graph_gib"] == 1.28
    assert graphs.lora_active == 86 and graphs.total == 172
    assert capture == pytest.approx(1.249, abs=0.002)


def _graphs_that_fit(free_gib: float) -> int:
    """PIECEWISE graphs of the 64-slot specialize set-up captured before ``free_gib`` runs out, in the release's
    order (each size from the largest down, its nine cases 0, 1, ..., 65 in turn: 0.27.1
    ``v1/worker/gpu/cudagraph_utils.py:223-224``, ``:289``, ``:321``)."""
    profile = VllmProfile(engine_version="0.27.1")
    for n in range(1, 460):
        active = n - (n + 8) // 9  # the first of every nine is the case of none
        graphs = SPECIALIZE.model_copy(update={"piecewise": n, "lora_active": active})
        if profile.cudagraph_capture_bytes(36, graphs) + lora_graph_bytes(graphs, 432) > free_gib * GiB:
            return n - 1
    return 459


def test_the_util_085_specialize_boot_runs_out_where_planned() -> None:
    """Held out: the same boot at util 0.85 (``fixtures/a5/budget-085/lora-N64-specialize.json``: "Available KV cache
    memory: 7.06 GiB", then "memory allocation failed with OOM ... (free: 458752 ...)" at "319/459" PIECEWISE graphs)
    found 22.64 - 12.78 - 7.06 = 2.80 GiB for its capture: 320 graphs fit as planned, 318 were captured (the 319th
    ran out, 0.02 GiB sooner); at 0.80 (3.97 GiB, the measurement) all 459."""
    assert _graphs_that_fit(22.64 - 12.78 - 7.06) == 320
    assert _graphs_that_fit(22.64 - 12.78 - 5.89) == 459


def test_without_adapters_nothing_is_added() -> None:
    """The same boot without adapters: no graph with adapters active, the plain capture."""
    case = case_by_id(LINES[0])
    setup = case["setup"]
    plain = {**case, "setup": {**setup, "deployment": {k: v for k, v in setup["deployment"].items() if k != "lora"}}}
    graphs, capture = _capture_gib(plain)
    assert graphs.lora_active == 0 and graphs.total == 86
    assert capture == pytest.approx(0.481, abs=0.002)  # base 0.088 + 84 x the per-graph term at 36 layers
