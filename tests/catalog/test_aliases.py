"""Catalog aliases: instruct / chat / base checkpoints planned as the entry whose config shapes they share, resolved
in one place (``model_catalog.resolve_model_id``) for every surface (the review of 2026-12-07, finding 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_catalog import CatalogError, alias_note, get_model, load_models, model_aliases, resolve_model_id

REFERENCE = Path(__file__).parents[1] / "fixtures" / "reference" / "models-reference.json"
RECORDS = {r["id"]: r for r in json.loads(REFERENCE.read_text(encoding="utf-8"))}
# Each alias -> the reference record holding its config shapes (a record of the same architecture: DeepSeek-R1's
# record says "same_architecture_as" deepseek-v3, whose shapes are then read).
ALIAS_RECORDS = {
    "meta-llama/Llama-3.1-8B-Instruct": "llama-3.1-8b",
    "meta-llama/Meta-Llama-3.1-8B-Instruct": "llama-3.1-8b",
    "meta-llama/Llama-3.1-70B-Instruct": "llama-3.1-70b",
    "meta-llama/Meta-Llama-3.1-70B-Instruct": "llama-3.1-70b",
    "meta-llama/Llama-3.1-405B-Instruct": "llama-3.1-405b",
    "meta-llama/Llama-3.2-1B-Instruct": "llama-3.2-1b",
    "mistralai/Mixtral-8x7B-Instruct-v0.1": "mixtral-8x7b",
    "deepseek-ai/DeepSeek-V3-Base": "deepseek-v3",
    "deepseek-ai/DeepSeek-V3-0324": "deepseek-v3",
    "deepseek-ai/DeepSeek-R1-0528": "deepseek-r1",
    "google/gemma-3-27b-pt": "gemma-3-27b",
    "google/gemma-3-4b-pt": "gemma-3-4b",
}
# Where the reference record itself names the alias's checkpoint (its repo, its exact total or its config copy).
NAMED_IN_RECORD = {
    "meta-llama/Llama-3.1-8B-Instruct": "Llama-3.1-8B-Instruct",
    "meta-llama/Llama-3.1-405B-Instruct": "Llama-3.1-405B-Instruct",
    "meta-llama/Llama-3.2-1B-Instruct": "Llama-3.2-1B-Instruct",
    "mistralai/Mixtral-8x7B-Instruct-v0.1": "Mixtral-8x7B-Instruct-v0.1",
    "deepseek-ai/DeepSeek-V3-Base": "DeepSeek-V3-Base",
    "deepseek-ai/DeepSeek-V3-0324": "DeepSeek-V3-0324",
    "deepseek-ai/DeepSeek-R1-0528": "R1-0528",
    "google/gemma-3-27b-pt": "-pt",
    "google/gemma-3-4b-pt": "-pt",
}


def _shapes_of_record(record_id: str) -> dict[str, object]:
    record = RECORDS[record_id]
    record = RECORDS[record.get("same_architecture_as", record_id)]
    return {
        "layers": record["num_hidden_layers"],
        "heads": record["num_attention_heads"],
        "kv_heads": record["num_key_value_heads"],
        "hidden": record["hidden_size"],
        "intermediate": record["intermediate_size"],
        "vocab": record["vocab_size"],
        "experts": record.get("num_experts"),
        "context": record["max_position_embeddings"],
    }


def _shapes_of_entry(model_id: str) -> dict[str, object]:
    spec = get_model(model_id).spec
    return {
        "layers": spec.num_hidden_layers,
        "heads": spec.num_attention_heads,
        "kv_heads": spec.num_key_value_heads,
        "hidden": spec.hidden_size,
        "intermediate": spec.intermediate_size,
        "vocab": spec.vocab_size,
        "experts": spec.moe.num_experts if spec.moe is not None else None,
        "context": spec.max_position_embeddings,
    }


def test_every_alias_is_checked_against_a_reference_config() -> None:
    declared = {a.id for entry in load_models().values() for a in entry.aliases}
    assert declared == set(ALIAS_RECORDS)


@pytest.mark.parametrize("alias", sorted(ALIAS_RECORDS))
def test_an_alias_has_its_entrys_config_shapes(alias: str) -> None:
    """The alias's config (the reference record of its checkpoint family) equals the entry's spec in every shape
    the plan reads: layers, heads, KV heads, hidden, intermediate, vocabulary, experts, context."""
    entry_id = resolve_model_id(alias)
    assert _shapes_of_record(ALIAS_RECORDS[alias]) == _shapes_of_entry(entry_id)
    if alias in NAMED_IN_RECORD:
        assert NAMED_IN_RECORD[alias] in json.dumps(RECORDS[ALIAS_RECORDS[alias]])


def test_the_registry_is_sound() -> None:
    """Every alias unique, never another entry's id, its entry in the catalog; each with a source."""
    models = load_models()
    ids = {k.lower() for k in models}
    aliases = [a for entry in models.values() for a in entry.aliases]
    assert len({a.id.lower() for a in aliases}) == len(aliases)
    assert not {a.id.lower() for a in aliases} & ids
    assert set(model_aliases().values()) <= set(models)
    assert all(len(a.source) > 20 for a in aliases)


def test_the_review_ids_resolve_and_say_so() -> None:
    assert resolve_model_id("meta-llama/Llama-3.1-70B-Instruct") == "meta-llama/Llama-3.1-70B"
    assert get_model("META-LLAMA/llama-3.1-70b-instruct").id == "meta-llama/Llama-3.1-70B"
    assert alias_note("meta-llama/Llama-3.1-70B-Instruct") == (
        "Llama-3.1-70B-Instruct: planned as the catalog's Llama 3.1 70B (meta-llama/Llama-3.1-70B), same shapes"
    )
    assert alias_note("meta-llama/Llama-3.1-70B") is None
    assert resolve_model_id("meta-llama/llama-3.1-70b") == "meta-llama/Llama-3.1-70B"


def test_an_unknown_id_keeps_the_named_message() -> None:
    """Qwen2.5-7B-Instruct is no alias: its config's max_position_embeddings is 32,768, the base's 131,072
    (tests/fixtures/reference/models-reference.json qwen2.5-7b)."""
    assert RECORDS["qwen2.5-7b"]["max_position_embeddings"] == {"base": 131072, "instruct": 32768}
    with pytest.raises(CatalogError, match=r"model: unknown id 'Qwen/Qwen2\.5-7B-Instruct'; did you mean"):
        get_model("Qwen/Qwen2.5-7B-Instruct")
    with pytest.raises(CatalogError, match="model: unknown id 'no/such-model'"):
        resolve_model_id("no/such-model")
