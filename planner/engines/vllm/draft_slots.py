"""A draft model's slot per running sequence, taken off the step (``versions.toml`` rule ``draft_step_slot``).

``VllmConfig._set_max_num_scheduled_tokens`` (0.26.0 ``config/vllm.py:1689-1715``) sets ``max_num_scheduled_tokens =
max_num_batched_tokens - max_num_new_slots_for_drafting x max_num_seqs``, the slots being 1 for a draft model (0.26.0
``config/speculative.py:1293-1306``: "one new slot per request, since we do not slice the draft tokens"), and from
0.20.0 to 0.27.1 it stops at its arguments where that leaves no token to schedule; 0.28.0 subtracts nothing. A
defaulted ``--max-num-seqs`` settles at the step when the step is smaller (``settled_batch``), which is such a case.
"""

from __future__ import annotations

from planner.engines.base import engine_total_bytes
from planner.engines.vllm.defaults import release_defaults
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest

DRAFT_METHOD = "draft"  # the planner's name of vLLM's draft_model method (SpeculativeOptions.method)


def draft_slots(profile: VllmProfile, request: PlanRequest) -> int:
    """Slots per running sequence the release takes off the step for the request's proposer: 1 for a draft model
    where the rule holds, else 0."""
    options = request.deployment
    spec = options.speculative if options is not None else None
    drafts = spec is not None and spec.method == DRAFT_METHOD
    return 1 if drafts and profile.rules.draft_step_slot else 0


def draft_slots_refusal(profile: VllmProfile, request: PlanRequest) -> str | None:
    """vLLM's refusal where the step less a slot per sequence leaves nothing to schedule, the batch settled as vLLM
    settles it (``max_num_batched_tokens - max_num_seqs <= 0``; module docstring), with the fix that clears it.

    >>> from model_catalog import get_gpu, get_model
    >>> from planner.deploy.options import DeploymentOptions, SpeculativeOptions
    >>> draft = SpeculativeOptions(method="draft", draft_model=get_model("Qwen/Qwen3-0.6B").spec)
    >>> gpu = get_gpu("rtx-4090")
    >>> request = PlanRequest(model=get_model("Qwen/Qwen3-8B").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes,
    ...                       deployment=DeploymentOptions(speculative=draft))
    >>> draft_slots_refusal(VllmProfile(engine_version="0.26.0", max_num_batched_tokens=128), request).split(": ")[-1]
    'raise --max-num-batched-tokens to 257 or lower --max-num-seqs to 127'
    >>> given = VllmProfile(engine_version="0.26.0", max_num_batched_tokens=128, max_num_seqs=128)
    >>> draft_slots_refusal(given, request).split(": ")[-1]
    'raise --max-num-batched-tokens to 129 or lower --max-num-seqs to 127'
    >>> draft_slots_refusal(VllmProfile(engine_version="0.28.0", max_num_batched_tokens=128), request) is None
    True
    """
    slots = draft_slots(profile, request)
    if not slots:
        return None
    total, gpu = engine_total_bytes(request), request.gpu.name if request.gpu is not None else None
    tokens, seqs = profile.batch(total, gpu, request.max_model_len or request.context_tokens, request.model)
    left = tokens - slots * seqs
    if left > 0:
        return None
    flags = profile.batch_flags
    # a defaulted --max-num-seqs follows a raised step up to its default (settled_batch): the step must pass that
    most = seqs if flags.seqs is not None else release_defaults(flags, total, gpu)[1]
    return (
        f"vLLM {profile.engine_version} stops at its arguments: max_num_scheduled_tokens is set to {left} based on the "
        "speculative decoding settings, which does not allow any tokens to be scheduled. Increase "
        "max_num_batched_tokens to accommodate the additional draft token slots, or decrease num_speculative_tokens "
        f"or max_num_seqs. Before 0.28.0 a draft model takes a slot per sequence off the step ({tokens} - {seqs} = "
        f"{left}): " + step_fix(tokens, max(seqs, most), slots, seqs)
    )


def step_fix(tokens: int, seqs: int, slots: int, running: int | None = None) -> str:
    """What clears a step too small for ``seqs`` sequences that take ``slots`` each off it: the step raised to
    ``max(seqs, slots x seqs + 1)`` (the scheduler's ``max_num_batched_tokens >= max_num_seqs``, 0.19.0
    ``config/scheduler.py:273-278``, and with slots the one token left to schedule, module docstring), or the
    sequences (``running`` of them now, ``seqs`` when not given) lowered to the most the step holds (``tokens``, or
    ``(tokens - 1) // slots``).

    >>> step_fix(128, 256, 0)
    'raise --max-num-batched-tokens to 256 or lower --max-num-seqs to 128'
    >>> step_fix(128, 256, 1, running=128)  # a defaulted 256 settled at the step
    'raise --max-num-batched-tokens to 257 or lower --max-num-seqs to 127'
    """
    raise_to = max(seqs, slots * seqs + 1)
    lower_to = tokens if not slots else (tokens - 1) // slots
    fix = f"raise --max-num-batched-tokens to {raise_to}"
    lowered = lower_to >= 1 and lower_to < (running if running is not None else seqs)
    return fix + (f" or lower --max-num-seqs to {lower_to}" if lowered else "")
