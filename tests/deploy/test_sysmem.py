"""Windows' system-memory fallback (:mod:`planner.deploy.sysmem`) beside Model Runner V2's post-capture warm-up
(:mod:`planner.engines.vllm.warmup`), both landed together (issue 20, fifty-third session).

Every Windows start-up of ``tests/fidelity`` classified: the refusals are vLLM's own arithmetic (no CUDA out-of-memory
in the set), and the starts the capture and the source's warm-up leave short of the card after the pool are four WSL2
RTX 4090 boots, 0.03-0.27 GiB short, which started (the fallback's overflow); the cold RunPod (Linux) LoRA boot the
warm-up was read from is refused as logged.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.fidelity_cases import build_request, load_cases, setup_of
from planner.core.units import GiB
from planner.deploy.sysmem import spills_to_system_memory
from planner.engines.registry import engine_report
from planner.engines.vllm import failures
from planner.engines.vllm.failures import clear_samplers
from planner.planning.plan import plan
from tests.engines.sampler_headroom import planned_sampler_headroom

COLD = "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util092-cold-sampler-oom"
# the Windows starts planned beyond the card after the pool: GiB short (the capture and the warm-up less what is free)
SHORT = {
    "vllm-0.27-rtx4090-wsl2-qwen25-0.5b-llmclass-util092": 0.27,
    "vllm-0.27-rtx4090-wsl2-qwen25-7b-instruct-bf16-8k-util092": 0.03,
    "vllm-0.27-rtx4090-wsl2-qwen25-7b-instruct-gptq-int4-8k-util092": 0.03,
    "vllm-0.27-rtx4090-wsl2-qwen25-7b-instruct-fp8-dynamic-8k-util092": 0.03,
}
ARITHMETIC = {"free-memory", "kv-cache-too-small", "no-kv-memory"}  # vLLM's ValueErrors, not a CUDA allocation


def _windows_cases() -> list[dict[str, Any]]:
    """The start-ups planned under Windows (the host a case gives, or the one its printed total points to)."""
    found = []
    for case in load_cases():
        if "wsl" not in case["id"] and "windows" not in json.dumps(case).lower():
            continue
        request = build_request(case, setup_of(case))
        if request.deployment is not None and request.deployment.host == "windows":
            found.append(case)
    return found


def _short(case: dict[str, Any]) -> float:
    (free, need), _ = planned_sampler_headroom(build_request(case, setup_of(case)))
    return (need - free) / GiB


def test_the_rule_is_one_gpu_under_windows() -> None:
    assert spills_to_system_memory("windows", 1)
    assert not spills_to_system_memory("windows", 2)  # the residency failures cited are tensor-parallel loads
    assert not spills_to_system_memory("linux", 1)


def test_every_windows_refusal_is_vllm_arithmetic() -> None:
    cases = _windows_cases()
    assert len(cases) == 25  # vLLM 0.20-0.29 under WSL2 or Docker Desktop
    kinds = sorted(str(c.get("failure_kind")) for c in cases if c.get("failed"))
    assert kinds == ["free-memory", "free-memory", "free-memory", "kv-cache-too-small", "no-kv-memory"]
    assert set(kinds) <= ARITHMETIC


def test_the_starts_short_of_the_card_are_the_four_rtx_4090_boots() -> None:
    short = {}
    for case in _windows_cases():
        if case.get("failed") or case["id"].startswith("vllm-0.29-rtx5080laptop"):  # a placeholder GPU
            continue
        gib = _short(case)
        if gib > 0:
            short[case["id"]] = gib
    assert short.keys() == SHORT.keys()
    for case_id, gib in short.items():
        assert gib == pytest.approx(SHORT[case_id], abs=0.01)


@pytest.mark.parametrize("case_id", sorted(SHORT))
def test_they_start_with_the_fallback_warning(case_id: str) -> None:
    case = next(c for c in load_cases() if c["id"] == case_id)
    request = build_request(case, setup_of(case))
    report = engine_report(request, plan(request))
    assert report.failure is None
    assert any("system-memory fallback" in note for note in report.notes)


@pytest.mark.parametrize("case_id", sorted(SHORT))
def test_without_the_fallback_they_would_be_refused(case_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(failures, "spills", lambda request, result: False)
    case = next(c for c in load_cases() if c["id"] == case_id)
    request = build_request(case, setup_of(case))
    clear_samplers()
    report = engine_report(request, plan(request))
    assert report.failure_kind == "sampler-oom"


def test_the_cold_linux_boot_is_refused_by_the_warmup() -> None:
    case = next(c for c in load_cases() if c["id"] == COLD)
    assert case["failed"] and case["failure_kind"] == "sampler-oom"
    request = build_request(case, setup_of(case))
    clear_samplers()
    report = engine_report(request, plan(request))
    assert report.failure_kind == "sampler-oom"
    assert _short(case) == pytest.approx(0.15, abs=0.01)  # 0.51 GiB of warm-up where 0.36 is planned free
