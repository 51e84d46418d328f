"""config.json -> ModelSpec: every recorded Hub config of a catalog model gives the catalog's counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from model_catalog import load_models
from planner.bounds.errors import BeyondLimitsError, PlannerError
from planner.core.kv import kv_bytes_per_token
from planner.core.model import ModelSpec
from planner.core.params import parameter_breakdown
from planner.sources.config import parse_config_text, quantization_precision, spec_from_hf_config

HUB = Path(__file__).resolve().parents[1] / "fixtures" / "hub"
# Recorded config.json of a repository -> the catalog entry with the same language model.
SAME_MODEL = {
    "meta-llama/Llama-3.1-8B": "meta-llama/Llama-3.1-8B",
    "Qwen/Qwen3-30B-A3B": "Qwen/Qwen3-30B-A3B",
    "deepseek-ai/DeepSeek-V3": "deepseek-ai/DeepSeek-V3",
    "openai/gpt-oss-20b": "openai/gpt-oss-20b",
    "mistralai/Mistral-7B-v0.1": "mistralai/Mistral-7B-v0.1",
    "Qwen/Qwen3-0.6B": "Qwen/Qwen3-0.6B",
}


def _config(repo: str) -> dict:
    return json.loads((HUB / repo / "config.json").read_text())


@pytest.mark.parametrize("repo", sorted(SAME_MODEL))
def test_recorded_configs_give_the_catalog_counts(repo: str) -> None:
    spec = spec_from_hf_config(_config(repo), repo)
    entry = load_models()[SAME_MODEL[repo]].spec
    assert parameter_breakdown(spec).served == parameter_breakdown(entry).served
    assert kv_bytes_per_token(spec, "bf16") == kv_bytes_per_token(entry, "bf16")
    assert spec.layer_kind_counts == entry.layer_kind_counts


def test_gemma3_multimodal_config_plans_the_text_model() -> None:
    spec = spec_from_hf_config(_config("google/gemma-3-27b-it"), "google/gemma-3-27b-it")
    assert spec.layer_kind_counts["sliding"] == 52 and spec.layer_kind_counts["full"] == 10
    assert spec.sliding_window == 1024


def test_quantization_configs() -> None:
    assert quantization_precision(_config("Qwen/Qwen2.5-7B-Instruct-AWQ")) == "int4-awq"
    assert quantization_precision(_config("RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8")) == "fp8"
    assert quantization_precision(_config("openai/gpt-oss-20b")) == "mxfp4"
    assert quantization_precision(_config("deepseek-ai/DeepSeek-V3")) == "fp8"
    assert quantization_precision({"quantization_config": {"quant_method": "bitsandbytes", "load_in_8bit": True}}) == (
        "int8"
    )
    assert quantization_precision({}) is None


def test_falcon_multi_query_means_one_kv_head() -> None:
    config = {
        "model_type": "falcon",
        "hidden_size": 4544,
        "num_hidden_layers": 32,
        "num_attention_heads": 71,
        "num_kv_heads": 71,
        "multi_query": True,
        "vocab_size": 65024,
        "new_decoder_architecture": False,
    }
    spec = spec_from_hf_config(config, "tiiuae/falcon-7b")
    assert spec.resolved_kv_heads == 1
    assert parameter_breakdown(spec).total == parameter_breakdown(load_models()["tiiuae/falcon-7b"].spec).total


def test_qwen2_sliding_window_is_off_unless_enabled() -> None:
    config = {
        "model_type": "qwen2",
        "hidden_size": 3584,
        "num_hidden_layers": 28,
        "num_attention_heads": 28,
        "num_key_value_heads": 4,
        "intermediate_size": 18944,
        "vocab_size": 152064,
        "sliding_window": 131072,
        "use_sliding_window": False,
    }
    spec = spec_from_hf_config(config, "Qwen/Qwen2.5-7B")
    assert spec.layer_kind_counts["sliding"] == 0
    assert parameter_breakdown(spec).total == 7_615_616_512


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ([], "expected a JSON object"),
        ({"hidden_size": 4096}, "num_hidden_layers: missing"),
        (
            {
                "num_hidden_layers": 4,
                "hidden_size": 64,
                "num_attention_heads": 8,
                "num_key_value_heads": 3,
                "vocab_size": 10,
                "intermediate_size": 10,
            },
            "must be a multiple of num_key_value_heads (3)",
        ),
        (
            {
                "num_hidden_layers": 2,
                "layer_types": ["full_attention", "wavelet"],
                "hidden_size": 64,
                "num_attention_heads": 8,
                "vocab_size": 10,
                "intermediate_size": 10,
            },
            "unknown layer type 'wavelet'",
        ),
    ],
)
def test_malformed_configs_name_the_field(config: object, message: str) -> None:
    with pytest.raises(PlannerError, match=message.replace("(", r"\(").replace(")", r"\)")):
        spec_from_hf_config(config, "x/y")  # type: ignore[arg-type]


def test_malformed_json_text() -> None:
    with pytest.raises(PlannerError, match="not valid JSON"):
        parse_config_text("{oops")


# -- RoPE fields that change vLLM's cos/sin cache (planner.engines.vllm.rope) --------------------------------------

_SMALL = {
    "model_type": "llama",
    "hidden_size": 512,
    "num_hidden_layers": 6,
    "num_attention_heads": 8,
    "num_key_value_heads": 8,
    "intermediate_size": 1024,
    "vocab_size": 1000,
}


def test_gemma3_rope_scaling_and_local_rope_in_both_layouts() -> None:
    """transformers v4 (rope_scaling + rope_local_base_freq) and v5 (rope_parameters per layer type) alike."""
    text = {**_SMALL, "model_type": "gemma3_text", "head_dim": 64, "sliding_window": 512}
    v4 = {**text, "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "rope_local_base_freq": 10000.0}
    v5 = {
        **text,
        "rope_parameters": {
            "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
            "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
        },
    }
    for config in (v4, {"model_type": "gemma3", "text_config": v4}, v5):
        spec = spec_from_hf_config(config)
        assert spec.rope_scaling is not None
        assert (spec.rope_scaling.rope_type, spec.rope_scaling.factor) == ("linear", 8.0)
        assert spec.sliding_rope and spec.partial_rotary_factor == 1.0 and not spec.mrope
    plain = spec_from_hf_config({**text, "rope_scaling": None, "rope_local_base_freq": 10000.0})
    assert plain.rope_scaling is None and plain.sliding_rope  # gemma-3-1b: no scaling, still two caches


def test_partial_rotary_factor_read_from_every_place_vllm_reads_it() -> None:
    assert (
        spec_from_hf_config({**_SMALL, "model_type": "phi", "partial_rotary_factor": 0.4}).partial_rotary_factor == 0.4
    )
    nested = {**_SMALL, "rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.25}}
    assert spec_from_hf_config(nested).partial_rotary_factor == 0.25
    assert spec_from_hf_config({**_SMALL, "model_type": "glm4"}).partial_rotary_factor == 0.5  # glm4.py default
    assert spec_from_hf_config({**_SMALL, "model_type": "glm4_moe"}).partial_rotary_factor == 0.5
    minimax = {**_SMALL, "model_type": "minimax_m2", "head_dim": 128, "rotary_dim": 64}
    assert spec_from_hf_config(minimax).partial_rotary_factor == 0.5  # minimax_m2.py: rotary_dim / head_dim
    qwen35 = {
        **_SMALL,
        "model_type": "qwen3_5_text",
        "head_dim": 256,
        "linear_num_key_heads": 4,
        "linear_num_value_heads": 8,
        "linear_key_head_dim": 64,
        "linear_value_head_dim": 64,
        "full_attention_interval": 2,
        "rope_parameters": {"rope_type": "default", "mrope_section": [11, 11, 10], "mrope_interleaved": True},
    }
    spec = spec_from_hf_config(qwen35)
    assert spec.partial_rotary_factor == 0.25 and spec.mrope  # vLLM configs/qwen3_5.py default 0.25
    assert spec_from_hf_config(_SMALL).partial_rotary_factor == 1.0 and not spec_from_hf_config(_SMALL).mrope


def test_rope_scaling_kinds_that_do_not_change_the_cache_are_not_carried() -> None:
    dynamic = spec_from_hf_config({**_SMALL, "rope_scaling": {"type": "dynamic", "factor": 4}})
    assert dynamic.rope_scaling is not None and dynamic.rope_scaling.rope_type == "dynamic"
    for rope in (
        {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
        {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0},
        {"rope_type": "default"},
    ):
        assert spec_from_hf_config({**_SMALL, "rope_scaling": rope}).rope_scaling is None


@pytest.mark.parametrize(
    ("config", "message", "error"),
    [
        ({**_SMALL, "rope_scaling": {"rope_type": "linear", "factor": 1e9}}, "rope_scaling.factor", BeyondLimitsError),
        ({**_SMALL, "rope_scaling": {"rope_type": "linear", "factor": 0.5}}, "rope_scaling.factor", BeyondLimitsError),
        ({**_SMALL, "rope_scaling": {"rope_type": "dynamic", "factor": "8"}}, "rope_scaling.factor", PlannerError),
        ({**_SMALL, "rope_scaling": {"rope_type": "linear", "factor": True}}, "rope_scaling.factor", PlannerError),
        ({**_SMALL, "rope_scaling": {"rope_type": "linear"}}, "rope_scaling.factor", PlannerError),
        ({**_SMALL, "rope_scaling": "linear"}, "rope_scaling", PlannerError),
        ({**_SMALL, "partial_rotary_factor": 0}, "partial_rotary_factor", BeyondLimitsError),
        ({**_SMALL, "partial_rotary_factor": 1.5}, "partial_rotary_factor", BeyondLimitsError),
        ({**_SMALL, "partial_rotary_factor": -0.25}, "partial_rotary_factor", BeyondLimitsError),
        ({**_SMALL, "rope_parameters": {"partial_rotary_factor": [0.5]}}, "partial_rotary_factor", PlannerError),
        ({**_SMALL, "model_type": "minimax_m2", "head_dim": 64, "rotary_dim": 128}, "rotary_dim", BeyondLimitsError),
    ],
)
def test_out_of_bound_rope_fields_are_refused_by_name(config: dict, message: str, error: type[Exception]) -> None:
    with pytest.raises(error, match=message):
        spec_from_hf_config(config, "x/y")


def test_model_spec_bounds_rope_fields() -> None:
    base = {"id": "x", "num_parameters": 10**9, "num_hidden_layers": 2, "num_key_value_heads": 2, "head_dim": 64}
    ModelSpec.model_validate(
        {**base, "partial_rotary_factor": 0.5, "rope_scaling": {"rope_type": "linear", "factor": 8}}
    )
    for bad in (
        {"partial_rotary_factor": 0.0},
        {"partial_rotary_factor": float("nan")},
        {"rope_scaling": {"rope_type": "linear", "factor": float("inf")}},
        {"rope_scaling": {"rope_type": "linear", "factor": 10**6}},
        {"rope_scaling": {"rope_type": "yarn", "factor": 4}},
    ):
        with pytest.raises(ValidationError):
            ModelSpec.model_validate({**base, **bad})
