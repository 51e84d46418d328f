"""Every path that builds a ModelSpec is bounded by planner.bounds.limits: a description beyond any real model is
refused
by name before any work (issue 11: a million layers, a 10^400 hidden size, a context above 2^53)."""

from __future__ import annotations

import time

import pytest
from pydantic import ValidationError

from model_catalog import load_models
from planner.bounds import limits
from planner.core.model import ModelSpec
from planner.planning.plan import PlanRequest

BASE = dict(
    id="t/m",
    hidden_size=4096,
    num_hidden_layers=32,
    num_attention_heads=32,
    num_key_value_heads=8,
    intermediate_size=14336,
    vocab_size=128256,
)
MOE = {"num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 1408}
MLA = {"kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128}

BEYOND = [
    ({"num_hidden_layers": 10**6}, "num_hidden_layers"),
    ({"num_hidden_layers": 1e6}, "num_hidden_layers"),
    ({"hidden_size": 10**400}, "hidden_size"),
    ({"hidden_size": limits.MAX_HIDDEN + 128, "num_attention_heads": 128}, "hidden_size"),
    ({"intermediate_size": limits.MAX_WIDTH + 1}, "intermediate_size"),
    ({"num_attention_heads": 8192, "num_key_value_heads": 8, "head_dim": 128}, "num_attention_heads"),
    ({"head_dim": limits.MAX_HEAD_DIM + 1}, "head_dim"),
    ({"vocab_size": limits.MAX_VOCAB + 1}, "vocab_size"),
    ({"max_position_embeddings": 2**53 + 1}, "max_position_embeddings"),
    ({"max_position_embeddings": 10**30}, "max_position_embeddings"),
    ({"sliding_window": limits.MAX_CONTEXT + 1, "layer_pattern": ["sliding", "full"]}, "sliding_window"),
    ({"num_parameters": 10**30}, "num_parameters"),
    ({"num_parameters": limits.MAX_PARAMETERS + 1}, "num_parameters"),
    ({"moe": {**MOE, "num_experts": limits.MAX_EXPERTS + 1}}, "moe.num_experts"),
    ({"moe": {**MOE, "moe_intermediate_size": 10**12}}, "moe.moe_intermediate_size"),
    ({"moe": {**MOE, "moe_layer_period": 10**9}}, "moe.moe_layer_period"),
    ({"mla": {**MLA, "kv_lora_rank": 10**9}, "head_dim": None}, "mla.kv_lora_rank"),
    ({"layer_types": ["full"] * (limits.MAX_LAYERS + 1), "num_hidden_layers": limits.MAX_LAYERS + 1}, "layer"),
    ({"num_nextn_predict_layers": 10**6}, "num_nextn_predict_layers"),
    ({"id": "x" * 100_000}, "id"),
    ({"model_type": "y" * 100_000}, "model_type"),
]


@pytest.mark.parametrize(("changes", "field"), BEYOND, ids=[f for _, f in BEYOND])
def test_a_count_beyond_any_real_model_is_refused_by_name(changes: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as info:
        ModelSpec.model_validate({**BASE, **changes})
    assert field in str(info.value)


def test_layer_pattern_is_checked_before_it_is_expanded() -> None:
    """1.38 s and ~1 GB before the fix: ten million layers were expanded from the pattern first."""
    start = time.perf_counter()
    for layers in (10**7, 10**12, 1e7):
        with pytest.raises(ValidationError, match="num_hidden_layers"):
            ModelSpec.model_validate(
                {**BASE, "num_hidden_layers": layers, "layer_pattern": ["sliding", "full"], "sliding_window": 4}
            )
    with pytest.raises(ValidationError, match="layer_pattern"):
        ModelSpec.model_validate({**BASE, "layer_pattern": ["full"] * 10**6})
    with pytest.raises(ValidationError, match="layer_pattern"):
        ModelSpec.model_validate({**BASE, "layer_pattern": "f" * 10**6})
    assert time.perf_counter() - start < 0.5


def test_the_largest_allowed_spec_is_accepted() -> None:
    spec = ModelSpec.model_validate(
        {
            **BASE,
            "num_hidden_layers": limits.MAX_LAYERS,
            "layer_pattern": ["sliding", "full"],
            "sliding_window": limits.MAX_CONTEXT,
            "max_position_embeddings": limits.MAX_CONTEXT,
            "vocab_size": limits.MAX_VOCAB,
        }
    )
    assert len(spec.layers) == limits.MAX_LAYERS


def test_every_catalog_model_is_within_the_limits() -> None:
    for entry in load_models().values():
        ModelSpec.model_validate(entry.spec.model_dump())


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"gpu_count": 10**9}, "gpu_count"),
        ({"tensor_parallel": 10**9}, "tensor_parallel"),
        ({"pipeline_parallel": 10**6}, "pipeline_parallel"),
        ({"context_tokens": 2**60}, "context_tokens"),
        ({"max_model_len": 2**60}, "max_model_len"),
        ({"gpu_memory_bytes": 10**308}, "gpu_memory_bytes"),
    ],
)
def test_a_deployment_beyond_any_real_one_is_refused_by_name(changes: dict[str, object], field: str) -> None:
    """``fit --gpus 1000000000`` ran past 30 s: the default split tried every divisor of the count."""
    spec = ModelSpec.model_validate(BASE)
    start = time.perf_counter()
    with pytest.raises(ValidationError, match=field):
        PlanRequest.model_validate({"model": spec, "gpu_memory_bytes": 80 * 10**9, **changes})
    assert time.perf_counter() - start < 0.1
