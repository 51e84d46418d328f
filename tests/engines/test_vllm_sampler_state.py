"""Model Runner V2's penalty statistics, counted with the non-torch memory where the budget takes the device's drop
in free memory (planner.engines.vllm.terms.penalty_state_bytes, VllmProfile.sampler_state_bytes).

Source: ``v1/worker/gpu/sample/penalties.py`` (0.28.0 :32-42: ``prompt_bin_mask`` max_num_reqs x ceil(vocab / 32)
int32, ``output_bin_counts`` max_num_reqs x vocab int32), made by the sampler built after "Model loading took"
(0.28.0 ``v1/worker/gpu/model_runner.py`` :379 and :398); ``utils/mem_utils.py`` 0.27.0 :317-326 (the budget takes
``total_consumed``, the drop in free memory since the worker's first snapshot)."""

from __future__ import annotations

import pytest

from bench.fidelity import run_all
from model_catalog import get_gpu, get_model
from planner.core.overhead import StageContext
from planner.engines.vllm.profile import VllmProfile

QWEN3_32B = get_model("Qwen/Qwen3-32B").spec
QWEN38 = get_model("Qwen/Qwen3.8-27B").spec
RTX5090 = get_gpu("rtx-5090")


def _ctx(model: object = QWEN3_32B, last: bool = True, weights: str = "int4-awq") -> StageContext:
    return StageContext(
        model=model, gpu_memory_bytes=RTX5090.engine_visible_bytes or RTX5090.memory_bytes, tensor_parallel=1,
        pipeline_parallel=1, is_last_stage=last, weights_format=weights, gpu_name=RTX5090.name,
    )  # fmt: skip


def test_penalty_state_of_256_requests_over_qwen3s_vocab() -> None:
    """vLLM's defaults on a 31.36 GiB card give 256 requests; Qwen3's vocab is 151,936: 0.15 GiB at 0.28."""
    state = VllmProfile(engine_version="0.28.0").sampler_state_bytes(_ctx())
    assert state == 256 * (151_936 + 4_748) * 4


def test_no_penalty_state_where_the_budget_or_the_runner_does_not_hold_it() -> None:
    """0.25-0.26 (split formula: torch memory allocated before the profile is not in the budget), the V1 runner
    (a hybrid at 0.28) and a stage without the sampler count none."""
    assert VllmProfile(engine_version="0.25.1").sampler_state_bytes(_ctx()) == 0
    assert VllmProfile(engine_version="0.28.0").sampler_state_bytes(_ctx(QWEN38, weights="bf16")) == 0
    assert VllmProfile(engine_version="0.28.0").sampler_state_bytes(_ctx(last=False)) == 0


def test_a100_0_31_start_up_as_planned_now() -> None:
    """Llama 3.1 8B on an A100 at 0.31 (256 requests x 128,256 vocab: 0.12 GiB of penalty state, without which the
    planner gave 0.12 GiB more KV). +0.39 GiB since Model Runner V2's sampler warm-up is derived from the source
    (one bf16 copy of the logits, 0.28 -> 0.08 GiB; it was +0.18 with the fitted 3.82 fp32 copies): the log's 1.44 GiB
    of peak activation holds V2's own graph estimate from 0.29 (every PIECEWISE graph captured into a throwaway pool,
    0.29.0 cudagraph_utils.py:718-801), which the planner still prices in the V1 runner's form (0.68 GiB). Planned
    cold since 2026-12-07 (fifty-third session), as its notes state ('Compilation stayed at ~15 s both times, so it
    isn't cached across container restarts'; search-index file id 70682754770): -0.32 GiB, the cold compile's copy of
    the embedding table (0.71 GiB beyond the forward it replaces as the peak) planned beside that estimate."""
    case = {r.id: r for r in run_all()}["vllm-0.31-a100-llama-3-1-8b-instruct-131k"]
    assert case.kv_error_gib == pytest.approx(-0.32, abs=0.01)  # +0.39 planned warm
