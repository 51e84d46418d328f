"""bench/windows_rules.py: the Windows term's form held out by source and by release (issue 20; docs/fidelity.md,
'The Windows term's form, held out by source and by release'). Figures: what the 18 vLLM start-ups planned
``--host windows`` hold beyond Linux's non-torch figure at 6f541ba's constants. Tolerances: 0.01 GiB on a start-up and
on a median (the planner's other terms move these by a few MiB)."""

from __future__ import annotations

import statistics
from functools import cache

import pytest

from bench.fidelity_cases import load_cases
from bench.windows_rules import WindowsPoint, points, records, scores
from bench.windows_split import halves

TOLERANCE_GIB = 0.01
SHARE = "share of the weights (shipped)"


@cache
def _points() -> tuple[WindowsPoint, ...]:
    return tuple(points(load_cases()))


def test_the_forms_held_out() -> None:
    """The share of the weights (7.05 %) against an amount a process (1.20 GiB) and an amount a decoder layer (the
    per-tensor form, 0.022 GiB a layer): 0.155 / 0.157 / 0.155 / 0.329 GiB (in sample / halves / source out / release
    out) against 0.209 / 0.298 / 0.305 / 0.305 and 0.192 / 0.339 / 0.339 / 0.346; a share of the weights and the
    planned activation peak (6.75 %, the per-byte form) 0.207 / 0.210 / 0.207 / 0.267. Release out, 17 of the 18 are
    0.27.1 boots: held out, the share is fitted on the one 0.29.0 boot (5.4 %). Those were 6f541ba's figures; on the
    merged tree since FlashInfer's workspace was placed in FULL's first capture and make calibrate refit the encoder
    amount to 46,417 B and the share to 7.38 % (2026-12-07): the share 0.208 / 0.264 / 0.208 / 0.393 against
    0.207 / 0.361 / 0.368 / 0.353 and 0.175 / 0.283 / 0.287 / 0.299, the per-byte form 0.240 / 0.313 / 0.240 / 0.319:
    the share is still the best held out by halves and by source, no longer in sample (the per-tensor form 0.175)."""
    got = scores(list(_points()), halves()[0])
    # until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session): the share
    # 0.208 / 0.264 / 0.208 / 0.393, a process 0.207 / 0.361 / 0.368 / 0.353, per tensor
    # 0.175 / 0.283 / 0.287 / 0.299, with the peak 0.240 / 0.313 / 0.240 / 0.319 (the WSL2 RTX 5090's MTP boots now
    # hold the drafter's buffers in the plan: the share's first half is fitted lower, 6.25 -> 5.42 %)
    # until a Gated DeltaNet layer's own profile peak and the encoder refit to 37,217 B (2026-12-07, fifty-sixth
    # session): the share 0.233 / 0.408 / 0.250 / 0.393, a process 0.310 / 0.350 / 0.361 / 0.353, per tensor
    # 0.225 / 0.293 / 0.293 / 0.299, with the peak 0.240 / 0.334 / 0.240 / 0.319
    for form, figures in (
        (SHARE, (0.233, 0.416, 0.250, 0.445)),  # 0.155 / 0.157 / 0.155 / 0.329 at 6f541ba
        ("amount a process", (0.248, 0.361, 0.361, 0.406)),  # 0.209 / 0.298 / 0.305 / 0.305
        ("amount a layer (per tensor)", (0.200, 0.214, 0.267, 0.214)),  # 0.192 / 0.339 / 0.339 / 0.346
        ("share of weights + activation peak", (0.250, 0.356, 0.254, 0.377)),  # 0.207 / 0.210 / 0.207 / 0.267
    ):
        assert got[form] == pytest.approx(figures, abs=TOLERANCE_GIB)
    assert sum(p.release == "0.27.1" for p in _points()) == 17


def test_same_model_three_formats() -> None:
    """One WSL2 RTX 4090, one script, Qwen2.5-7B-Instruct in GPTQ-Int4 / FP8-dynamic / BF16 (search-index file id
    61510271682): the same 28 layers hold +0.73 / +0.90 / +1.62 GiB for 5.22 / 8.16 / 14.27 GiB of weights, growing
    with the bytes, not with the tensors (GPTQ loads more tensors a layer and holds the least)."""
    by_id = {p.id: p for p in _points()}
    stem = "vllm-0.27-rtx4090-wsl2-qwen25-7b-instruct-{}-8k-util092"
    for fmt, excess in (("gptq-int4", 0.73), ("fp8-dynamic", 0.90), ("bf16", 1.62)):
        assert by_id[stem.format(fmt)].excess_gib == pytest.approx(excess, abs=TOLERANCE_GIB)
        assert by_id[stem.format(fmt)].layers == 28


def test_printed_splits_hold_none() -> None:
    """The Windows start-ups that print their own split hold nothing beyond Linux's figure: the two WSL2 RTX 4090
    Qwen2.5-0.5B boots -0.08 / -0.10 GiB, and the WSL2 RTX 4080 record under 0.26.0 with
    VLLM_WSL2_ENABLE_PIN_MEMORY=1 (file id 57428438798) -0.19, where the share plans +0.37; those whose excess is what
    the KV budget leaves hold a median +1.39 (+1.34 at 6f541ba)."""
    printed = sorted(round(p.excess_gib, 2) for p in _points() if p.printed)
    assert printed == pytest.approx([-0.10, -0.08], abs=TOLERANCE_GIB)
    left = statistics.median(p.excess_gib for p in _points() if not p.printed)
    # 1.34 at 6f541ba, until FlashInfer's workspace was placed in FULL's first capture and make calibrate refit the
    # encoder amount to 46,417 B (2026-12-07, the merged tree); 1.39 until the MTP drafter's buffers and the encoder
    # refit to 41,312 B (2026-12-07, fifty-fifth session)
    # 1.27 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert left == pytest.approx(1.30, abs=TOLERANCE_GIB)
    (record,) = records(load_cases())
    assert record.excess_gib == pytest.approx(-0.19, abs=TOLERANCE_GIB)
    assert record.printed
