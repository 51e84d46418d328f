"""bench/fold_drift.py: which fitted vLLM constant a leave-one-family-out fold moves, and which start-ups it moves
(issue 20). At 366efd3 the family-out median (0.315 GiB over the 140 vLLM >= 0.22 start-ups with a KV figure) is
set by two fitted amounts: the Windows per-process amount (1.18 GiB; 0.90 without the Qwen3.5/3.6/3.8 hybrids,
whose nine WSL2 RTX 5090 start-ups then move +0.28 GiB each) and the encoder's non-torch per item token (51,796
bytes; 35,532 without the hybrid MoEs, moving each of their start-ups that profile the tower at TP 1 +0.25 GiB).
Tolerances: 0.01 GiB on amounts and moves (the planner's other terms move these by a few MiB)."""

from __future__ import annotations

import pytest

from bench.calibrate import fit
from bench.fidelity_cases import load_cases
from bench.fold_drift import family_drift, lines, moved_fields
from planner.core.units import GiB

TOLERANCE_GIB = 0.01


def test_moved_fields_skip_the_fit_record() -> None:
    shipped = fit(load_cases())
    moved = shipped.model_copy(update={"windows_non_torch": 0, "fit": {}})
    assert moved_fields(shipped, moved) == ["windows_non_torch"]


def test_hybrid_moe_fold_moves_the_encoder_amount() -> None:
    cases = load_cases()
    drifts = {d.field: d for d in family_drift("qwen3.5-hybrid-moe", cases, fit(cases))}
    encoder = drifts["encoder_non_torch"]
    assert (encoder.shipped, encoder.refit) == (51_796, 35_532)
    top = dict(encoder.moves)
    assert top["vllm-0.24-rtx5090-qwen36-35b-a3b-nvfp4-club3090-612"] == pytest.approx(0.25, abs=TOLERANCE_GIB)
    assert encoder.refit * 16_384 / GiB == pytest.approx(0.54, abs=TOLERANCE_GIB)  # a Qwen3.5 image, TP 1
    assert lines([encoder])[0].startswith("qwen3.5-hybrid-moe: encoder_non_torch 51796 -> 35532")


def test_hybrid_fold_moves_the_windows_amount() -> None:
    cases = load_cases()
    drifts = {d.field: d for d in family_drift("qwen3.5-hybrid", cases, fit(cases))}
    windows = drifts["windows_non_torch"]
    assert windows.shipped / GiB == pytest.approx(1.18, abs=TOLERANCE_GIB)
    assert windows.refit / GiB == pytest.approx(0.90, abs=TOLERANCE_GIB)
    moved = dict(windows.moves)
    assert moved["vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-fp8kv-32k-seqs8"] == pytest.approx(0.28, abs=TOLERANCE_GIB)
    assert sum(abs(m) > 0.2 for m in moved.values()) == 9
