"""A model's shape at a glance: parameter counts, layer kinds and KV bytes per token in every KV format (what
``python -m planner inspect`` prints and :func:`planner.inspect` returns).

>>> from planner.core.model import ModelSpec
>>> spec = ModelSpec(id="tiny", num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
...                  num_key_value_heads=2, intermediate_size=128, vocab_size=1000)
>>> inspect(spec).kv_bytes_per_token["bf16"]  # 2 (K, V) x 2 layers x 2 heads x 16 dims x 2 bytes
256
"""

from __future__ import annotations

from pydantic import BaseModel

from planner.core.kv import kv_bytes_per_token
from planner.core.kv_formats import KV_FORMATS
from planner.core.model import ModelSpec
from planner.core.params import ParameterBreakdown, parameter_breakdown


class ModelInspection(BaseModel, frozen=True, extra="forbid"):
    """Counts and KV cost of one model; ``parameters_by_category`` is :class:`ParameterBreakdown`'s fields."""

    id: str
    model_type: str
    attention: str
    parameters_total: int
    parameters_active: int
    parameters_served: int
    parameters_by_category: ParameterBreakdown
    native_dtype: str
    num_hidden_layers: int
    layer_kinds: dict[str, int]
    sliding_window: int | None
    max_position_embeddings: int
    kv_bytes_per_token: dict[str, int]


def inspect(spec: ModelSpec) -> ModelInspection:
    """The shape of ``spec``: counts from :func:`planner.core.params.parameter_breakdown`, KV bytes per token
    from :func:`planner.core.kv.kv_bytes_per_token` in every KV format."""
    params = parameter_breakdown(spec)
    return ModelInspection(
        id=spec.id,
        model_type=spec.model_type,
        attention=spec.attention_kind,
        parameters_total=params.total,
        parameters_active=params.active,
        parameters_served=params.served,
        parameters_by_category=params,
        native_dtype=spec.native_dtype,
        num_hidden_layers=spec.num_hidden_layers,
        layer_kinds=dict(spec.layer_kind_counts),
        sliding_window=spec.sliding_window,
        max_position_embeddings=spec.max_position_embeddings,
        kv_bytes_per_token={name: kv_bytes_per_token(spec, name) for name in KV_FORMATS},
    )
