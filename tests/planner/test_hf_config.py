"""config.json -> ModelSpec: every recorded Hub config of a catalog model gives the catalog's counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_catalog import load_models
from planner.errors import PlannerError
from planner.hf_config import parse_config_text, quantization_precision, spec_from_hf_config
from planner.kv import kv_bytes_per_token
from planner.params import parameter_breakdown

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
