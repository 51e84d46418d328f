"""Speculative decoding: the proposer's weights and KV cache on the GPU, and the look-ahead slots per request.

vLLM V1 (``vllm/v1/spec_decode/eagle.py`` ``EagleProposer.load_model``; ``vllm/v1/worker/gpu_model_runner.py``
``load_model`` loads the drafter with the target, inside the "Model loading took" measurement):

- a **draft model** (``--speculative-config '{"model": ..., "num_speculative_tokens": K}'``) is a whole second
  model: its weights (split over the same TP ranks) and a KV cache for all of its attention layers;
- an **EAGLE** head is one decoder layer of the target's shape plus ``fc`` (2 x hidden -> hidden); it shares the
  target's ``embed_tokens`` when PP = 1 and the shapes match ("Assuming the EAGLE head shares the same vocab
  embedding with the target model") and its ``lm_head`` (every method but ``eagle3``);
- an **EAGLE-3** head reads 2 x hidden into its attention (embedding and fused hidden states), has ``fc`` from
  3 x hidden and its own ``lm_head`` over a reduced draft vocabulary (32,000 for the published Llama heads);
- **MTP** (``method: "mtp"``) loads the checkpoint's ``num_nextn_predict_layers`` modules (DeepSeek-V3's
  ``model.layers.61``, Qwen3-Next / Qwen3.5 ``mtp.*``) with the target's embedding shared;
- **Medusa** adds ``K`` heads, each a residual block (hidden x hidden + bias) and its own ``lm_head``; no cache.

The drafter's attention layers are registered in the same forward context as the target's
(``draft_attn_layer_names``), so ``get_kv_cache_spec`` gives them pages in the one KV pool: each token costs the
target's bytes plus the drafter's. The scheduler reserves ``num_lookahead_tokens = K`` more slots per running
request (``KVCacheManager.allocate_slots``). The drafter sits with the last pipeline stage.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from planner.bounds.errors import PlannerError
from planner.core.blocks import LayerKind
from planner.core.kv import kv_bytes_per_token, kv_bytes_per_token_per_layer
from planner.core.model import ModelSpec
from planner.core.params import decoder_layer_params, mtp_params, parameter_breakdown
from planner.core.precision import GGUF_TYPES, weight_format
from planner.core.serving import serving_weights
from planner.core.weights import weights_bytes
from planner.deploy.options import SpeculativeOptions

HEAD_BITS = 16  # EAGLE and Medusa heads are published in 16 bits


class Drafter(NamedTuple):
    """What the proposer adds to one GPU of the last stage."""

    weights_bytes: int
    kv_bytes_per_token: int  # the drafter's attention layers, on one GPU
    lookahead_tokens: int  # slots reserved per running request


def _eagle_layer(model: ModelSpec) -> int:
    """Parameters of one EAGLE decoder layer: the target's attention and a dense MLP of its width."""
    if model.hidden_size is None:
        raise PlannerError("speculative: an EAGLE or MTP head needs the model's hidden size")
    layer = decoder_layer_params(model, 0)
    width = model.intermediate_size or (model.moe.moe_intermediate_size if model.moe else 4 * model.hidden_size)
    mlp = (3 if model.mlp_gated else 2) * model.hidden_size * width
    return layer.attention + layer.small + mlp


def head_parameters(model: ModelSpec, options: SpeculativeOptions) -> int:
    """Parameters of an EAGLE, EAGLE-3 or Medusa head for ``model`` (module docstring)."""
    h = model.hidden_size or 0
    vocab = model.vocab_size or 0
    if options.method == "eagle":
        return _eagle_layer(model) + 2 * h * h + h
    if options.method == "eagle3":
        heads, kv, d = model.num_attention_heads or 0, model.resolved_kv_heads, model.resolved_head_dim
        wider_qkv = h * (heads + 2 * kv) * d  # q/k/v read 2 x hidden: one more hidden's worth of input
        return _eagle_layer(model) + wider_qkv + 3 * h * h + options.draft_vocab_size * h + 2 * h
    if options.method == "medusa":
        return options.num_speculative_tokens * (h * h + h + vocab * h)
    raise PlannerError(f"speculative: {options.method!r} has no head of its own")


def mtp_bytes(model: ModelSpec, precision: str) -> int:
    """The checkpoint's MTP modules as vLLM loads them: at the target's linear-layer precision (or the format's
    ``mtp_bits`` where its checkpoints keep the module out of the quantization), the embedding copy shared with the
    target (DeepSeek-V3 stores one per module; Qwen3.5 / GLM-4.6 store none)."""
    if not model.num_nextn_predict_layers:
        raise PlannerError(f"speculative: {model.display_name} carries no MTP layers (num_nextn_predict_layers = 0)")
    params = mtp_params(model)
    if not model.mtp_shares_embeddings:
        params -= model.num_nextn_predict_layers * (model.vocab_size or 0) * (model.hidden_size or 0)
    fmt = weight_format(precision)
    return math.ceil(params * (fmt.mtp_bits or fmt.bits_per_weight) / 8)


VOCAB_PADDING = 64  # VocabParallelEmbedding / ParallelLMHead pad the vocabulary to a multiple of 64 (per TP split)
# MTP modules with an LM head per layer (``SharedHead.head``: deepseek_mtp.py, glm4_moe_mtp.py); the others
# (qwen3_5_mtp.py, qwen3_next_mtp.py) build one for the module, or none when the embeddings are tied.
PER_LAYER_HEADS = ("deepseek", "glm")


def mtp_load_bytes(model: ModelSpec, tensor_parallel: int) -> int:
    """What vLLM's MTP drafter allocates while it loads, on one GPU, beyond the weights it keeps: its own
    ``embed_tokens`` and LM head(s), built with the module (0.27.1 ``qwen3_5_mtp.py`` lines 82-85 and 241-249,
    ``deepseek_mtp.py`` ``SharedHead``) and freed when the proposer shares the target's
    (``_maybe_share_embeddings`` / ``_maybe_share_lm_head``, 0.27.1 ``v1/spec_decode/llm_base_proposer.py``
    1424-1600; 0.19.0 ``eagle.py`` 1383 and 1439). A 24 GB RTX 3090 ran out of memory on the second (Qwen3.8-27B:
    248,320 x 5,120 in BF16, 2.37 GiB each) with the target on the card. 16 bits (the model's dtype). With
    pipeline stages the drafter keeps its own embedding (shared only at PP 1): counted here at load only."""
    vocab, hidden = model.vocab_size or 0, model.hidden_size or 0
    rows = -(-vocab // VOCAB_PADDING) * VOCAB_PADDING // tensor_parallel
    one = rows * hidden * 2
    per_layer = model.model_type.startswith(PER_LAYER_HEADS)
    heads = model.num_nextn_predict_layers if per_layer else (0 if model.tie_word_embeddings else 1)
    return one * (1 + heads)


def mtp_expert_bytes(model: ModelSpec, precision: str) -> int:
    """The routed experts of the MTP modules (one MoE layer each, as the target's): what data-parallel ranks that
    share the target's experts split the same way (vLLM ``DeepSeekMTP``'s ``FusedMoE``, SGLang's NextN, TensorRT-LLM's
    MTP layer)."""
    moe_layers = sum(model.is_moe_layer(i) for i in range(model.num_hidden_layers))
    if not moe_layers or not model.num_nextn_predict_layers:
        return 0
    per_layer = parameter_breakdown(model).experts // moe_layers
    fmt = weight_format(precision)
    return math.ceil(per_layer * model.num_nextn_predict_layers * (fmt.mtp_bits or fmt.bits_per_weight) / 8)


def drafter(
    model: ModelSpec,
    options: SpeculativeOptions,
    precision: str,
    kv_dtype: str,
    tensor_parallel: int,
    expert_gpus: int | None = None,
) -> Drafter:
    """The proposer's weights and KV bytes per token on one GPU of the last stage (module docstring); ``expert_gpus``:
    the GPUs the target's routed experts are split over when more than ``tensor_parallel`` (data-parallel ranks that
    share them), over which an MTP module's experts are split too."""
    k = options.num_speculative_tokens
    if options.method == "draft":
        draft = options.draft_model
        assert draft is not None  # validated
        check_draft_vocabulary(model, draft)
        loaded = precision if precision in GGUF_TYPES else serving_weights(draft)  # a GGUF target's draft: its type
        weights = weights_bytes(parameter_breakdown(draft), loaded)
        return Drafter(math.ceil(weights / tensor_parallel), kv_bytes_per_token(draft, kv_dtype, tensor_parallel), k)
    per_layer = kv_bytes_per_token_per_layer(model, kv_dtype, tensor_parallel, LayerKind.FULL)
    if options.method == "mtp":
        weights, experts = mtp_bytes(model, precision), mtp_expert_bytes(model, precision) if expert_gpus else 0
        on_gpu = math.ceil((weights - experts) / tensor_parallel + experts / (expert_gpus or 1))
        return Drafter(on_gpu, model.num_nextn_predict_layers * per_layer, k)
    weights = math.ceil(head_parameters(model, options) * HEAD_BITS / 8)
    kv = 0 if options.method == "medusa" else per_layer
    return Drafter(math.ceil(weights / tensor_parallel), kv, k if options.method != "medusa" else 0)


# llama.cpp's bound on a draft's vocabulary against the target's (common/speculative.cpp,
# common_speculative_are_compatible: "draft model vocab must closely match target model to use speculation").
VOCAB_MAX_SIZE_DIFFERENCE = 128


def check_draft_vocabulary(model: ModelSpec, draft: ModelSpec) -> None:
    """A draft model proposes token ids the target verifies: it must share the target's tokenizer. llama.cpp refuses
    vocabularies more than :data:`VOCAB_MAX_SIZE_DIFFERENCE` apart; vLLM's draft proposer feeds the target's ids
    to the draft model (v1/spec_decode/draft_model.py), so ids past the draft's vocabulary have no embedding.

    >>> a = ModelSpec(id="a", num_hidden_layers=2, hidden_size=64, num_attention_heads=2, vocab_size=151_936,
    ...               num_parameters=10**6)
    >>> check_draft_vocabulary(a, a.model_copy(update={"vocab_size": 152_064}))  # Qwen2.5-7B beside 0.5B: 128 apart
    >>> check_draft_vocabulary(a, a.model_copy(update={"vocab_size": 128_256}))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    planner.bounds.errors.PlannerError: speculative: the draft model a has a vocabulary of 128,256 tokens and a ...
    """
    ours, theirs = model.vocab_size, draft.vocab_size
    if ours and theirs and abs(ours - theirs) > VOCAB_MAX_SIZE_DIFFERENCE:
        raise PlannerError(
            f"speculative: the draft model {draft.display_name} has a vocabulary of {theirs:,} tokens and "
            f"{model.display_name} has {ours:,}: a draft model must share the target's tokenizer (llama.cpp "
            f"refuses vocabularies more than {VOCAB_MAX_SIZE_DIFFERENCE} apart)"
        )


def drafter_sequence_bytes(drafter_: Drafter, tokens: int) -> int:
    """The drafter's KV for one sequence of ``tokens`` (its layers cache every token, plus the look-ahead)."""
    return drafter_.kv_bytes_per_token * (tokens + drafter_.lookahead_tokens)
