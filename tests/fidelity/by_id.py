"""Public fidelity cases by id, each run once: what the tests that read a case's terms against an engine's source
look a case up by (its record, its scored result, the vLLM profile it is planned with)."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from bench.fidelity import run_case
from bench.fidelity_cases import build_request, load_cases, setup_of
from bench.fidelity_result import CaseResult
from planner.engines.vllm.profile import VllmProfile


@cache
def _cases() -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in load_cases()}


def case(case_id: str) -> dict[str, Any]:
    """The public case ``case_id`` (shared: a test that changes it changes a copy)."""
    return _cases()[case_id]


@cache
def result(case_id: str) -> CaseResult:
    """The case scored as ``bench.fidelity`` scores it, once (on a copy of its record)."""
    return run_case(copy.deepcopy(case(case_id)))


def vllm_profile(case_id: str) -> VllmProfile:
    """The vLLM profile the case's request is planned with."""
    profile = build_request(case(case_id), setup_of(case(case_id))).overhead
    assert isinstance(profile, VllmProfile)
    return profile
