"""Leaving a model family out must not move a device-class constant that only that family's start-ups inform.

TP 2 over NCCL alone (GeForce and workstation pairs without vLLM's NVLink collectives) is logged only by the
Qwen3.5/3.6 hybrids (27B dense) and hybrid MoEs (35B-A3B): the median of those figures, less half the graphics
share, came out 0.003 GiB with both and 0.48 GiB without the dense hybrids (the 35B-A3B start-ups hold ~0.5 GiB
more, docs/fidelity.md), which moved every left-out dense hybrid at TP 2 by -0.6 GiB. A rank at TP 2 over NCCL
holds what a TP 1 rank holds (CUDA context, cuBLAS workspaces: the era's datacenter TP 1 base, fitted on every
family) plus NCCL's own buffers, which the planner does not model; the graphics share over it divides with TP."""

from __future__ import annotations

from bench.calibrate import fit
from bench.fidelity_cases import load_cases, setup_of


def test_nccl_tp2_does_not_move_with_the_family_left_out() -> None:
    cases = load_cases()
    full = fit(cases)
    for family in ("qwen3.5-hybrid", "qwen3.5-hybrid-moe"):
        folded = fit([c for c in cases if setup_of(c).family != family])
        for a, b in zip(full.non_torch, folded.non_torch, strict=True):
            assert a.tp2_nccl == b.tp2_nccl == a.tp1 == b.tp1, (family, a.since)
