"""What a plan says when it switches on a YaRN extension the model's card documents
(:func:`planner.core.model.for_context`); each engine's flags for it are :mod:`planner.engines.yarn`'s."""

from __future__ import annotations

from planner.core.model import ModelSpec

# The card's words, quoted on every plan that switches YaRN on (the Qwen3 cards' 'Processing Long Texts').
CARD_CAVEAT = (
    "the card warns that engines implement static YaRN, 'the scaling factor remains constant regardless of input "
    "length, potentially impacting performance on shorter texts', and advises adding it 'only when processing long "
    "contexts is required' (and a smaller factor for shorter ones: 2.0 for a typical 65,536 tokens; planned at the "
    "documented factor)"
)


def yarn_note(model: ModelSpec) -> str | None:
    """What a plan with YaRN switched on says: the setting, why, and the card's caveat; ``None`` without it.

    >>> from model_catalog import get_model
    >>> from planner.core.model import for_context
    >>> print(yarn_note(for_context(get_model("Qwen/Qwen3-32B").spec, 131072)))  # doctest: +ELLIPSIS
    YaRN switched on (factor 4 over the original 32,768 tokens: up to 131,072, past the config's 40,960), as the \
model card documents and the launch command sets; the card warns that engines implement static YaRN, ...
    """
    yarn = model.yarn
    if not model.yarn_on or yarn is None:
        return None
    return (
        f"YaRN switched on (factor {yarn.factor:g} over the original {yarn.original_max_position_embeddings:,} tokens: "
        f"up to {yarn.ceiling:,}, past the config's {model.max_position_embeddings:,}), as the model card documents "
        "and the launch command sets; " + CARD_CAVEAT
    )
