"""Parameter counts of a whole model, split into the categories a weight format treats differently.

The count is exact where the config describes every tensor: it reproduces the Hugging Face safetensors
totals of the catalog models (``tests/catalog/test_models.py``). One layer's count is
:mod:`planner.core.layer_params`'s; here the layers are summed (once per distinct layer), the embeddings, heads and
checkpoint-only modules added, and a stated ``num_parameters`` checked against the shape. Formulas follow the
``transformers`` modeling files of each family (``modeling_llama.py``, ``modeling_qwen3_moe.py``,
``modeling_deepseek_v3.py``, ``modeling_gpt_oss.py``, ``modeling_qwen3_next.py``, ``modeling_granitemoehybrid.py``, …).
"""

from __future__ import annotations

from functools import lru_cache

from planner.bounds.errors import BeyondLimitsError, PlannerError
from planner.bounds.limits import MAX_PARAMETERS
from planner.core.layer_params import (
    LayerSignature,
    ParameterBreakdown,
    decoder_layer_params,
    layer_signature,
    norm_params,
    shared_kv_checkpoint_params,
    signature_params,
)
from planner.core.model import ModelSpec

__all__ = [
    "PARAMETER_TOLERANCE",
    "ParameterBreakdown",
    "check_parameter_count",
    "decoder_layer_params",
    "layer_breakdowns",
    "mtp_params",
    "parameter_breakdown",
]


def _sum(parts: list[ParameterBreakdown]) -> ParameterBreakdown:
    fields = ParameterBreakdown.model_fields
    return ParameterBreakdown(**{f: sum(getattr(p, f) for p in parts) for f in fields})


def mtp_params(model: ModelSpec) -> int:
    """DeepSeek-V3 multi-token-prediction modules (DeepSeek-V3 README_WEIGHTS, ``model.layers.61``).

    Each is one more MoE decoder layer plus enorm and hnorm (h each), eh_proj (2h x h), shared_head.norm
    (h), and its own copies of the embedding and the head (vocab x h each) as the checkpoint stores them.
    """
    if not model.num_nextn_predict_layers:
        return 0
    h = model.hidden_size or 0
    layer = decoder_layer_params(model, model.num_hidden_layers - 1)
    vocab = model.vocab_size or 0
    per_module = layer.attention + layer.dense_mlp + layer.experts + layer.small
    # Qwen3.5 (Qwen3_5MultiTokenPredictor: fc 2h->h, pre_fc_norm_embedding, pre_fc_norm_hidden, norm) and
    # GLM-4.6 have the same three norms and projection but reuse the main embedding and lm_head.
    per_module += 3 * h + 2 * h * h + (0 if model.mtp_shares_embeddings else 2 * vocab * h)
    return model.num_nextn_predict_layers * per_module


# Cache sizes, measured with tracemalloc for the largest spec planner.bounds.limits allows (1,024 layers of three kinds,
# experts, shared-KV layers): the spec itself is ~11 kB (its layer_types tuple 8 kB); one entry of the layer caches
# ~23 kB (a tuple of 1,024 references to the few distinct breakdowns), one of the whole-model caches ~1.5 kB. With
# the specs they keep alive the four caches hold at most 2 x 64 x 34 kB + 2 x 256 x 12.5 kB, ~11 MB
# (tests/hostile/test_linear_planning.py measures it).
@lru_cache(maxsize=64)
def _shape_layers(model: ModelSpec) -> tuple[ParameterBreakdown, ...]:
    """One breakdown per layer as the shape gives it, computed once per distinct layer signature (a handful per
    model): linear in the layers, and the tuple holds references to the same few objects."""
    by_signature: dict[LayerSignature, ParameterBreakdown] = {}
    out = []
    for index in range(model.num_hidden_layers):
        signature = layer_signature(model, index)
        breakdown = by_signature.get(signature)
        if breakdown is None:
            breakdown = by_signature[signature] = signature_params(model, signature)
        out.append(breakdown)
    return tuple(out)


def _full_shape(model: ModelSpec) -> bool:
    return model.hidden_size is not None and model.vocab_size is not None


# How far a stated num_parameters may be from the count the shape gives before the two are a contradiction: 10 %
# covers what a config.json leaves undescribed (a small projector, buffers); "16B" on an 8B shape is refused.
PARAMETER_TOLERANCE = 0.10


def check_parameter_count(model: ModelSpec) -> None:
    """Raise :class:`PlannerError` naming both figures when ``num_parameters`` and the count the full shape gives
    differ by more than :data:`PARAMETER_TOLERANCE` (a model known by its size alone has nothing to contradict), and
    :class:`BeyondLimitsError` when the shape, each field within its bound, adds up to more parameters than
    :data:`~planner.bounds.limits.MAX_PARAMETERS`."""
    if not _full_shape(model):
        return
    computed = _shape_breakdown(model).total
    if computed > MAX_PARAMETERS:
        raise BeyondLimitsError(
            f"the shape describes {computed:,} parameters; at most {MAX_PARAMETERS:,} (more than any real model)"
        )
    if model.num_parameters is None:
        return
    given = model.num_parameters
    if abs(given - computed) > PARAMETER_TOLERANCE * computed:
        raise PlannerError(
            f"num_parameters ({given:,}) contradicts the {computed:,} parameters the shape gives "
            f"({(given - computed) / computed:+.0%}; at most ±{PARAMETER_TOLERANCE:.0%} is accepted): correct the "
            "shape or leave num_parameters out"
        )


@lru_cache(maxsize=64)
def _layer_breakdowns(model: ModelSpec) -> tuple[ParameterBreakdown, ...]:
    """The layers as planned: the shape's, with a stated ``num_parameters``'s difference (within the tolerance)
    spread evenly over the layers' MLPs, so that per-GPU weights and the total are one figure."""
    layers = _shape_layers(model)
    if model.num_parameters is None or not _full_shape(model):
        return layers
    check_parameter_count(model)
    share, extra = divmod(model.num_parameters - _shape_breakdown(model).total, len(layers))
    if not share and not extra:
        return layers
    spread: dict[tuple[int, int], ParameterBreakdown] = {}
    out = []
    for index, layer in enumerate(layers):
        bump = share + (1 if index < extra else 0)
        key = (id(layer), bump)
        if key not in spread:
            if layer.dense_mlp + bump < 0:
                raise PlannerError(
                    f"num_parameters ({model.num_parameters:,}) is below what the shape's attention, experts and "
                    "embeddings alone hold; correct the shape or leave num_parameters out"
                )
            spread[key] = layer.model_copy(update={"dense_mlp": layer.dense_mlp + bump})
        out.append(spread[key])
    return tuple(out)


def layer_breakdowns(model: ModelSpec) -> list[ParameterBreakdown]:
    """One :class:`ParameterBreakdown` per decoder layer (pipeline stages sum a slice of these). Computed once
    per model (specs are frozen)."""
    return list(_layer_breakdowns(model))


@lru_cache(maxsize=256)
def _shape_breakdown(model: ModelSpec) -> ParameterBreakdown:
    """Every parameter the full shape describes, by category (``num_parameters`` not applied)."""
    assert model.hidden_size is not None and model.vocab_size is not None  # callers check _full_shape
    h, vocab = model.hidden_size, model.vocab_size
    blocks = _sum(list(_shape_layers(model)))
    final_norm = norm_params(model, h)
    lm_head = 0 if model.tie_word_embeddings else vocab * h
    embedding = vocab * h
    small = blocks.small + final_norm + (vocab if model.lm_head_bias else 0)
    replicated = blocks.replicated_under_tp + final_norm
    if model.hidden_size_per_layer_input:
        # Gemma4TextModel PLE: embed_tokens_per_layer (vocab_per_layer x layers*p) and per_layer_model_projection
        # (hidden x layers*p), counted with the embedding (first pipeline stage, kept in 16 bits), and
        # per_layer_projection_norm (p).
        packed = model.num_hidden_layers * model.hidden_size_per_layer_input
        embedding += (model.vocab_size_per_layer_input or 0) * packed + h * packed
        small += norm_params(model, model.hidden_size_per_layer_input)
        replicated += norm_params(model, model.hidden_size_per_layer_input)
    return blocks.model_copy(
        update={
            "embedding": embedding,
            "lm_head": lm_head,
            "small": small,
            "replicated_under_tp": replicated,
            "attached_loaded": sum(m.parameters for m in model.attached_modules if m.loaded_for_serving),
            "attached_not_loaded": sum(m.parameters for m in model.attached_modules if not m.loaded_for_serving)
            + mtp_params(model)
            + shared_kv_checkpoint_params(model),
        }
    )


@lru_cache(maxsize=256)
def parameter_breakdown(model: ModelSpec) -> ParameterBreakdown:
    """Every parameter of ``model`` by category.

    When the model gives ``num_parameters`` (a size known from its card, or config.json's ``num_parameters``)
    beside a full shape, that total wins if it is within :data:`PARAMETER_TOLERANCE` of the computed count (a
    :class:`PlannerError` naming both otherwise): the difference is spread over the layers' MLPs, the same in the
    total and in every pipeline stage. A model known by its size alone has all its parameters treated as
    quantizable linear weights (as the founding texts count "8B x 0.5 byte").
    """
    if not _full_shape(model):
        attached_loaded = sum(m.parameters for m in model.attached_modules if m.loaded_for_serving)
        attached_other = sum(m.parameters for m in model.attached_modules if not m.loaded_for_serving)
        return ParameterBreakdown(
            dense_mlp=(model.num_parameters or 0) - attached_loaded - attached_other,
            attached_loaded=attached_loaded,
            attached_not_loaded=attached_other,
        )
    check_parameter_count(model)
    breakdown = _shape_breakdown(model)
    if model.num_parameters is None or model.num_parameters == breakdown.total:
        return breakdown
    dense = sum(layer.dense_mlp for layer in _layer_breakdowns(model))  # checks the count, spreads the difference
    return breakdown.model_copy(update={"dense_mlp": dense})
