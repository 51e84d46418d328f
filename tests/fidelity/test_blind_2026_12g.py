"""The seventh blind set (tests/fidelity/cases/vllm-blind-2026-12g.json): three public vLLM 0.31.1 (ROCm) start-ups
of Gemma 4 E4B, 26B-A4B and 31B on one AMD MI300X at 32,768 tokens, found on 2026-12-03 after the sliding-window
rule of 0.26.0 (planner/engines/vllm/in_flight.py) and scored before anything changed.

- Their concurrency is a blind check of that rule: given the KV each prints, the planner's blocks give the printed
  85.28x, 16.84x and 3.70x (one batch in flight would give the 31B 6.45x).
- Their KV budgets were 9.7, 10.8 and 6.3 GiB under: the catalog read MI300X's "192 GB" as 10^9 bytes (178.81 GiB)
  where ROCm reports 191.69 GiB (eight 24 GiB stacks). With the device total these logs print (the catalog's
  engine-visible total now) they are +1.90, +0.80 and +5.31 GiB: ROCm's printed CUDA-graph estimates (3.4-6.5 GiB)
  are well above the planner's (~1 GiB), which was not modelled.
- Since 2026-12-07 they are fitted, keeping their blind scores: HIP's cost per graph captured and its non-torch memory
  on a CDNA 3 device (planner/engines/vllm/hip_graphs.py) are fitted on these three alone, so each is also scored
  with the terms fitted on the other two (leave one out). All three are Gemma 4 at 0.31: the family-out and
  release-out folds fit no HIP term and plan them with the CUDA terms (+4.37 / +4.10 / +6.08 GiB).
"""

from __future__ import annotations

import json

import pytest

from bench.calibrate import fit
from bench.fidelity import case_release, run_all, run_case
from bench.fidelity_cases import CASES_DIR, build_request, load_cases, setup_of
from planner.core.units import GiB
from planner.engines.registry import engine_report
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.versions import VllmConstants
from planner.planning.plan import plan

BLIND = json.loads((CASES_DIR / "vllm-blind-2026-12g.json").read_text(encoding="utf-8"))
BY_ID = {c["id"]: c for c in BLIND}
RESULTS = {r.id: r for r in run_all() if r.id in BY_ID}
# +1.90 / +0.80 / +5.31 until Model Runner V2's sampler was derived from the source (2026-12-04): its fitted term
# (3.9 GiB over 1,024 rows of Gemma's vocabulary) had stood in for the ROCm graph estimates these logs print
# (3.36-6.45 GiB against the planner's 0.74-1.34, fitted on CUDA; its engine note says so); one bf16 copy is 0.5 GiB
# +4.37 / +4.13 / +6.28 until the V slot of the k_eq_v global layers was planned (2026-12-06: 26B-A4B and 31B, 0.03
# and 0.21 GiB more weights; the E4B at 0.31 builds none)
# +4.37 / +4.10 / +6.08 until HIP's terms on a CDNA 3 device were fitted on these three (2026-12-07); the family-out
# and release-out folds still give those (no CDNA 3 start-up outside Gemma 4 at 0.31)
# -0.21 / +0.54 / -0.05 now and +4.37 / +4.10 / +6.08 in the CUDA folds, -0.25 / +0.60 / -0.01 left out of the HIP fit,
# until the allocator's segment tails were counted with the weights (2026-12-07: 0.03 / 0.005 / 0.06 GiB more)
# -0.25 / +0.52 / -0.10 now, +4.34 / +4.08 / +6.02 in the CUDA folds and -0.28 / +0.57 / -0.07 left out of the HIP
# fit before the mechanistic non-torch model (2026-12-07, fifty-third session): Gemma 4's encoder amount, fitted on CUDA
# cards, planned on the MI300X too
# -0.37 / +0.40 / -0.23 now, +4.22 / +3.96 / +5.90 in the CUDA folds and -0.40 / +0.45 / -0.19 left out of the HIP
# fit until the encoder amount was planned on CUDA alone (helper skipmm; HIP's cdna3_non_torch is fitted without it)
NOW = {"e4b": -0.25, "26b-a4b": 0.52, "31b": -0.10}
CUDA_TERMS = {"e4b": 4.34, "26b-a4b": 4.08, "31b": 6.02}
# Each case with the HIP terms fitted on the other two: KV (GiB, planned - printed) and the graph estimate (GiB)
LEAVE_ONE_OUT = {"e4b": (-0.28, 4.67), "26b-a4b": (0.57, 3.37), "31b": (-0.07, 6.56)}


def _short(case_id: str) -> str:
    return case_id.split("gemma4-")[1].removesuffix("-bf16-32k")


def test_every_case_is_sourced_and_fitted_after_its_blind_score() -> None:
    assert len(BLIND) == 3
    for case in BLIND:
        assert "not_fitted" not in case["setup"] and case["setup"]["gpu"] == "mi300x"
        assert case["unseen_score"]["verdict_right"] and "fitted since 2026-12-07" in case["setup"]["mapping_note"]
        assert any(fid in case["source"] for fid in ("71320300970", "71374743897", "71020955969"))


@pytest.mark.parametrize("case_id", sorted(BY_ID))
def test_the_printed_concurrency_from_the_printed_pool(case_id: str) -> None:
    """The planner's pages per request, over the blocks the printed KV holds, give the printed concurrency to the
    printed precision (0.3 %): two batches of 16,384 tokens in flight in every sliding-window layer."""
    result, case = RESULTS[case_id], BY_ID[case_id]
    report = result.report
    assert report is not None
    pages = report.gpu_blocks / report.max_concurrency
    block_bytes = report.available_kv_cache_bytes_per_gpu / report.gpu_blocks
    printed = case["reported"]
    blocks = int(printed["kv_cache_gib"] * GiB / block_bytes)
    assert blocks / pages == pytest.approx(printed["max_concurrency"], rel=0.003)


@pytest.mark.parametrize("case_id", sorted(BY_ID))
def test_kv_as_first_scored_and_now(case_id: str) -> None:
    """As first scored (the catalog's 178.81 GiB MI300X): -9.69 / -10.79 / -6.27 GiB; with the printed device
    total and HIP's fitted terms: -0.25 / +0.52 / -0.10 now (:data:`NOW`; tolerance 0.01 GiB, the printed
    precision), and in the folds that fit no HIP term the CUDA terms' +4.34 / +4.08 / +6.02. Every verdict right."""
    result, case = RESULTS[case_id], BY_ID[case_id]
    assert case["unseen_score"]["kv_error_gib"] < -6
    assert result.kv_error_gib == pytest.approx(NOW[_short(case_id)], abs=0.01)
    assert result.cv_error_gib == pytest.approx(CUDA_TERMS[_short(case_id)], abs=0.01)
    assert result.loro_error_gib == pytest.approx(CUDA_TERMS[_short(case_id)], abs=0.02)
    assert result.verdict_right


@pytest.mark.parametrize("case_id", sorted(BY_ID))
def test_the_graph_estimate_and_non_torch_are_hips(case_id: str) -> None:
    """The planned graph estimate is the printed one within 0.05 GiB (4.62 / 3.41 / 6.54 printed: 2,244 / 1,632 /
    3,162 graphs captured at the fitted ~2.12 MiB each, where the CUDA terms gave 0.98 / 0.74 / 1.34), and the
    planned non-torch memory the printed consumed less weights within 0.15 GiB (2.09 / 3.58 / 2.23): the E4B 2.21,
    0.12 over (2.33, 0.24 over, pinned while the encoder's amount, fitted on CUDA cards, was planned on ROCm too)."""
    report, case = RESULTS[case_id].report, BY_ID[case_id]
    assert report is not None
    printed = case["reported"]
    assert report.cuda_graph_bytes / GiB == pytest.approx(printed["cuda_graph_estimate_gib"], abs=0.05)
    non_torch = printed["consumed_gib"] - printed["weights_gib"]
    assert report.non_torch_bytes / GiB == pytest.approx(non_torch, abs=0.15)


def _left_out_graph_gib(case_id: str, constants: VllmConstants) -> float:
    case = BY_ID[case_id]
    request = build_request(case, setup_of(case))
    profile = request.overhead
    assert isinstance(profile, VllmProfile)
    request = request.model_copy(update={"overhead": profile.model_copy(update={"constants": constants})})
    return engine_report(request, plan(request)).cuda_graph_bytes / GiB


@pytest.mark.parametrize("case_id", sorted(BY_ID))
def test_each_held_out_of_the_hip_fit(case_id: str) -> None:
    """Fitted on the other two MI300X start-ups, each case's graph estimate and KV are as :data:`LEAVE_ONE_OUT`
    says (tolerance 0.01 GiB): graphs within 0.05 GiB of the printed 4.62 / 3.41 / 6.54, KV -0.28 / +0.57 / -0.07."""
    constants = fit([c for c in load_cases() if c["id"] != case_id])
    assert constants.hip_graph_bytes > 0 and constants.cdna3_non_torch > 0
    kv, graph = LEAVE_ONE_OUT[_short(case_id)]
    assert run_case(BY_ID[case_id], constants, constants).cv_error_gib == pytest.approx(kv, abs=0.01)
    assert _left_out_graph_gib(case_id, constants) == pytest.approx(graph, abs=0.01)
    assert graph == pytest.approx(BY_ID[case_id]["reported"]["cuda_graph_estimate_gib"], abs=0.05)


def test_the_folds_without_them_fit_no_hip_term() -> None:
    """All three are Gemma 4 at 0.31: leaving the family or the release out leaves no CDNA 3 start-up, so the HIP
    terms are 0 and the CUDA terms stand; the shipped fit has them (about 2.12 MiB a graph, 0.92 GiB non-torch)."""
    cases = load_cases()
    for fold in (
        [c for c in cases if setup_of(c).family != "gemma-4"],
        [c for c in cases if case_release(c) != "0.31"],
    ):
        constants = fit(fold)
        assert constants.hip_graph_bytes == constants.hip_graph_capture_bytes == constants.cdna3_non_torch == 0
    shipped = fit(cases)
    assert shipped.hip_graph_bytes / 2**20 == pytest.approx(2.12, abs=0.01)
    assert shipped.cdna3_non_torch / GiB == pytest.approx(0.92, abs=0.01)


def test_the_report_says_what_rocm_start_ups_showed() -> None:
    """An MI300X's vLLM report says HIP's terms are fitted on this set (not that they are unmodelled); another AMD
    device's, the Strix Halo's, quotes what the set showed beside the CUDA terms planned there; a CUDA card's and an
    eager start-up's say nothing."""
    mi300x = RESULTS["vllm-0.31-rocm-mi300x-gemma4-31b-bf16-32k"].report
    assert mi300x is not None
    note = next(n for n in mi300x.notes if n.startswith("ROCm:"))
    assert "are fitted on three public vLLM 0.31 start-ups on one MI300X" in note and "not modelled" not in note
    strix = next(r for r in run_all() if r.id == "vllm-0.28-strixhalo-qwen38-27b-bf16-262k-util092").report
    assert strix is not None and any(n.startswith("ROCm: three public vLLM 0.31 start-ups") for n in strix.notes)
    b300 = next(r for r in run_all() if r.id == "vllm-0.26-b300-gemma4-31b-it-bf16-16k").report
    assert b300 is not None and not any(n.startswith("ROCm:") for n in b300.notes)
    b300 = next(r for r in run_all() if r.id == "vllm-0.26-b300-gemma4-31b-it-bf16-16k").report
    assert b300 is not None and not any(n.startswith("ROCm:") for n in b300.notes)
