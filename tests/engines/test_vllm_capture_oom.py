"""Issue 20: a refusal after the KV pool names the step that runs out of the ``1 - util`` headroom, in the order vLLM
runs them (0.27.1 ``v1/worker/gpu_worker.py`` ``compile_or_warm_up_model``): the CUDA-graph capture (:717), then the
sampler warm-up (:795 Model Runner V2, :816 V1). The set-up is the twenty-first blind set's warm RTX 4090 restart
(Qwen3-4B, one LoRA slot, 500 MiB held by another process), which ran out of memory capturing its FULL graphs at
util 0.92 (tests/fidelity/cases/vllm-blind-2026-12t.json). With every graph at the plain per-graph cost (0.88 GiB) it
kept 0.18 GiB after the capture and was planned to start at 0.92; with the LoRA kernels of the 86 graphs captured
with adapters active (1.25 GiB, tests/engines/test_vllm_lora_kernels.py) it refuses there, as its log does, and the
steps are met a little lower."""

from __future__ import annotations

from typing import get_args

import pytest

from bench.fidelity_cases import build_request, load_cases, setup_of
from planner.assessment.alternatives import nearest_fitting
from planner.assessment.assess import assess
from planner.assessment.batch_lever import with_max_num_seqs
from planner.assessment.words import REFUSALS, refusal
from planner.core.overhead import FailureKind
from planner.engines.registry import engine_report
from planner.planning.plan import PlanRequest, plan

CASE = "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util092-capture-oom"


def _request(util: float) -> PlanRequest:
    case = next(c for c in load_cases() if c["id"] == CASE)
    request = build_request(case, setup_of(case))
    profile = request.overhead.model_copy(update={"gpu_memory_utilization": util})
    return request.model_copy(update={"overhead": profile})


@pytest.mark.parametrize(
    ("util", "kind"),
    [
        (0.89, None),  # 0.517 GiB left after the capture, Model Runner V2's warm-up peak 0.511 (engines/vllm/warmup.py)
        (0.91, "sampler-oom"),  # 0.047 GiB left after the capture: the sampler warm-up runs out
        (0.92, "graph-capture-oom"),  # 1.06 GiB left after the pool for a 1.25 GiB capture (the log's util)
    ],
)
def test_the_first_step_out_of_headroom_is_named(util: float, kind: str | None) -> None:
    request = _request(util)
    assert engine_report(request, plan(request)).failure_kind == kind


def test_the_capture_refusal_says_the_engine_error_and_both_figures() -> None:
    request = _request(0.92)
    report = engine_report(request, plan(request))
    assert report.failure == (
        "torch.AcceleratorError: CUDA error: out of memory (in capture_model): the CUDA graphs take 1.25 GiB per GPU "
        "where 1.06 GiB is free after the KV cache. Lower gpu_memory_utilization or max_num_seqs, or use "
        "--enforce-eager."
    )
    assert refusal(report) == REFUSALS["graph-capture-oom"] + "."


def test_every_failure_kind_has_words() -> None:
    """Each kind an engine report or a parsed log may name is said in words on every page (no fallback)."""
    assert set(get_args(FailureKind)) <= set(REFUSALS)


def test_fewer_sequences_or_a_lower_fraction_cure_the_capture_refusal() -> None:
    """Fewer sequences capture fewer graph sizes and a lower memory fraction leaves the capture more of the card, as
    for the sampler (:data:`planner.assessment.batch_lever.CURES`, :data:`planner.assessment.search.LOWER_CURES`):
    both are offered (none was before), the largest batch that starts first; one sequence more clears the capture
    and runs out in the sampler warm-up after it."""
    refused = assess(_request(0.92), 1)
    assert refused.report is not None and refused.report.failure_kind == "graph-capture-oom"
    offered = nearest_fitting(_request(0.92), 1)
    assert [a.change for a in offered] == [
        "--max-num-seqs 127 (the largest that starts)",  # 127 warm-up rows (warmup.py:215-219), 183 before it
        "memory fraction 0.89 (--gpu-memory-utilization)",
    ]
    # (True, 11), (True, 10) before the mechanistic non-torch model (2026-12-07, fifty-third session)
    assert [(a.assessment.fits, a.assessment.conversations) for a in offered] == [(True, 12), (True, 11)]
    above = assess(with_max_num_seqs(_request(0.92), 128), 1)
    assert above.report is not None and above.report.failure_kind == "sampler-oom"


def test_the_headroom_note_states_the_capture_the_refusal_weighs() -> None:
    """One answer: the note on graphs captured in the ``1 - util`` headroom states the capture the check weighs (1.25
    GiB here), not the profiler's estimate (1.39 GiB, which Model Runner V2 does not take from the budget)."""
    request = _request(0.92)
    report = engine_report(request, plan(request))
    (note,) = [n for n in report.notes if "are captured after KV sizing" in n]
    assert note.startswith("CUDA graphs (~1.25 GiB planned) are captured after KV sizing")
    assert "the CUDA graphs take 1.25 GiB per GPU" in (report.failure or "")
