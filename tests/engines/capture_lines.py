"""The public start-ups that print a CUDA-graph capture ("Graph capturing finished ... took X GiB"), for the tests
that score the planned capture against them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from bench.fidelity_cases import Setup, build_request, load_cases, setup_of
from planner.engines.platform import vllm_platform
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest


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
