"""An EAGLE-family drafter's persistent input buffers, which vLLM's budget holds from 0.27.

``LLMBaseProposer.__init__``, the proposer of the ``eagle``, ``eagle3`` and ``mtp`` methods (``EagleProposer``, built by
the V1 runner's constructor: 0.27.1 ``v1/worker/gpu_model_runner.py:637``, 0.28.0 ``:686``), allocates for its CUDA
graphs ``hidden_states`` of ``(max_num_batched_tokens, hidden_size)`` and ``inputs_embeds`` of
``(max_num_batched_tokens, inputs_embeds_size)``, both in the model's dtype (0.27.1
``v1/spec_decode/llm_base_proposer.py:85``, ``:94-95``, ``:139``, ``:202-204``, ``:236-240``; 0.28.0 ``:142``, ``:205``,
``:239``; 0.26.0 ``:139``, ``:202``, ``:236``); its integer index buffers (at most 40 bytes a token) are left out.
``hidden_size`` is the draft model's (``:91-95``), taken here as the target's: an MTP drafter is the model's own layers,
and the planner holds no EAGLE head's config (the heads it would read match their targets' width, but a head of another
width would change the figure). The runner is built after the worker's init snapshot (0.27.1
``v1/worker/gpu_worker.py:395`` before ``:423``; 0.28.0 ``:406`` before ``:438``), so where the budget is the
free-memory drop since that snapshot (``versions.toml`` rule ``non_kv_formula`` "consumed", 0.27.1 and 0.28.0
``utils/mem_utils.py:317-326``) the buffers are in the consumed memory; the earlier split formula counts the weights,
the torch peak's rise during the profile and the non-torch rise (0.26.0 ``utils/mem_utils.py:305-313``), none of which
holds them. The drafter lives on the last pipeline stage (0.27.1 ``gpu_model_runner.py:583``, 0.28.0 ``:632``). Model
Runner V2's proposers (``v1/worker/gpu/spec_decode``) are not read, nor the extensible KV cache of 0.34: nothing is
planned there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.core.overhead import DEFAULT_HIDDEN, StageContext
from planner.engines.platform import platform_of
from planner.engines.vllm.terms import activation_dtype_bytes

if TYPE_CHECKING:
    from planner.engines.vllm.profile_view import VllmProfileView

EAGLE_FAMILY = frozenset({"eagle", "eagle3", "mtp"})  # the methods whose proposer is LLMBaseProposer's EagleProposer


def drafter_buffer_bytes(tokens: int, hidden: int, act_bytes: int) -> int:
    """``hidden_states`` and ``inputs_embeds``: ``2 x max_num_batched_tokens x hidden x dtype bytes`` (the module's
    docstring).

    >>> round(drafter_buffer_bytes(8192, 5120, 2) / 2**30, 3)  # Qwen3.8-27B at 8,192 batched tokens
    0.156
    """
    return 2 * tokens * hidden * act_bytes


def stage_drafter_buffers(profile: VllmProfileView, ctx: StageContext) -> int:
    """:func:`drafter_buffer_bytes` of one rank of ``ctx``'s last stage, at the batched tokens vLLM settles, where an
    EAGLE-family drafter runs on the V1 runner and the release counts the consumed memory; else 0."""
    if ctx.speculative_method not in EAGLE_FAMILY or not ctx.is_last_stage:
        return 0
    if profile.rules.non_kv_formula != "consumed" or profile.extensible(platform_of(ctx.platform).runtime):
        return 0
    if profile.runs_v2(ctx.model, ctx.weights_format, ctx.speculative_method):
        return 0
    tokens, _ = profile.batch(ctx.gpu_memory_bytes, ctx.gpu_name, ctx.max_model_len, ctx.model)
    hidden = ctx.model.hidden_size or DEFAULT_HIDDEN
    return drafter_buffer_bytes(tokens, hidden, activation_dtype_bytes(ctx.weights_format))
