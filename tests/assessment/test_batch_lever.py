"""The batch lever (vLLM ``--max-num-seqs``, planner.assessment.batch_lever): a hybrid Gated-DeltaNet model in FP8
on 2 x RTX 3090 refuses at vLLM's default 256 sequences ("max_num_seqs (256) exceeds available Mamba cache blocks
(180)", the refusal of vllm issue #49064 and PR #38270); the engine's own advice is a lower ``--max-num-seqs``, and
the nearest set-up offers the largest that starts — one more does not — before more GPUs or another format."""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.assessment.alternatives import nearest_fitting
from planner.assessment.assess import VerdictState, assess
from planner.assessment.batch_lever import with_max_num_seqs
from planner.engines.registry import overhead_profile
from planner.planning.plan import PlanRequest


def _request(**settings: object) -> PlanRequest:
    gpu = get_gpu("rtx-3090")
    return PlanRequest(
        model=get_model("Qwen/Qwen3.6-27B").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True),
        gpu_count=2, weights="fp8", context_tokens=8192, max_model_len=8192,
        overhead=overhead_profile("vllm", **settings),
    )  # fmt: skip


def test_the_mamba_block_refusal_is_offered_the_largest_batch_that_starts() -> None:
    refused = assess(_request(), 1)
    assert refused.report is not None and refused.report.failure_kind == "mamba-blocks"
    first = nearest_fitting(_request(), 1)[0]
    assert first.change.startswith("--max-num-seqs ") and first.change.endswith("(the largest that starts)")
    seqs = first.request.overhead.max_num_seqs  # type: ignore[attr-defined]
    assert 180 <= seqs < 256  # at least what vLLM's message allows, below the default it refused
    assert assess(first.request, 1).fits
    assert assess(with_max_num_seqs(first.request, seqs + 1), 1).state is VerdictState.ENGINE_REFUSES


def test_a_set_up_that_starts_is_not_offered_a_smaller_batch() -> None:
    assert not any(a.change.startswith("--max-num-seqs") for a in nearest_fitting(_request(max_num_seqs=64), 200))
