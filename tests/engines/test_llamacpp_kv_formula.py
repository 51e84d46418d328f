"""llama.cpp's own KV formula (:func:`planner.engines.llamacpp.profile.llamacpp_kv_bytes`, written from
``llama-kv-cache.cpp``) and the planner's (:mod:`planner.core.kv`) must not drift apart: for every catalog model
whose layers all keep the whole context (full attention, or MLA's latent), an f16 cache of ``n_ctx`` cells is
``n_ctx`` x the planner's FP16 bytes per token, exactly. DeepSeek sparse-attention models (an indexer) are left
out: the planner adds the indexer's FP8 key cache as vLLM stores it, which llama.cpp's formula does not have."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from model_catalog import load_models
from planner.core.blocks import LayerKind
from planner.core.kv import kv_bytes_per_token
from planner.engines.llamacpp.profile import LLAMACPP_CTX_PAD, llamacpp_kv_bytes

WHOLE_CONTEXT = sorted(
    model_id
    for model_id, entry in load_models().items()
    if entry.spec.hidden_size is not None and set(entry.spec.layers) <= {LayerKind.FULL} and entry.spec.indexer is None
)


def test_the_catalog_has_full_attention_and_mla_models_to_compare() -> None:
    mla = [m for m in WHOLE_CONTEXT if load_models()[m].spec.mla is not None]
    assert len(WHOLE_CONTEXT) >= 40 and len(mla) >= 3, (len(WHOLE_CONTEXT), mla)


@settings(max_examples=150, deadline=None)
@given(model_id=st.sampled_from(WHOLE_CONTEXT), blocks=st.integers(min_value=1, max_value=4096))
def test_llamacpp_f16_cache_equals_the_planners_fp16_bytes(model_id: str, blocks: int) -> None:
    spec = load_models()[model_id].spec
    n_ctx = blocks * LLAMACPP_CTX_PAD  # a padded context: no rounding on either side
    assert llamacpp_kv_bytes(spec, n_ctx) == n_ctx * kv_bytes_per_token(spec, "fp16")
