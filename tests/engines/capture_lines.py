"""The public start-ups that print a CUDA-graph capture ("Graph capturing finished ... took X GiB"), for the tests
that score the planned capture against them."""

from __future__ import annotations

from collections.abc import Iterator

from bench.fidelity_cases import Setup, build_request, load_cases, setup_of
from planner.engines.platform import vllm_platform
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest


def capture_lines(since: tuple[int, int, int]) -> Iterator[tuple[Setup, PlanRequest, VllmProfile, float]]:
    """Each case that prints a capture ("Graph capturing finished ... took X GiB") on a discrete CUDA device under
    vLLM V1 ``since`` a release: its set-up, request, profile and the printed GiB."""
    for case in load_cases():
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
