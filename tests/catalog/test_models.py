"""Coverage test of the model catalog: every entry validates, ids are unique, every entry cites a source,
and the parameter counts and KV sizes computed from the architecture match the official figures."""

from __future__ import annotations

import pytest

from model_catalog import load_models
from planner.core.kv import kv_bytes_per_token
from planner.core.params import parameter_breakdown
from planner.core.precision import weight_format
from planner.core.weights import weights_bytes

MODELS = load_models()
IDS = sorted(MODELS)

# Required by the planner-core issue: the catalog must hold at least these Hugging Face ids.
REQUIRED = [
    "meta-llama/Llama-2-7b-hf",
    "meta-llama/Llama-2-13b-hf",
    "meta-llama/Llama-2-70b-hf",
    "meta-llama/Meta-Llama-3-8B",
    "meta-llama/Meta-Llama-3-70B",
    "meta-llama/Llama-3.1-8B",
    "meta-llama/Llama-3.1-70B",
    "meta-llama/Llama-3.1-405B",
    "meta-llama/Llama-3.2-1B",
    "meta-llama/Llama-3.2-3B",
    "meta-llama/Llama-3.3-70B-Instruct",
    "meta-llama/Llama-4-Scout-17B-16E",
    "mistralai/Mistral-7B-v0.1",
    "mistralai/Mistral-7B-v0.3",
    "mistralai/Mistral-Nemo-Base-2407",
    "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
    "mistralai/Mixtral-8x7B-v0.1",
    "mistralai/Mixtral-8x22B-v0.1",
    "Qwen/Qwen2.5-7B",
    "Qwen/Qwen2.5-14B",
    "Qwen/Qwen2.5-32B",
    "Qwen/Qwen2.5-72B",
    "Qwen/Qwen3-0.6B",
    "Qwen/Qwen3-8B",
    "Qwen/Qwen3-14B",
    "Qwen/Qwen3-32B",
    "Qwen/Qwen3-30B-A3B",
    "Qwen/Qwen3-235B-A22B",
    "Qwen/Qwen3-Coder-480B-A35B-Instruct",
    "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "google/gemma-2-9b",
    "google/gemma-2-27b",
    "google/gemma-3-4b-it",
    "google/gemma-3-12b-it",
    "google/gemma-3-27b-it",
    "microsoft/phi-2",
    "microsoft/Phi-3-mini-4k-instruct",
    "microsoft/phi-4",
    "deepseek-ai/DeepSeek-V2-Lite",
    "deepseek-ai/DeepSeek-V3",
    "deepseek-ai/DeepSeek-R1",
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
    "deepseek-ai/DeepSeek-R1-Distill-Llama-70B",
    "openai/gpt-oss-20b",
    "openai/gpt-oss-120b",
    "tiiuae/falcon-7b",
    "tiiuae/falcon-40b",
    "01-ai/Yi-34B",
    "CohereForAI/c4ai-command-r-v01",
    "THUDM/GLM-4-32B-0414",
]
HYBRID_SSM = (
    "ibm-granite/granite-4.0-h-small",
    "ibm-granite/granite-4.0-h-tiny",
    "ibm-granite/granite-4.0-h-micro",
    "ai21labs/AI21-Jamba-Mini-1.5",
    "ai21labs/Jamba-v0.1",
)


def test_catalog_has_every_required_model() -> None:
    missing = [m for m in REQUIRED if m not in MODELS]
    assert not missing, f"catalog lacks {missing}"
    assert any(m in MODELS for m in HYBRID_SSM), "catalog needs one Mamba hybrid"


@pytest.mark.parametrize("model_id", IDS)
def test_entry_cites_sources(model_id: str) -> None:
    entry = MODELS[model_id]
    assert entry.sources and all(len(s) > 8 for s in entry.sources)
    assert entry.reference.source


@pytest.mark.parametrize("model_id", IDS)
def test_total_parameters_match_official(model_id: str) -> None:
    """An exact published figure (the Hub total after its documented non-parameter entries, or another exact count:
    keras-hub, GGUF, index metadata) must agree within 0.1 %, and exactly unless a note explains the difference. A
    card's rounded "35B" carries two significant digits, so card-only entries are checked at 2.5 %."""
    entry = MODELS[model_id]
    ref = entry.reference
    computed = parameter_breakdown(entry.spec).total
    if ref.hub_safetensors_total is not None or ref.published_total is not None:
        if ref.hub_safetensors_total is not None:
            expected = ref.hub_safetensors_total - ref.hub_total_non_parameters
        else:
            assert ref.published_total is not None
            expected = ref.published_total
        assert computed == pytest.approx(expected, rel=1e-3), (computed, expected)
        if ref.note is None:
            assert computed == expected, "an inexact match needs a reference.note explaining the difference"
    else:
        assert ref.card_total is not None
        assert computed == pytest.approx(ref.card_total, rel=0.025), (computed, ref.card_total)


@pytest.mark.parametrize("model_id", [i for i in IDS if MODELS[i].reference.checkpoint_bytes])
def test_weight_bytes_match_the_published_checkpoint_size(model_id: str) -> None:
    """Every stored parameter (served and attached-not-loaded) in the checkpoint's format gives its published
    size (model.safetensors.index.json total_size) within 0.1 %."""
    entry = MODELS[model_id]
    ref = entry.reference
    assert ref.checkpoint_precision is not None and ref.checkpoint_bytes is not None
    fmt = weight_format(ref.checkpoint_precision)
    b = parameter_breakdown(entry.spec)
    if fmt.scope == "none":
        predicted = b.total * fmt.bits_per_weight / 8
    else:
        predicted = weights_bytes(b, ref.checkpoint_precision) + b.attached_not_loaded * fmt.unquantized_bits / 8
    assert predicted == pytest.approx(ref.checkpoint_bytes, rel=1e-3), (predicted, ref.checkpoint_bytes)


@pytest.mark.parametrize("model_id", [i for i in IDS if MODELS[i].reference.card_active])
def test_active_parameters_match_card(model_id: str) -> None:
    """Active parameters against the card's rounded figure ("3B active"): within 5 % of a 1-2 digit figure."""
    entry = MODELS[model_id]
    breakdown = parameter_breakdown(entry.spec)
    active = breakdown.active
    if entry.reference.card_active_excludes_embedding:
        active -= breakdown.embedding
    assert active == pytest.approx(entry.reference.card_active, rel=0.05), (active, entry.reference.card_active)


@pytest.mark.parametrize("model_id", [i for i in IDS if MODELS[i].kv_bytes_per_token_bf16 is not None])
def test_kv_bytes_per_token_match_reference(model_id: str) -> None:
    entry = MODELS[model_id]
    assert kv_bytes_per_token(entry.spec, "bf16") == entry.kv_bytes_per_token_bf16
