"""The weights one GPU holds once vLLM has loaded them ("Model loading took X GiB"): the checkpoint's bytes, the
kernels' padding and repacking on this device (:mod:`planner.engines.loading`), an MTP head a ModelOpt export keeps
in BF16, the RoPE cos/sin cache each rotary layer builds (:mod:`planner.engines.vllm.rope`), the projection slots
Gemma 4's layers get beyond the checkpoint's tensors (:mod:`planner.engines.vllm.slots`), and a vision tower vLLM
keeps whole (Mistral-format Pixtral) or a tower it does not load at all (``--language-model-only``, a
``--limit-mm-per-prompt`` of 0 for its modalities, audio's alone for an audio tower;
:mod:`planner.engines.vllm.towers`), and the tails of the 2 MiB segments PyTorch's caching allocator counts with the
large weight tensors (:mod:`planner.engines.vllm.allocator`). LoRA slots and a drafter's own weights are the
plan's separate rows.
"""

from __future__ import annotations

from functools import lru_cache

from planner.core.overhead import LoadContext
from planner.engines.loading import bf16_mtp_extra_bytes, kernel_padding_bytes
from planner.engines.vllm.allocator import allocator_tail_bytes
from planner.engines.vllm.rope import rope_cache_bytes
from planner.engines.vllm.slots import gemma4_slot_bytes
from planner.engines.vllm.terms import activation_dtype_bytes
from planner.engines.vllm.towers import TowersOff, replicated_tower_extra_bytes, unloaded_tower_bytes


def vllm_loaded_weights_bytes(ctx: LoadContext, multimodal: bool, off: TowersOff, shared_kv_built: bool = False) -> int:
    """The weights of one GPU as vLLM loads them (module docstring); ``multimodal``: the model has a tower to
    serve, ``off``: the towers vLLM leaves unloaded (:func:`planner.engines.vllm.towers.towers_off`);
    ``shared_kv_built``: the release builds k/v projections in Gemma 4's shared-KV layers (``versions.toml`` rule
    ``gemma4_shared_kv_built``). Kept per context (:func:`_loaded_kept`: a ranking asks ~600 times for ~130
    distinct contexts, every GPU of one platform alike)."""
    try:
        return _loaded_kept(ctx, multimodal, off, shared_kv_built)
    except TypeError:  # a context that cannot be hashed: computed afresh
        return loaded_bytes(ctx, multimodal, off, shared_kv_built)


# Pure in the (frozen) context and three flags; bounded.
@lru_cache(maxsize=2048)
def _loaded_kept(ctx: LoadContext, multimodal: bool, off: TowersOff, shared_kv_built: bool) -> int:
    return loaded_bytes(ctx, multimodal, off, shared_kv_built)


def loaded_bytes(ctx: LoadContext, multimodal: bool, off: TowersOff, shared_kv_built: bool = False) -> int:
    """:func:`vllm_loaded_weights_bytes`, computed."""
    model, tp, weights = ctx.model, ctx.tensor_parallel, ctx.weights_format
    first = ctx.is_first_stage
    rope = rope_cache_bytes(model, activation_dtype_bytes(weights), range(*ctx.layers))
    tower = replicated_tower_extra_bytes(model, weights, tp, first) if multimodal else 0
    if first and multimodal:
        tower -= unloaded_tower_bytes(model, weights, tp, off)
    slots = gemma4_slot_bytes(model, weights, tp, range(*ctx.layers), shared_kv_built)
    tails = allocator_tail_bytes(ctx)
    return ctx.weights_bytes + kernel_padding_bytes(ctx) + bf16_mtp_extra_bytes(ctx) + rope + tower + slots + tails
