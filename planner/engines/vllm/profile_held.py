"""What a vLLM profile's budget counts with the non-torch memory beside the framework's own
(:class:`planner.engines.vllm.profile.VllmProfile` takes these methods from :class:`VllmHeld`): Model Runner V2's
sampler state, the encoder's and the Windows share, an EAGLE-family drafter's buffers and, where the release counts
consumed memory, the persistent fused-MoE workspace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.engines.platform import platform_of
from planner.engines.vllm.drafter_buffers import stage_drafter_buffers
from planner.engines.vllm.encoder_memory import stage_encoder_non_torch
from planner.engines.vllm.terms import penalty_state_bytes
from planner.engines.vllm.windows_share import stage_windows_non_torch

if TYPE_CHECKING:
    from planner.core.overhead import StageContext
    from planner.engines.vllm.profile_view import VllmProfileView as _Profile
else:
    _Profile = object  # the protocol types the mixin; at run time VllmProfile provides its members


class VllmHeld(_Profile):
    """The held-memory methods of a vLLM profile, reading its release's rules, its batch and its fitted constants."""

    __slots__ = ()

    def sampler_state_bytes(self, ctx: StageContext) -> int:
        """Persistent sampler state the budget counts with the non-torch memory: Model Runner V2's penalty
        statistics (:func:`penalty_state_bytes`) on the last stage, where the release takes the device's drop in
        free memory (``non_kv_formula`` "consumed", from 0.27: torch memory allocated before the profile is in it;
        the earlier split formula counts torch's increase during the profile only, 0.25.1 ``gpu_worker.py``)."""
        if not ctx.is_last_stage or self.rules.non_kv_formula != "consumed":
            return 0
        if not self.runs_v2(ctx.model, ctx.weights_format, ctx.speculative_method):
            return 0
        _, seqs = self.batch(ctx.gpu_memory_bytes, ctx.gpu_name, ctx.max_model_len, ctx.model)
        return penalty_state_bytes(ctx.model, seqs)

    def consumed_workspace(self, ctx: StageContext) -> bool:
        """Whether the persistent fused-MoE workspace is in the consumed memory rather than the peak: from 0.27
        (``non_kv_formula`` "consumed") the budget is the free-memory drop since the init snapshot plus the torch
        peak less what torch still holds after the profile (0.27.1 ``utils/mem_utils.py:317-326``), and the
        workspace manager holds the workspace from the profile run on (``v1/worker/workspace.py``
        ``_current_workspaces``), so "Actual usage" prints it in "consumed memory (weights + non-torch)", not in
        "peak activation" (``gpu_worker.py:527-528``). Not for the extensible KV cache (0.34), planned as it was."""
        formula = self.rules.non_kv_formula == "consumed" and self.rules.moe_workspace_persistent
        return formula and not self.extensible(platform_of(ctx.platform).runtime)

    def persistent_bytes(self, ctx: StageContext) -> int:
        """What the budget counts with the non-torch memory: :meth:`sampler_state_bytes`, the encoder's and the Windows
        share (:mod:`.encoder_memory`, :mod:`.windows_share`), an EAGLE-family drafter's buffers
        (:mod:`.drafter_buffers`), the MoE workspace where :meth:`consumed_workspace`."""
        state = self.sampler_state_bytes(ctx) + stage_encoder_non_torch(self, ctx) + stage_windows_non_torch(self, ctx)
        state += stage_drafter_buffers(self, ctx)
        if not self.consumed_workspace(ctx):
            return state
        return state + self.stage_terms(ctx).moe_workspace
