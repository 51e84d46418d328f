"""A hybrid model's attention block against the step, in Mamba cache mode 'align' (prefix caching on for a model
whose Mamba layers keep no prefix cache of their own: Qwen3.5 / 3.6 / 3.8,
:func:`planner.engines.vllm.mamba.mamba_mode`).

vLLM 0.22.0-0.26.0 ``VllmConfig.validate_block_size`` (0.22.0 ``config/vllm.py:2101-2107``, 0.25.1 :2186-2192, 0.26.0
:2265-2271), run by ``v1/engine/core.py`` once the KV cache is sized (0.26.0 :321), asserts that the smallest
KV-cache group's block, the hybrid's attention block that holds one state page, is no larger than
``max_num_batched_tokens``: "In Mamba cache align mode, block_size (1056) must be <= max_num_batched_tokens (1024)."
0.27.0 dropped it (rule ``mamba_align_step_check``). Prefix caching is opt-in for hybrids until 0.27.1, so there it is
met only with ``--enable-prefix-caching``. Either cure starts the engine: a step of at least the block, or prefix
caching off (mode 'none', nothing checked).
"""

from __future__ import annotations

from planner.core.overhead import FailureKind
from planner.engines.base import EngineReport, SettingCure, engine_total_bytes
from planner.engines.vllm.blocks import VllmStage, has_linear_layers
from planner.engines.vllm.mamba import mamba_mode
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.start_memory import Failure
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult

KIND: FailureKind = "mamba-align-step"


def align_step_failure(
    request: PlanRequest, result: PlanResult, profile: VllmProfile, stages: list[VllmStage]
) -> Failure | None:
    """The assertion (module docstring) where the release has it, the model is a hybrid in mode 'align' and its
    attention block is larger than the step it settles on (given, or vLLM's default by GPU)."""
    rules = profile.rules
    if not rules.mamba_align_step_check or not has_linear_layers(stages[0]):
        return None
    if mamba_mode(rules, request.model, profile.enable_prefix_caching) != "align":
        return None
    block = min(stage.block_size for stage in stages)
    gpu_name = request.gpu.name if request.gpu else None
    tokens = profile.batch(engine_total_bytes(request), gpu_name, result.max_model_len, request.model)[0]
    if block <= tokens:
        return None
    return KIND, (
        f"AssertionError: In Mamba cache align mode, block_size ({block}) must be <= max_num_batched_tokens ({tokens})."
    )


def align_step_cures(report: EngineReport) -> tuple[SettingCure, ...]:
    """What starts a set-up refused so: the step raised to the block, or prefix caching off."""
    if report.failure_kind != KIND:
        return ()
    block = report.block_size
    return (
        SettingCure({"max_num_batched_tokens": block}, "a step of one whole attention block, as 'align' mode needs"),
        SettingCure({"enable_prefix_caching": False}, "Mamba cache mode 'none': no block checked against the step"),
    )
