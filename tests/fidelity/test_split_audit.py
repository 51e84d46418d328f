"""bench/split_audit.py reads the split each public start-up prints (issue 20): the figures below are the logs' own
(GiB as printed, two decimals; a difference of two printed figures within 0.011)."""

from __future__ import annotations

import pytest

from bench.fidelity_cases import load_cases
from bench.split_audit import audit, era, printed_split, summary

PRINTED = 0.011


def _case(case_id: str) -> dict:  # type: ignore[type-arg]
    return next(c for c in load_cases() if c["id"] == case_id)


@pytest.mark.parametrize(
    ("case_id", "activation", "with_graphs", "non_torch"),
    [
        # "Actual usage is 56.89 GiB for consumed memory (weights + non-torch), 0.76 GiB for peak activation";
        # "Model loading took 55.19 GiB"
        ("vllm-0.27-4xrtxpro6000-qwen3-235b-a22b-2507-fp8-tp4-32k", 0.76, True, 56.89 - 55.19),
        # the syv-ai RTX 3090 image: 14.73 consumed, 14.26 of weights, 1.09 peak activation
        ("vllm-0.28-rtx3090-qwen38-27b-w4a16-autoround-syvai-131k-util0972", 1.09, True, 14.73 - 14.26),
        # 0.19's DEBUG line: "torch peak memory increase: 2.21GiB; non-torch forward increase memory: 0.24GiB"
        ("vllm-0.19-h100-qwen2-5-7b-instruct-tp1pp1-8192", 2.21, False, 0.24),
    ],
)
def test_printed_split(case_id: str, activation: float, with_graphs: bool, non_torch: float) -> None:
    printed = printed_split(_case(case_id))
    assert printed.activation == pytest.approx(activation, abs=PRINTED)
    assert printed.with_graphs is with_graphs
    assert printed.non_torch == pytest.approx(non_torch, abs=PRINTED)


def test_every_printed_split_has_a_row() -> None:
    rows = audit()
    ids = {r.id for r in rows}
    assert "vllm-0.27-rtx4090-wsl2-qwen25-0.5b-2k-util085" in ids
    assert {r.host for r in rows} >= {"datacenter", "desktop?", "rented", "wsl2", "unified", "rocm"}
    assert all(era(r.release) for r in rows)
    assert any(line.startswith("non-torch: all") for line in summary(rows))


def test_working_space_is_what_the_budget_leaves() -> None:
    """The syv-ai RTX 3090 (util 0.972 of 23.56 GiB, the budget 22.9 as printed): 14.26 GiB of weights and the KV
    budget leave the working space; planned - printed is -(KV difference + weights difference)."""
    row = next(r for r in audit() if r.id == "vllm-0.28-rtx3090-qwen38-27b-w4a16-autoround-syvai-131k-util0972")
    assert row.d_kv is not None and row.d_weights is not None and row.d_working is not None
    assert row.d_working == pytest.approx(-(row.d_kv + row.d_weights), abs=0.002)
