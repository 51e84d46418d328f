"""The public start-ups that print a CUDA-graph capture ("Graph capturing finished ... took X GiB"), for the tests
that score the planned capture against them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from bench.fidelity_cases import Setup, build_request, load_cases, setup_of
from planner.engines.base import engine_total_bytes
from planner.engines.platform import vllm_platform
from planner.engines.vllm.graphs import GraphSet
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.split_accum import split_accum_bytes
from planner.engines.vllm.stage import stage_graphs
from planner.planning.plan import PlanRequest, plan


def capture_lines(
    since: tuple[int, int, int], leave_out: frozenset[str] = frozenset()
) -> Iterator[tuple[Setup, PlanRequest, VllmProfile, float]]:
    """Each case that prints a capture ("Graph capturing finished ... took X GiB") on a discrete CUDA device under
    vLLM V1 ``since`` a release, but the ids in ``leave_out``: its set-up, request, profile and the printed GiB."""
    for case in load_cases():
        if case["id"] in leave_out:
            continue
        printed = case["reported"].get("cuda_graph_gib")
        setup = setup_of(case)
        if printed is None or printed <= 0 or setup.engine != "vllm" or setup.out_of_scope:
            continue
        request = build_request(case, setup)
        profile = request.overhead
        platform = vllm_platform(request.gpu)
        if not isinstance(profile, VllmProfile) or profile.version < since or platform.integrated:
            continue
        if platform.runtime == "cuda" and profile.is_v1:
            yield setup, request, profile, printed


def blind_set_ids(name: str) -> frozenset[str]:
    """The case ids of one blind set's file (``tests/fidelity/cases/vllm-blind-<name>.json``)."""
    path = Path(__file__).resolve().parent.parent / "fidelity" / "cases" / f"vllm-blind-{name}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    return frozenset(c["id"] for c in (data if isinstance(data, list) else [data]))


class PlannedCapture(NamedTuple):
    """What a rank of a request is planned to capture: its graphs, the capture the profile's budget counts
    (:meth:`VllmProfile.cudagraph_capture_bytes`, FA3's split accumulators included) and the capture the start-up
    check weighs (:meth:`VllmProfile.rank_capture_bytes`, LoRA's kernels too), in bytes."""

    graphs: GraphSet
    capture_bytes: int
    rank_bytes: int


def planned_capture(request: PlanRequest) -> PlannedCapture:
    """The planned capture of ``request``'s first stage (a vLLM V1 set-up)."""
    profile = request.overhead
    assert isinstance(profile, VllmProfile)
    result = plan(request)
    graphs = stage_graphs(request, profile, engine_total_bytes(request))
    layers = result.stages[0].layers[1] - result.stages[0].layers[0]
    platform, tp, kv = vllm_platform(request.gpu), result.tensor_parallel, request.resolved_kv_dtype
    split = split_accum_bytes(request.model, tp, platform, graphs, kv)
    capture = profile.cudagraph_capture_bytes(layers, graphs, split)
    return PlannedCapture(graphs, capture, profile.rank_capture_bytes(layers, graphs, request.model, tp, platform, kv))


def case_by_id(case_id: str) -> dict[str, Any]:
    """One public case, by its id."""
    return next(c for c in load_cases() if c["id"] == case_id)


def case_capture(case: dict[str, Any]) -> PlannedCapture:
    """:func:`planned_capture` of a case (a public one, or one changed by a test)."""
    return planned_capture(build_request(case, setup_of(case)))
