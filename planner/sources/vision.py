"""Vision towers of multimodal checkpoints, counted tensor by tensor from ``config.json``'s ``vision_config``.

A vision tower is served alongside the language model (vLLM loads it unless ``--language-model-only``), so it is
planned as an :class:`planner.core.model.AttachedModule`. Each family follows its ``transformers`` modeling file; a
family not listed here returns None (the Hub client then counts the tower from the safetensors header).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from planner.core.blocks import AttachedModule


def _int(config: Mapping[str, Any], key: str, default: int | None = None) -> int:
    value = config.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"vision_config.{key}: expected a whole number, got {value!r}")
    return value


def qwen3_vl_vision_parameters(vision: Mapping[str, Any]) -> int:
    """Qwen3-VL and Qwen3.5 vision towers (``modeling_qwen3_vl.py`` ``Qwen3VLVisionModel``,
    ``modeling_qwen3_5.py`` ``Qwen3_5VisionModel``).

    patch_embed: Conv3d in_channels x temporal_patch x patch² -> hidden with bias; pos_embed: an embedding of
    num_position_embeddings x hidden; ``depth`` blocks of two LayerNorms (weight + bias), attn qkv hidden -> 3
    hidden and proj hidden -> hidden (biased), mlp linear_fc1 hidden -> intermediate and linear_fc2 back (biased);
    the merger: LayerNorm over hidden, linear_fc1 (merge² hidden)² and linear_fc2 merge² hidden -> out_hidden (biased);
    one more merger per ``deepstack_visual_indexes`` entry, its LayerNorm over the merged width (postshuffle).
    """
    h = _int(vision, "hidden_size")
    inner = _int(vision, "intermediate_size")
    patch = _int(vision, "patch_size")
    out = _int(vision, "out_hidden_size")
    merged = _int(vision, "spatial_merge_size", 2) ** 2 * h
    patch_embed = _int(vision, "in_channels", 3) * _int(vision, "temporal_patch_size", 2) * patch * patch * h + h
    pos_embed = _int(vision, "num_position_embeddings") * h
    block = 2 * 2 * h + (3 * h * h + 3 * h) + (h * h + h) + (h * inner + inner) + (inner * h + h)
    merger_fcs = (merged * merged + merged) + (merged * out + out)
    deepstack = len(vision.get("deepstack_visual_indexes") or [])
    return (
        patch_embed
        + pos_embed
        + _int(vision, "depth") * block
        + (2 * h + merger_fcs)
        + deepstack * (2 * merged + merger_fcs)
    )


def gemma4_vision_parameters(vision: Mapping[str, Any], text_hidden: int) -> int:
    """Gemma 4 vision tower and its embedder (``modeling_gemma4.py`` ``Gemma4VisionModel``,
    ``Gemma4MultimodalEmbedder``).

    patch_embedder: input_proj (3·patch² -> hidden, no bias) and a position table of 2 x position_embedding_size x
    hidden; layers of q/k/v/o projections, q_norm and k_norm over head_dim (v_norm has no weight), a gated MLP and
    four RMSNorms; std_bias and std_scale (hidden each) when ``standardize``; embed_vision.embedding_projection
    hidden -> text hidden. Clipped linears' min/max are buffers, not counted.
    """
    h = _int(vision, "hidden_size")
    inner = _int(vision, "intermediate_size")
    heads = _int(vision, "num_attention_heads")
    kv = _int(vision, "num_key_value_heads", heads)
    head_dim = _int(vision, "head_dim", h // heads if heads else 0)
    patch = _int(vision, "patch_size")
    layer = h * heads * head_dim * 2 + 2 * h * kv * head_dim + 2 * head_dim + 3 * h * inner + 4 * h
    embedder = 3 * patch * patch * h + 2 * _int(vision, "position_embedding_size") * h
    standardize = 2 * h if vision.get("standardize") else 0
    return embedder + _int(vision, "num_hidden_layers") * layer + standardize + h * text_hidden


def pixtral_vision_parameters(vision: Mapping[str, Any], text_hidden: int, projector_bias: bool = False) -> int:
    """Mistral 3 (Mistral Small 3.x, Magistral 2509): the Pixtral encoder and the multi-modal projector
    (``modeling_pixtral.py`` ``PixtralVisionModel``, ``modeling_mistral3.py`` ``Mistral3MultiModalProjector``).

    patch_conv 3·patch² -> hidden (no bias), ln_pre RMSNorm; layers of attention_norm, q/k/v/o (no bias), ffn_norm
    and a gated feed-forward; the projector: RMSNorm over hidden, the patch merger's merging_layer (merge² hidden
    -> hidden), linear_1 hidden -> text hidden and linear_2 text hidden -> text hidden.
    """
    h = _int(vision, "hidden_size")
    inner = _int(vision, "intermediate_size")
    patch = _int(vision, "patch_size")
    merge = _int(vision, "spatial_merge_size", 2)
    layer = 2 * h + 4 * h * h + 3 * h * inner
    encoder = 3 * patch * patch * h + h + _int(vision, "num_hidden_layers") * layer
    bias = (text_hidden + text_hidden) if projector_bias else 0
    projector = h + merge * merge * h * h + h * text_hidden + text_hidden * text_hidden + bias
    return encoder + projector


def siglip_parameters(vision: Mapping[str, Any]) -> int:
    """SigLIP's vision encoder (transformers ``SiglipVisionModel`` without its pooling head): the patch embedding
    (a conv with bias), one position embedding a patch, layers of two norms, four biased projections and a biased
    two-layer MLP, and the post-layernorm.

    >>> siglip_parameters({"hidden_size": 1152, "intermediate_size": 4304, "num_hidden_layers": 27,
    ...                    "patch_size": 14, "image_size": 896})  # so400m, Gemma 3's (the catalog: 416,866,032)
    416866032
    """
    h, inner = _int(vision, "hidden_size"), _int(vision, "intermediate_size")
    patch, image = _int(vision, "patch_size"), _int(vision, "image_size")
    channels = int(vision.get("num_channels") or 3)
    embeddings = channels * patch * patch * h + h + (image // patch) ** 2 * h
    layer = 4 * h + 4 * (h * h + h) + 2 * h * inner + inner + h
    return embeddings + _int(vision, "num_hidden_layers") * layer + 2 * h


def gemma3_vision_parameters(vision: Mapping[str, Any], config: Mapping[str, Any]) -> int:
    """Gemma 3's SigLIP tower and its ``Gemma3MultiModalProjector`` (``mm_input_projection_weight``, vision hidden x
    text hidden, and ``mm_soft_emb_norm``); the catalog's 423,060,336 for Gemma 3 27B (text hidden 5,376)."""
    h = _int(vision, "hidden_size")
    return siglip_parameters(vision) + h * _int(config.get("text_config") or {}, "hidden_size") + h


VisionCounter = Callable[[Mapping[str, Any], Mapping[str, Any]], int]

# vision_config model_type -> (label, counter(vision_config, whole config)).
FAMILIES: dict[str, tuple[str, VisionCounter]] = {
    "qwen3_vl": ("Qwen3-VL vision tower (deepstack mergers)", lambda v, c: qwen3_vl_vision_parameters(v)),
    "qwen3_vl_moe": ("Qwen3-VL vision tower (deepstack mergers)", lambda v, c: qwen3_vl_vision_parameters(v)),
    "qwen3_5": ("Qwen3.5 vision tower + merger", lambda v, c: qwen3_vl_vision_parameters(v)),
    "qwen3_5_moe": ("Qwen3.5 vision tower + merger", lambda v, c: qwen3_vl_vision_parameters(v)),
    "qwen3_5_vision": ("Qwen3.5 vision tower + merger", lambda v, c: qwen3_vl_vision_parameters(v)),
    "qwen3_5_moe_vision": ("Qwen3.5 vision tower + merger", lambda v, c: qwen3_vl_vision_parameters(v)),
    "gemma4_vision": (
        "Gemma 4 vision tower + embed_vision",
        lambda v, c: gemma4_vision_parameters(v, _int(c.get("text_config") or {}, "hidden_size")),
    ),
    "gemma3_siglip": ("SigLIP vision tower + multi-modal projector", gemma3_vision_parameters),
    "pixtral": (
        "Pixtral vision encoder + multi-modal projector",
        lambda v, c: pixtral_vision_parameters(
            v, _int(c.get("text_config") or {}, "hidden_size"), bool(c.get("multimodal_projector_bias"))
        ),
    ),
}


def vision_tower(config: Mapping[str, Any]) -> AttachedModule | None:
    """The vision tower of a multimodal ``config.json`` as an attached module, or None when there is none or its
    family is not known here. Malformed fields raise ValueError naming the field."""
    vision = config.get("vision_config")
    if not isinstance(vision, Mapping):
        return None
    family = str(vision.get("model_type") or "")
    if family == "siglip_vision_model" and config.get("model_type") == "gemma3":  # its projector is Gemma 3's
        family = "gemma3_siglip"
    if family not in FAMILIES:
        return None
    label, counter = FAMILIES[family]
    return AttachedModule(
        name=label,
        parameters=counter(vision, config),
        loaded_for_serving=True,
        source=f"computed from vision_config ({family}) by planner.sources.vision",
    )
