"""The CUDA-graph terms of ``make calibrate`` (:mod:`bench.calibrate`): which printed graph figures are fitted, the
estimate's and the capture's least-squares terms (less FlashAttention 3's split accumulators on Hopper), and HIP's
cost per graph captured on CDNA 3 devices (:mod:`bench.calibrate_hip`)."""

from __future__ import annotations

import statistics
from typing import Any

from bench.calibrate_hip import hip_per_graph
from bench.calibrate_terms import fit_graphs
from planner.core.units import GiB
from planner.engines.base import engine_total_bytes
from planner.engines.platform import vllm_platform
from planner.engines.vllm.graphs import GraphSet, graph_capture_total_bytes
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.split_accum import split_accum_bytes
from planner.engines.vllm.stage import stage_graphs
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult

Case = dict[str, Any]
VllmCase = tuple[Case, PlanRequest, PlanResult, VllmProfile]
ESTIMATE = "cuda_graph_estimate_gib"  # the printed "Estimated CUDA graph memory" (Setup.fitted_figures)


def graphs_of(request: PlanRequest, profile: VllmProfile) -> GraphSet:
    return stage_graphs(request, profile, engine_total_bytes(request))


def graph_point(request: PlanRequest, reported: dict[str, Any], q_est: bool) -> bool:
    """A printed graph figure to fit: positive, and not from a unified-memory device. vLLM measures both the
    estimate and the capture as drops of ``cudaMemGetInfo`` free memory (V1: 0.24.0 ``v1/worker/gpu_model_runner.py``
    :6513-6552 and :6618-6636; Model Runner V2: 0.29.0 ``v1/worker/gpu/model_runner.py`` :921-958,
    ``cudagraph_utils.py`` :385-398), which on unified memory moves with whatever the host does meanwhile: the GB10
    start-ups print -0.81 GiB (0.24, TP 1) and 5.07 (0.29, TP 2, from the worker's utilization notice), where the
    planner's graph model gives 0.18 and 1.38."""
    value = reported.get(ESTIMATE if q_est else "cuda_graph_gib")
    platform = vllm_platform(request.gpu)
    return value is not None and value > 0 and not platform.integrated and not platform.cdna3  # HIP's: calibrate_hip


def _split_gib(request: PlanRequest, result: PlanResult, graphs: GraphSet) -> float:
    """FlashAttention 3's split-KV accumulators a printed capture holds on Hopper (derived, not fitted:
    :mod:`planner.engines.vllm.split_accum`), taken off before the capture's graph terms are fitted."""
    platform = vllm_platform(request.gpu)
    return split_accum_bytes(request.model, result.tensor_parallel, platform, graphs, request.resolved_kv_dtype) / GiB


def graph_fit(vllm: list[VllmCase]) -> tuple[tuple[int, int, int], tuple[int, int, int, int]]:
    """(estimate, capture) graph terms from the printed positive figures; the capture's as ``(base, per layer, per
    graph and layer, Hopper's share of the base)`` (:func:`split_hopper_base`)."""
    layers = [
        (r.stages[0].layers[1] - r.stages[0].layers[0], graphs_of(q, p), c["reported"], p, q, r) for c, q, r, p in vllm
    ]
    estimate = fit_graphs(
        [
            (n, g.extra_graphs, rep[ESTIMATE])
            for n, g, rep, _, q, _ in layers
            if graph_point(q, rep, True) and not vllm_platform(q.gpu).sm100_family  # sm100_graph_fit
        ]
    )
    recent = [row for row in layers if (0, 18, 0) <= row[3].version < (0, 27, 0) and graph_point(row[4], row[2], False)]
    capture = fit_graphs(
        [(n, g.extra_graphs, rep["cuda_graph_gib"] - _split_gib(q, r, g)) for n, g, rep, _, q, r in recent]
    )
    others = [(n, g, rep["cuda_graph_gib"]) for n, g, rep, _, q, _ in layers if _off_hopper(q, rep)]
    return estimate, split_hopper_base(capture, others)


def sm100_graph_fit(lines: list[VllmCase], estimate: tuple[int, int, int]) -> int:
    """The estimate's bytes per graph beyond the first of each mode and per layer on compute capability 10.x
    (datacenter Blackwell): the median over the estimates printed there of what each holds beyond the shared first
    capture (``estimate``'s base and per-layer terms; no FlashInfer decode workspace on 10.x,
    :func:`planner.engines.vllm.graphs.graph_set`), divided by its layers and those graphs. vLLM's profiler measures
    a capture as a drop of free memory with no device branch (0.26.0 ``v1/worker/gpu_model_runner.py:6576``,
    ``:6660-6680``; 0.31.0 ``v1/worker/gpu/cudagraph_utils.py:854-966``), so what a graph costs is the driver's and
    the attention kernels' (FlashInfer / TRT-LLM there, FlashAttention 3 on Hopper, 2 on Ampere and Ada). 0 without
    such a line: the shared term (:meth:`planner.engines.vllm.profile_graphs.VllmGraphs.cudagraph_estimate_bytes`)."""
    base, per_layer, _ = estimate
    costs = []
    for c, q, r, p in lines:
        graphs, layers = graphs_of(q, p), r.stages[0].layers[1] - r.stages[0].layers[0]
        if vllm_platform(q.gpu).sm100_family and graph_point(q, c["reported"], True) and graphs.extra_graphs:
            left = c["reported"][ESTIMATE] * GiB - base - per_layer * layers
            costs.append(left / (layers * graphs.extra_graphs))
    return max(0, round(statistics.median(costs))) if costs else 0


def _off_hopper(request: PlanRequest, reported: dict[str, Any]) -> bool:
    """A printed capture to fit the base on: of a CUDA device that is not compute capability 9.x."""
    capability = vllm_platform(request.gpu).capability
    return graph_point(request, reported, False) and capability is not None and capability[0] != 9


def split_hopper_base(
    capture: tuple[int, int, int], others: list[tuple[int, GraphSet, float]]
) -> tuple[int, int, int, int]:
    """The capture's graph terms fitted on the 0.18-0.26 lines, which are H100 lines but one, all at 51 + 51
    graphs: their base and their per-graph cost are one intercept there. The base is the median of what the
    capture lines of other devices (every release; ``others``: layers, graphs, printed GiB) print beyond the
    per-layer and per-graph terms, between 0 and the fitted base; the rest of that base is Hopper's
    (:func:`planner.engines.vllm.profile_graphs.hopper_capture_bytes`). No such line: all of it is everyone's."""
    base, per_layer, per_graph = capture
    if not others:
        return base, per_layer, per_graph, 0
    residuals = [gib * GiB - graph_capture_total_bytes(g, n, 0, per_layer, per_graph) for n, g, gib in others]
    off = min(base, max(0, round(statistics.median(residuals))))
    return off, per_layer, per_graph, base - off


def hip_graph_fit(vllm: list[VllmCase]) -> tuple[int, int]:
    """(estimate, capture) bytes per graph captured on CDNA 3 devices (:func:`bench.calibrate_hip.hip_per_graph`)."""
    points = [
        (r.stages[0].layers[1] - r.stages[0].layers[0], graphs_of(q, p), c["reported"])
        for c, q, r, p in vllm
        if vllm_platform(q.gpu).cdna3
    ]
    return (
        hip_per_graph((n, g, rep.get("cuda_graph_estimate_gib")) for n, g, rep in points),
        hip_per_graph((n, g, rep.get("cuda_graph_gib")) for n, g, rep in points),
    )
