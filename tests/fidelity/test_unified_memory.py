"""Unified memory (DGX Spark GB10): vLLM measures the CUDA-graph estimate as a drop of ``cudaMemGetInfo`` free
memory and the budget's non-KV memory as a drop of the host's MemAvailable (docs/fidelity.md, 'Unified memory'), so
on a GB10 what the host does during the start-up lands in both. The planner predicts the graph estimate from its
discrete-GPU fit and puts the rest in one unified-memory term (``VllmConstants.uma_weights_share``), which must
then be fitted on the same split: the printed estimate of a GB10 start-up is neither a graph point nor taken off
its budget before the share is read."""

from __future__ import annotations

from typing import Any

import pytest

from bench.calibrate import _non_torch_points, _vllm_cases, fit
from bench.calibrate_graphs import graph_point
from bench.fidelity import case_release
from bench.fidelity_cases import build_request, load_cases, setup_of
from planner.engines.vllm.versions import fitted_constants

QWEN_GB10 = "vllm-0.24-gb10-qwen36-27b-nvfp4-mtp2-util0.7"  # printed "Estimated CUDA graph memory: -0.81 GiB"
MINIMAX_GB10 = "vllm-0.29-2xgb10-minimax-m27-awq-util08"  # the worker's notice: 0.80 "equivalent to" 0.758, 0.8417
H100 = "vllm-0.19-h100-llama-3-1-8b-instruct-tp1pp1-8192"
CASES = {c["id"]: c for c in load_cases()}


def _request(case_id: str) -> Any:
    case = CASES[case_id]
    return build_request(case, setup_of(case))


def test_graph_figures_printed_on_unified_memory_are_not_graph_points() -> None:
    gb10 = _request(QWEN_GB10)
    assert not graph_point(gb10, {"cuda_graph_estimate_gib": 5.07}, q_est=True)
    assert not graph_point(gb10, {"cuda_graph_gib": 0.23}, q_est=False)
    assert graph_point(_request(H100), {"cuda_graph_estimate_gib": 0.84}, q_est=True)


def test_the_unified_memory_point_does_not_read_the_printed_estimate() -> None:
    """The GB10 start-up's non-torch point is what its budget leaves beyond the planner's predicted estimate (0.18
    GiB): the same point with the printed -0.81 GiB removed from the case."""
    case = CASES[QWEN_GB10]
    assert case["reported"]["cuda_graph_estimate_gib"] == -0.81
    stripped = {**case, "reported": {k: v for k, v in case["reported"].items() if k != "cuda_graph_estimate_gib"}}
    probe = fitted_constants()
    printed = _non_torch_points(list(_vllm_cases([case])), probe)
    without = _non_torch_points(list(_vllm_cases([stripped])), probe)
    assert len(printed) == 1 and printed == without


def test_the_minimax_estimate_is_the_worker_notice() -> None:
    """0.29.0 ``v1/worker/gpu_worker.py`` :630-650: equivalent = round(util - estimate / total, 4) and suggested =
    round(util + estimate / total, 4), on the GB10's 121.69 GiB; the issue quotes 0.758 and 0.8417 at util 0.80."""
    estimate = CASES[MINIMAX_GB10]["reported"]["cuda_graph_estimate_gib"]
    assert round(0.80 + estimate / 121.69, 4) == 0.8417
    assert round(0.80 - estimate / 121.69, 3) == 0.758


def test_the_default_loader_share_is_three_start_ups_and_two_folds_lose_them() -> None:
    """Issue 20: the 0.27.1 Qwen3.8-27B BF16 pair (default loader) misses by -10.2 / -8.8 GiB with its family left out
    and -10.1 / -8.7 with 0.27 left out, against -1.11 / +0.30 in sample. The constant that moves is
    ``uma_weights_share_lazy``: fitted on three GB10 start-ups (the pair, 0.094 / 0.116, and Qwen3-0.6B, 1.63), so
    the family fold keeps one and the release fold none, and a class with fewer than two takes the median of every
    unified-memory start-up (``bench.calibrate_terms.uma_shares``), 0.29, the read-ahead loaders' figure: 0.18 of
    the pair's 51.08 GiB of weights is the 9.1 GiB the folds lose. Taking the source's 0 for such a class instead
    (vLLM's default loader keeps nothing of its own) was tried on 2026-12-07 and not kept: the pair's folds go to
    +4.8 / +6.2, but the two other default-loader Qwen3.8 Sparks held out of the family fold go from +0.72 / -2.01 to
    +9.06 / +6.08 (docs/fidelity.md, 'The GB10 start-ups against the source, term by term')."""
    cases = load_cases()
    fitted = fitted_constants()
    # 0.1157 until make calibrate refit it beside the Triton sampler's cached buffer (2026-12-07, fifty-sixth session)
    assert (fitted.uma_weights_share_lazy, fitted.uma_weights_share) == (0.1154, 0.2922)
    no_hybrids = fit([c for c in cases if setup_of(c).family != "qwen3.5-hybrid"])
    no_027 = fit([c for c in cases if case_release(c) != "0.27"])
    assert (no_hybrids.uma_weights_share_lazy, no_027.uma_weights_share_lazy) == (0.2934, 0.2922)
    moved = (no_hybrids.uma_weights_share_lazy - fitted.uma_weights_share_lazy) * 51.08
    assert moved == pytest.approx(10.20 - 1.11, abs=0.05)
