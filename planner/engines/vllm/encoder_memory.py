"""The vision encoder's profile: the memory it leaves outside torch, per token of the largest dummy item.

With the tower loaded, vLLM's V1 runner profiles the encoder on the largest dummy item of the modality with most
tokens inside ``memory_profiling`` (0.28.0 ``v1/worker/gpu_model_runner.py:6559-6615``), on the first pipeline stage.
One public boot measures what that leaves (docs/fidelity.md, 'The encoder's part is non-torch memory'): one rented
RTX 5090, vLLM 0.28.0, Qwen3.8-27B NVFP4 (search-index file id 69381046304) prints 1.28 GiB of non-torch memory
(consumed less weights) with the tower loaded and 0.36 with ``--limit-mm-per-prompt '{"image":0,"video":0}'``, which
drops the encoder's profile. The amount per item token (``VllmConstants.encoder_non_torch``) is fitted by
``bench.calibrate.fit`` in place of the desktop cards' share (fitted 0 since 2026-12-07, with the Windows term of
:mod:`planner.engines.vllm.windows_share`; docs/fidelity.md, 'The share candidate with a Windows term, shipped').

The largest item, by the tower's model type: the Qwen3.5 family (Qwen3.5 / 3.6 / 3.8) profiles one image of 16,384
tokens ('Encoder cache will be initialized with a budget of 16384 tokens, and profiled with 1 image items' in the
A6000, GB10 and WSL RTX 5090 logs); Gemma 4 one 32-frame video of 2,496 tokens
(:data:`planner.engines.vllm.defaults.GEMMA4_ITEM_TOKENS`). Other towers are not measured: nothing is planned.
"""

from __future__ import annotations

from typing import Protocol

from planner.core.model import ModelSpec
from planner.core.overhead import StageContext
from planner.engines.platform import platform_of
from planner.engines.vllm.defaults import GEMMA4_ITEM_TOKENS
from planner.engines.vllm.versions import VllmConstants

# The largest dummy item the encoder profile runs, in tokens, by the language model's model type.
QWEN35_IMAGE_TOKENS = 16_384
ENCODER_ITEM_TOKENS = {
    "qwen3_5_text": QWEN35_IMAGE_TOKENS,
    "qwen3_5_moe_text": QWEN35_IMAGE_TOKENS,
    "gemma4_text": GEMMA4_ITEM_TOKENS,
}


def encoder_item_tokens(model: ModelSpec) -> int:
    """Tokens of the largest dummy item the encoder profile runs (0: a tower not measured).

    >>> from model_catalog import get_model
    >>> encoder_item_tokens(get_model("Qwen/Qwen3.8-27B").spec), encoder_item_tokens(get_model("Qwen/Qwen3-8B").spec)
    (16384, 0)
    """
    return ENCODER_ITEM_TOKENS.get(model.model_type, 0)


def encoder_non_torch_bytes(per_item_token: int, item_tokens: int, tensor_parallel: int) -> int:
    """Non-torch memory one rank of the first stage holds after the encoder's profile: ``per_item_token x
    item_tokens / tp`` (the tower's weights are split by TP under ``mm_encoder_tp_mode`` "weights",
    :mod:`planner.engines.vllm.towers`). 58,628 bytes a token give 0.89 GiB for a Qwen3.5 image at TP 1, the
    fifth blind set's A/B 0.92.

    >>> round(encoder_non_torch_bytes(58_628, 16_384, 1) / 2**30, 2)
    0.89
    """
    return per_item_token * item_tokens // tensor_parallel


class EncoderProfile(Protocol):
    """What :func:`stage_encoder_non_torch` reads of a vLLM profile (``VllmProfile``)."""

    @property
    def is_v1(self) -> bool: ...

    @property
    def fitted(self) -> VllmConstants: ...

    @property
    def skip_mm_profiling(self) -> bool: ...

    def loads_encoder(self, model: ModelSpec) -> bool: ...


def profiles_encoder(profile: EncoderProfile, model: ModelSpec) -> bool:
    """Whether the profile run profiles the encoder: where it is loaded (``VllmProfile.loads_encoder``) and not
    under ``--skip-mm-profiling`` (0.28.0 ``v1/worker/gpu_model_runner.py:6558-6566``, 0.27.1 ``:6437``: "Skipping
    memory profiling for multimodal encoder and encoder cache.", no dummy item, no ``embed_multimodal``)."""
    return profile.loads_encoder(model) and not profile.skip_mm_profiling


def stage_encoder_non_torch(profile: EncoderProfile, ctx: StageContext) -> int:
    """:func:`encoder_non_torch_bytes` of one rank of ``ctx``: a V1 start-up's first stage that profiles the encoder
    (:func:`profiles_encoder`), off unified memory (whose fitted shares of the weights hold what its
    start-ups left, :mod:`planner.engines.vllm.unified`), on CUDA alone: fitted on CUDA start-ups, and HIP's
    fitted non-torch amount (``cdna3_non_torch``, :mod:`planner.engines.vllm.hip_graphs`) holds what the three public
    MI300X Gemma 4 boots print without it (0.10-0.24 GiB over with it, tests/fidelity/test_blind_2026_12g.py)."""
    device = platform_of(ctx.platform)
    if not profile.is_v1 or ctx.stage_index != 0 or device.integrated or device.runtime != "cuda":
        return 0
    if not profiles_encoder(profile, ctx.model):
        return 0
    item = encoder_item_tokens(ctx.model)
    return encoder_non_torch_bytes(profile.fitted.encoder_non_torch, item, ctx.tensor_parallel)
