"""Hostile input through the dashboard, second pass (issue 25): what a visitor is told when a Hub import fails, and
a failed import read from the Hub once for every session that opens it."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import streamlit as st

from tests.app.conftest import run_page, texts
from tests.sources.hub.conftest import FIXTURES, HostileRepo, HubServer, _start, _stop
from ui.custom_spec import pack_token
from ui.imports import FAILURES


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    """The fake Hub of tests/sources/hub standing in for an internal mirror (HF_ENDPOINT on loopback), no server
    token."""
    server = _start(HubServer(FIXTURES))
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    st.cache_data.clear()
    FAILURES.clear()
    try:
        yield server
    finally:
        _stop(server)
        st.cache_data.clear()
        FAILURES.clear()


def _sidebar_messages(params: dict[str, str]) -> list[str]:
    at = run_page("memory", params)
    assert not at.exception, [e.value for e in at.exception]
    return texts([*at.sidebar.error, *at.sidebar.warning])


def test_a_config_with_an_unknown_layer_type_says_why_it_cannot_be_planned(hub: HubServer) -> None:
    """Finding 7: every field was there, so the sidebar said "config.json lacks config"."""
    repo = HostileRepo(hub, "hostile/layers")
    repo.file("config.json", {**repo.file_json("config.json"), "layer_types": ["weird_attention"] * 28})
    messages = " ".join(_sidebar_messages({"hf": repo.name}))
    assert "lacks config" not in messages, messages
    assert "cannot be planned as written" in messages and "weird_attention" in messages, messages


def test_a_visitor_is_never_shown_the_servers_hub_address_or_its_variables(hub: HubServer) -> None:
    """Finding 7: a gated repository's error named HF_ENDPOINT's address (an internal mirror) and told the visitor
    to set HF_TOKEN."""
    for reference in ("meta-llama/Llama-3.1-8B", "acme/does-not-exist"):
        messages = " ".join(_sidebar_messages({"hf": reference}))
        assert "Import failed" in messages, messages
        for hidden in (hub.host, "HF_TOKEN", "HF_ENDPOINT"):
            assert hidden not in messages, (hidden, messages)


def test_a_failed_import_is_read_from_the_hub_once_for_every_session(hub: HubServer) -> None:
    """Finding 3: failures were not cached, so sessions looping a link to a repository whose 49 MB index fails
    validation downloaded it on every run. The second and third sessions are told the same error without the Hub
    being asked again."""
    repo = HostileRepo(hub, "hostile/index", base="mistralai/Mistral-7B-v0.1")
    repo.file("model.safetensors.index.json", {"metadata": {"total_size": "14 GB"}, "weight_map": {}})
    index_path = f"/{repo.name}/resolve/{repo.sha}/model.safetensors.index.json"
    first = _sidebar_messages({"hf": repo.name})
    for _ in range(2):
        again = _sidebar_messages({"hf": repo.name})
        assert any("metadata.total_size" in m for m in again), again
    assert any("metadata.total_size" in m for m in first), first
    assert sum(r.path == index_path for r in hub.requests) == 1, [r.path for r in hub.requests]


@pytest.mark.parametrize("method", ["eagle", "eagle3"])
def test_a_model_without_kv_cache_with_a_proposer_draws_the_memory_page(method: str) -> None:
    """Finding 5: every layer without a KV cache and an EAGLE proposer divided by zero; the page apologised."""
    shape = {
        "id": "x/mlp-only",
        "hidden_size": 4096,
        "num_hidden_layers": 4,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "vocab_size": 128256,
        "layer_types": ["none"] * 4,
    }
    at = run_page("memory", {"spec": pack_token(json.dumps(shape).encode()), "spec_method": method})
    assert not at.exception, [e.value for e in at.exception]
    errors = texts(at.error)
    assert not any("Something went wrong" in e for e in errors), errors
    assert at.title, "the page draws"
