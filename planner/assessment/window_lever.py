"""The step-size lever of a model with sliding-window or chunked-local layers under vLLM: each such layer of a
running request holds its window and the tokens scheduled and not yet settled, one batch of
``max_num_batched_tokens`` up to 0.25 and every batch in flight from 0.26 (:mod:`planner.engines.vllm.in_flight`).
On a GPU where vLLM defaults to 8,192 or 16,384 tokens a step, Gemma's 1,024-token windows then hold 17,407 tokens
a request, so a smaller step holds several times the requests; the cost is a prompt prefilled in more, smaller
chunks. Offered: vLLM's own default below 70 GiB, 2,048 tokens (:data:`planner.engines.vllm.defaults.SMALL`), or a
multimodal prefix-LM model's largest item where that is more (Gemma 4's 2,496: vLLM does not split one across steps
and refuses a smaller step, :func:`planner.engines.vllm.defaults.prefix_item_floor`).
"""

from __future__ import annotations

from planner.core.kv import has_windows
from planner.engines.base import engine_total_bytes
from planner.engines.vllm.defaults import SMALL, given_step_item, prefix_item_floor
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest

SMALL_STEP_TOKENS = SMALL[0][0]  # 2,048: vLLM serve's default max_num_batched_tokens below 70 GiB


def small_step(request: PlanRequest) -> int:
    """The step offered (module docstring): :data:`SMALL_STEP_TOKENS`, or the model's largest multimodal item."""
    overhead = request.overhead
    floor = prefix_item_floor(overhead.batch_flags, request.model) if isinstance(overhead, VllmProfile) else 0
    return max(SMALL_STEP_TOKENS, floor)


def with_small_step(request: PlanRequest) -> PlanRequest | None:
    """``request`` with ``--max-num-batched-tokens`` at :func:`small_step`, where that changes what its windowed
    layers hold: a vLLM profile without the flag, a model with windows, a default step larger than it; or where a
    step given is under the model's largest multimodal item, which vLLM refuses, the item; else None."""
    overhead = request.overhead
    if not isinstance(overhead, VllmProfile):
        return None
    given = overhead.max_num_batched_tokens
    if given is not None:
        item = given_step_item(overhead.batch_flags, request.model, overhead.loads_encoder(request.model))
        fixed = overhead.model_copy(update={"max_num_batched_tokens": item})
        return request.model_copy(update={"overhead": fixed}) if given < item else None
    if not has_windows(request.model):
        return None
    gpu_name = request.gpu.name if request.gpu is not None else None
    length = request.max_model_len or request.context_tokens
    batched, _ = overhead.batch(engine_total_bytes(request), gpu_name, length, request.model)
    step = small_step(request)
    if batched <= step:
        return None
    smaller = overhead.model_copy(update={"max_num_batched_tokens": step})
    return request.model_copy(update={"overhead": smaller})
