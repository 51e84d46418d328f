"""The fourth blind set (tests/fidelity/cases/vllm-blind-2026-12d.json): one public page of vLLM 0.28.0 start-ups on
one RTX 5090 (Qwen3-30B-A3B GPTQ-Int4, the offline LLM class), an eager arm and two compiled arms, found on
2026-12-03 after the eager rule (38122de) and scored before anything changed. The eager arm is the rule's first
blind check: within 0.22 GiB (-0.95 without the rule). The compiled arms miss by 1.0-1.2 GiB the other way and are
named in ``bench.fidelity_unmatched``: on that box compiling cost 0.69 GiB of KV against eager, where the planner
charges 2.11."""

from __future__ import annotations

import json

import pytest

from bench.fidelity import run_all
from bench.fidelity_cases import CASES_DIR, build_request, setup_of
from bench.fidelity_unmatched import UNMATCHED
from planner.core.units import GiB
from planner.engines.registry import engine_report
from planner.planning.plan import plan

BLIND = json.loads((CASES_DIR / "vllm-blind-2026-12d.json").read_text(encoding="utf-8"))
BY_ID = {c["id"]: c for c in BLIND}
RESULTS = {r.id: r for r in run_all() if r.id in BY_ID}
EAGER, GRAPH, FP8KV = (f"vllm-0.28-rtx5090-qwen3-30b-a3b-gptq-{arm}-p37" for arm in ("eager", "graph", "fp8kv"))
# (case, KV error GiB now); tolerance 0.01 GiB (the figures' printed precision)
# -1.20 / -0.99 as first scored, -1.21 / -1.00 after the forward's refit (2026-12-04), -1.08 / -1.25 since FlashInfer's
# decode workspace (the FP8 arm's FULL graphs) is planned and the desktop cards' share refitted beside it (2026-12-07)
# -1.08 (GRAPH) before the desktop share's refit on the merged tree
# (2026-12-07, fifty-third session: graphics_extra 1.046 -> 1.032 GiB)
# -1.07 / -1.25 (GRAPH / FP8KV) before the mechanistic non-torch model (2026-12-07, fifty-third session): no desktop
# share
# -0.21 (FP8KV) until FlashInfer's decode workspace sat in FULL's first capture, taken by the larger of the modes'
# first captures, not on top of the shared one (2026-12-07, fifty-fourth session; 0.22.0
# v1/worker/gpu_model_runner.py:6359-6364)
# 0.22 / -0.03 / -0.12 until the Triton sampler's cached buffer and the refit Triton copies (2026-12-07,
# fifty-sixth session, coder3): vocabulary rows for the RTX 5090's 170 multiprocessors
NOW = [(EAGER, 0.14), (GRAPH, -0.11), (FP8KV, -0.20)]
FIRST = {EAGER: 0.22, GRAPH: -1.20, FP8KV: -0.99}


def test_every_case_is_sourced_held_out_and_first_scored() -> None:
    assert len(BLIND) == 3
    for case in BLIND:
        assert "57676316864" in case["source"] and "69803891166" in case["source"]
        assert "blind" in case["setup"]["not_fitted"] and "unseen" in case["setup"]["not_fitted"]
        assert case["unseen_score"]["verdict_right"] is True


@pytest.mark.parametrize(("case_id", "kv_error"), NOW)
def test_the_planner_against_each_log(case_id: str, kv_error: float) -> None:
    result = RESULTS[case_id]
    assert result.kv_error_gib == pytest.approx(kv_error, abs=0.01)
    assert BY_ID[case_id]["unseen_score"]["kv_error_gib"] == pytest.approx(FIRST[case_id], abs=0.005)
    assert result.verdict_right
    assert (case_id in UNMATCHED) == (abs(kv_error) > 0.5)


def test_compiling_costs_less_on_that_box_than_the_planner_charges() -> None:
    """Printed: the eager arm holds 11.03 GiB of KV, the compiled one 10.34 (0.69 less, the same 16.66 / 16.7 GiB
    consumed); the planner's gap is the graph estimate, a larger activation and the compile amount (1.05 GiB since
    FlashInfer's decode workspace is planned beside it, 2026-12-07: 2.11 GiB of gap with 1.17 before; 1.99 until the
    mechanistic non-torch model planned no desktop share, the same day: 0.94 now)."""

    def kv(case_id: str) -> float:
        request = build_request(BY_ID[case_id], setup_of(BY_ID[case_id]))
        return engine_report(request, plan(request)).available_kv_cache_bytes_per_gpu / GiB

    printed = BY_ID[EAGER]["reported"]["kv_cache_gib"] - BY_ID[GRAPH]["reported"]["kv_cache_gib"]
    assert printed == pytest.approx(0.69, abs=0.005)
    assert kv(EAGER) - kv(GRAPH) == pytest.approx(0.94, abs=0.02)
