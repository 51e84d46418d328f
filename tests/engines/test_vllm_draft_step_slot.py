"""A draft model's slot per sequence off the step (``versions.toml`` rule ``draft_step_slot``): from 0.20.0 to 0.27.1
``VllmConfig._set_max_num_scheduled_tokens`` refuses ``max_num_batched_tokens - max_num_seqs <= 0`` for a draft
model (0.26.0 ``config/vllm.py:1708-1715``); 0.28.0 subtracts nothing (``:1839-1875``). Found by an outside review
(2026-12-06): Qwen3-8B with a Qwen3-0.6B draft and a 128-token step was planned to start at 0.22.0, 0.26.0 and
0.27.1, and the fix the planner gave for a step below the sequences produced the same equality."""

from __future__ import annotations

import pytest

from model_catalog import get_model
from planner.assessment.assess import assess
from planner.deploy.options import DeploymentOptions, SpeculativeOptions
from planner.engines.registry import get_engine
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.versions import vllm_rules
from planner.planning.plan import PlanRequest
from tests.engines.vllm_planned import on_one_gpu

VLLM = get_engine("vllm")
REFUSAL = (
    "vLLM {version} stops at its arguments: max_num_scheduled_tokens is set to 0 based on the speculative decoding "
    "settings, which does not allow any tokens to be scheduled. Increase max_num_batched_tokens to accommodate the "
    "additional draft token slots, or decrease num_speculative_tokens or max_num_seqs. Before 0.28.0 a draft model "
    "takes a slot per sequence off the step (128 - 128 = 0): raise --max-num-batched-tokens to {raise_to} or lower "
    "--max-num-seqs to 127"
)


def _request(version: str, method: str = "draft", **settings: int) -> PlanRequest:
    draft = get_model("Qwen/Qwen3-0.6B").spec if method == "draft" else None
    spec = SpeculativeOptions(method=method, num_speculative_tokens=4, draft_model=draft)  # type: ignore[arg-type]
    profile = VllmProfile(engine_version=version, **settings)  # type: ignore[arg-type]
    return on_one_gpu("Qwen/Qwen3-8B", version, DeploymentOptions(speculative=spec), overhead=profile)


def test_the_draft_slot_refuses_an_empty_step_from_0_20_to_0_27() -> None:
    assert not vllm_rules("0.19.1").draft_step_slot
    assert all(vllm_rules(v).draft_step_slot for v in ("0.20.0", "0.22.0", "0.25.1", "0.26.0", "0.27.0", "0.27.1"))
    assert not vllm_rules("0.28.0").draft_step_slot and not vllm_rules("0.29.0").draft_step_slot


@pytest.mark.parametrize("version", ["0.22.0", "0.26.0", "0.27.1"])
def test_a_step_the_sequences_fill_is_refused_with_vllms_words(version: str) -> None:
    """The review's command: a 128-token step, the defaulted 256 sequences settled at 128 (before: planned to start)."""
    found = VLLM.refusal(_request(version, max_num_batched_tokens=128))
    assert found == REFUSAL.format(version=version, raise_to=257)  # 257: the default 256 follows a raised step
    given = VLLM.refusal(_request(version, max_num_batched_tokens=128, max_num_seqs=128))
    assert given == REFUSAL.format(version=version, raise_to=129)


def test_0_28_and_the_other_drafters_start_at_that_step() -> None:
    assert VLLM.refusal(_request("0.28.0", max_num_batched_tokens=128)) is None
    assert assess(_request("0.28.0", max_num_batched_tokens=128)).fits
    assert VLLM.refusal(_request("0.26.0", "eagle3", max_num_batched_tokens=128)) is None  # no slot for EAGLE-3


def test_the_fixes_given_start() -> None:
    """Each fix named clears the refusal; raising the step to 129 with the sequences defaulted does not (they follow
    it), which is why the fix says 257."""
    assert VLLM.refusal(_request("0.26.0", max_num_batched_tokens=257)) is None
    assert VLLM.refusal(_request("0.26.0", max_num_batched_tokens=128, max_num_seqs=127)) is None
    assert VLLM.refusal(_request("0.26.0", max_num_batched_tokens=129, max_num_seqs=128)) is None
    assert VLLM.refusal(_request("0.26.0", max_num_batched_tokens=129)) is not None


def test_the_fix_for_a_step_below_the_sequences_leaves_the_draft_slot() -> None:
    """Both given, the step below the sequences: the scheduler's refusal, its fix one token and one sequence further
    with a draft model before 0.28.0 (before: 256 or 128, the equality refused next)."""
    found = VLLM.refusal(_request("0.26.0", max_num_batched_tokens=128, max_num_seqs=256))
    assert found is not None and found.endswith(
        "must be greater than or equal to max_num_seqs (256); raise --max-num-batched-tokens to 257 or lower "
        "--max-num-seqs to 127"
    )
    assert VLLM.refusal(_request("0.26.0", max_num_batched_tokens=257, max_num_seqs=256)) is None
    old = VLLM.refusal(_request("0.28.0", max_num_batched_tokens=128, max_num_seqs=256))
    assert old is not None and old.endswith("raise --max-num-batched-tokens to 256 or lower --max-num-seqs to 128")
