"""bench/share_split.py: the desktop share's mechanistic candidate (the encoder's non-torch memory per item token, the
one-RTX-3090 document's boots cold as its method states, no desktop share), measured over the vLLM >= 0.22 start-ups
and split by host, compile cache and model kind (issue 20; docs/fidelity.md, 'The share candidate split by host').
Not shipped: it trades a verdict, and the start-ups it over-plans are found on every host. The tolerances (0.01 GiB on
medians, 0.02 on a start-up) are for the planner's other terms, which move these figures by a few MiB."""

from __future__ import annotations

import statistics

import pytest

from bench.calibrate import fit
from bench.fidelity import run_all
from bench.fidelity_cases import load_cases
from bench.fidelity_tables import recent
from bench.share_split import (
    candidate_case,
    candidate_runs,
    held_ids,
    over_planned,
    restated_runs,
    rows,
    split,
    summary,
)
from planner.core.units import GiB
from planner.engines.vllm.versions import fitted_constants

MEDIAN_TOLERANCE_GIB = 0.01
CASE_TOLERANCE_GIB = 0.02


def test_the_candidate_is_not_shipped() -> None:
    """The shipped constants hold the desktop share and no encoder amount."""
    constants = fitted_constants()
    assert constants.encoder_non_torch == 0
    assert constants.graphics_extra > 0


def test_candidate_medians_and_the_verdict_it_trades() -> None:
    """Over the 135 vLLM >= 0.22 start-ups: in sample / family out / release out 0.353 / 0.379 / 0.383 -> 0.291 /
    0.335 / 0.335 GiB, the 98 held-out blind start-ups 0.373 -> 0.320; verdicts 139 / 144 either way, one traded."""
    held = held_ids()
    head, candidate = summary(recent(run_all()), held), summary(candidate_runs(), held)
    # 0.363 / 0.390 / 0.383 -> 0.291 / 0.337 / 0.337 until the A100 Llama-3.1-8B of 0.31 was stated cold (2026-12-07)
    for name, before, after in (("in", 0.353, 0.291), ("family", 0.379, 0.335), ("release", 0.383, 0.335),
                                ("held", 0.373, 0.320)):  # fmt: skip
        assert head[name] == pytest.approx(before, abs=MEDIAN_TOLERANCE_GIB)
        assert candidate[name] == pytest.approx(after, abs=MEDIAN_TOLERANCE_GIB)
    assert head["verdicts"] == candidate["verdicts"] == (139, 144)
    # gained: the RTX 3090 int8-head Qwen3.8-27B at 180k started as logged; lost: the RTX 5090 box's Qwen3-32B-AWQ
    # first boot, refused as logged (its document: the previous container 'was still releasing VRAM')
    assert set(head["wrong"]) - set(candidate["wrong"]) == {
        "vllm-0.27-rtx3090-qwen38-27b-w4a16-autoround-int8lmhead-180k-seqs3-util0972"
    }
    assert set(candidate["wrong"]) - set(head["wrong"]) == {"vllm-0.28-rtx5090-qwen3-32b-awq-util070-8k-first-boot"}


def test_per_host_split() -> None:
    """Median KV error (planned - printed, GiB) per host, HEAD -> candidate: the desktop share fits WSL2 at HEAD and
    over-plans nothing there only because it is there; the rented boots hold none of it."""
    by_host = split(rows(), "host")
    expected = {
        "datacenter": (32, 0.05, -0.05),  # +0.10 at HEAD until the A100 Llama-3.1-8B of 0.31 was stated cold
        "desktop?": (43, 0.01, 0.10),
        "rented": (21, -0.99, 0.05),
        "rocm": (5, -0.05, -0.29),
        "unified": (16, 0.00, 0.00),
        "wsl2": (18, 0.35, 1.27),
    }
    assert set(by_host) == set(expected)
    for host, (n, head, candidate) in expected.items():
        assert by_host[host][0] == n
        assert by_host[host][1] == pytest.approx(head, abs=MEDIAN_TOLERANCE_GIB)
        assert by_host[host][2] == pytest.approx(candidate, abs=MEDIAN_TOLERANCE_GIB)


def test_no_host_splits_the_over_planned_start_ups() -> None:
    """Every desktop-card host holds start-ups the candidate plans within 0.3 GiB and start-ups it over-plans by more
    than 0.9 GiB, on one machine too (one WSL2 RTX 4090, one study's notes, search-index file id 61464053627)."""
    found = rows()
    for host in ("wsl2", "rented", "desktop?"):
        errors = [r.candidate for r in found if r.host == host]
        assert any(abs(e) <= 0.3 for e in errors), host
        assert any(e > 0.9 for e in errors), host
    by_id = {r.id: r for r in found}
    assert by_id["vllm-0.27-rtx4090-wsl2-qwen3-8b-fp8-2k-util090"].candidate == pytest.approx(
        -0.22, abs=CASE_TOLERANCE_GIB
    )
    assert by_id["vllm-0.27-rtx4090-wsl2-qwen3-14b-fp8-8k-util090"].candidate == pytest.approx(
        1.18, abs=CASE_TOLERANCE_GIB
    )


def test_the_over_planned_start_ups_by_cache_and_kind() -> None:
    """The start-ups the candidate over-plans by more than 0.5 GiB beyond HEAD's error: none states a warm cache,
    four state a cold one (the RTX 5090 box, file id 69451098589), the rest state none; text models and
    multimodal models served language-model-only (the cold compile's copy of the table is planned for both), none
    that profiles its encoder."""
    over = [r for r in rows() if r.candidate - r.head > 0.3 and r.candidate > 0.5]
    assert len(over) == 22
    caches = {c: sum(r.cache == c for r in over) for c in ("cold", "warm", "unstated")}
    assert caches == {"cold": 4, "warm": 0, "unstated": 18}
    kinds = {k: sum(r.kind == k for r in over) for k in ("encoder", "lm-only", "text")}
    assert kinds == {"encoder": 0, "lm-only": 6, "text": 16}
    assert statistics.median(r.candidate for r in over) == pytest.approx(1.29, abs=MEDIAN_TOLERANCE_GIB)


def test_the_compile_cache_splits_them_and_no_case_states_it() -> None:
    """The 18 over-planned start-ups that do not state their cache, planned cold instead: median +1.18 -> +0.36 GiB
    (their table's copy, bench.graphics_points); the six unstated desktop-card start-ups the candidate plans within
    0.3 GiB that carry a copy would go to -1.0 to -2.3 (the syv-ai and int8-head RTX 3090 Qwen3.8-27B probes, the
    WSL2 RTX 4090 Qwen3-8B-FP8 and the RTX 4090 Qwen3-8B of 0.24). Neither group's cases state their cache."""
    found = rows()
    over = [r for r in found if r.candidate - r.head > 0.3 and r.candidate > 0.5 and r.cache == "unstated"]
    assert len(over) == 18
    assert statistics.median(r.candidate for r in over) == pytest.approx(1.18, abs=MEDIAN_TOLERANCE_GIB)
    assert statistics.median(r.candidate - r.copy for r in over) == pytest.approx(0.36, abs=MEDIAN_TOLERANCE_GIB)
    desktop = ("wsl2", "rented", "desktop?")
    within = [r for r in found if r.cache == "unstated" and r.host in desktop and abs(r.candidate) <= 0.3 and r.copy]
    assert len(within) == 6
    assert all(-2.3 <= r.candidate - r.copy <= -1.0 for r in within)


def test_head_on_the_restated_mapping() -> None:
    """The one-RTX-3090 document's six first-table boots stated cold (file id 71124810209, 'Method': 'Each run is a
    new container, so torch.compile and CUDA graphs are rebuilt'), the only compile-cache state the unstated
    desktop-card boots' sources give, planned with HEAD's model: its desktop share refitted 1.05 -> 0.81 GiB (they
    hold the cold copy instead), and HEAD gets worse: 0.353 / 0.379 / 0.383 -> 0.450 / 0.506 / 0.495 GiB, held out
    0.373 -> 0.483, verdicts 139 -> 137 / 144 (the document's Qwen3-32B-AWQ and Qwen2.5-32B-AWQ planned to refuse,
    -0.79 and -0.90 GiB: the cold copy and the share both planned), over-planned (> +0.5 GiB) 23 -> 31."""
    held = held_ids()
    head, restated = summary(recent(run_all()), held), summary(restated_runs(), held)
    share = fit([candidate_case(c) for c in load_cases()]).graphics_extra / GiB
    assert fitted_constants().graphics_extra / GiB == pytest.approx(1.05, abs=0.01)
    assert share == pytest.approx(0.81, abs=0.01)
    for name, before, after in (("in", 0.353, 0.450), ("family", 0.379, 0.506), ("release", 0.383, 0.495),
                                ("held", 0.373, 0.483)):  # fmt: skip
        assert head[name] == pytest.approx(before, abs=MEDIAN_TOLERANCE_GIB)
        assert restated[name] == pytest.approx(after, abs=MEDIAN_TOLERANCE_GIB)
    assert restated["verdicts"] == (137, 144)
    assert set(restated["wrong"]) - set(head["wrong"]) == {
        "vllm-0.30-rtx3090-qwen2.5-32b-awq-8k",
        "vllm-0.30-rtx3090-qwen3-32b-awq-8k",
    }
    assert (over_planned(recent(run_all())), over_planned(restated_runs())) == (23, 31)


def test_the_candidate_against_head_on_the_restated_mapping() -> None:
    """On the restated mapping the candidate is right on three start-ups HEAD gets wrong and wrong on one HEAD gets
    right (the RTX 5090 box's Qwen3-32B-AWQ first boot), and over-plans more start-ups (31 -> 38): by the session's
    rule (no verdict traded, the over-planned count not grown) it is not shipped."""
    held = held_ids()
    restated, candidate = summary(restated_runs(), held), summary(candidate_runs(), held)
    assert set(restated["wrong"]) - set(candidate["wrong"]) == {
        "vllm-0.27-rtx3090-qwen38-27b-w4a16-autoround-int8lmhead-180k-seqs3-util0972",
        "vllm-0.30-rtx3090-qwen2.5-32b-awq-8k",
        "vllm-0.30-rtx3090-qwen3-32b-awq-8k",
    }
    assert set(candidate["wrong"]) - set(restated["wrong"]) == {"vllm-0.28-rtx5090-qwen3-32b-awq-util070-8k-first-boot"}
    assert over_planned(candidate_runs()) == 38
