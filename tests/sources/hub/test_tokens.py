"""The access token: checked before use, taken from HF_TOKEN only when the caller says so, never in a reference."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from planner.bounds.errors import PlannerError
from planner.cli import main
from planner.sources.hub import HubAccessError, HubError, fetch_model, parse_repo_ref
from tests.sources.hub.conftest import TOKEN, HubServer

HF = "https://huggingface.co"


# -- 4. a token with characters no HTTP header can carry -----------------------------------------------
@pytest.mark.parametrize(
    "bad",
    [
        "hf_Abc\u200bdef0123456789abcdefXYZ0123456",  # a pasted zero-width space
        "hf_Abcdéf0123456789abcdefXYZ0123456",  # Latin-1, but not a token character
        "hf_Abc def0123456789",  # an inner space
        "hf_\x00Abcdef0123456789",  # a control character
        "«hf_Abcdef0123456789»",  # smart quotes around it
    ],
)
def test_a_token_with_unusable_characters_is_refused_before_any_request(hub: HubServer, bad: str) -> None:
    with pytest.raises(HubAccessError) as info:
        fetch_model("Qwen/Qwen3-0.6B", token=bad)
    message = str(info.value)
    assert "printable ASCII" in message and "token" in message
    assert bad not in message and "Abc" not in message and "hf_***" not in message
    assert hub.requests == []


def test_hf_token_with_a_zero_width_space_is_named(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_TOKEN", TOKEN[:10] + "\u200b" + TOKEN[10:])
    with pytest.raises(HubAccessError, match="HF_TOKEN contains"):
        fetch_model("Qwen/Qwen3-0.6B")
    assert hub.requests == []


def test_surrounding_whitespace_is_stripped(hub: HubServer) -> None:
    model = fetch_model("acme/private-model", token=f"  {TOKEN}\n")
    assert model.private
    assert {r.headers.get("Authorization") for r in hub.requests} == {f"Bearer {TOKEN}"}


# -- 5. the operator's HF_TOKEN and anonymous dashboard visitors ---------------------------------------
@pytest.fixture
def dashboard(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    """The dashboard's import path (ui.imports) against the fake Hub, HF_TOKEN set, the cache empty."""
    from ui.imports import _fetch_cached

    monkeypatch.delenv("HEADROOM_SHARE_SERVER_TOKEN", raising=False)
    _fetch_cached.clear()
    yield hub
    _fetch_cached.clear()


def test_dashboard_visitors_do_not_get_the_servers_token(dashboard: HubServer) -> None:
    from ui.imports import import_from_hub

    assert import_from_hub("mistralai/Mistral-7B-v0.1", None).spec is not None
    with pytest.raises(HubAccessError, match="is gated"):
        import_from_hub("meta-llama/Llama-3.1-8B", None)
    assert dashboard.requests and all("Authorization" not in r.headers for r in dashboard.requests)


def test_a_visitors_own_token_is_used(dashboard: HubServer) -> None:
    from ui.imports import import_from_hub

    assert import_from_hub("acme/private-model", TOKEN).private
    assert all(r.headers.get("Authorization") == f"Bearer {TOKEN}" for r in dashboard.requests)


def test_the_operator_can_share_the_servers_token(dashboard: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from ui.imports import import_from_hub

    monkeypatch.setenv("HEADROOM_SHARE_SERVER_TOKEN", "1")
    assert import_from_hub("meta-llama/Llama-3.1-8B", None).gated == "manual"
    assert dashboard.requests and all(r.headers.get("Authorization") == f"Bearer {TOKEN}" for r in dashboard.requests)


def test_fetch_model_reads_hf_token_only_when_asked(hub: HubServer) -> None:
    with pytest.raises(HubAccessError, match="is gated"):
        fetch_model("meta-llama/Llama-3.1-8B", use_env_token=False)
    assert all("Authorization" not in r.headers for r in hub.requests)
    assert fetch_model("meta-llama/Llama-3.1-8B", use_env_token=True).gated == "manual"


def test_the_cli_runs_as_the_operator_with_hf_token(hub: HubServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--hf", "meta-llama/Llama-3.1-8B", "--json"]) == 0
    assert TOKEN not in capsys.readouterr().out
    assert any(r.headers.get("Authorization") == f"Bearer {TOKEN}" for r in hub.requests)


# -- 6. a token pasted into the repository field -------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        TOKEN,
        f"  {TOKEN}  ",
        f"acme/{TOKEN}",
        f"{TOKEN}/model",
        f"Qwen/Qwen3-0.6B@{TOKEN}",
        f"https://huggingface.co/Qwen/Qwen3-0.6B?token={TOKEN}",
        f"https://huggingface.co/Qwen/Qwen3-0.6B/tree/{TOKEN}",
    ],
)
def test_a_token_in_the_reference_is_refused_without_echo(text: str) -> None:
    with pytest.raises(HubError) as info:
        parse_repo_ref(text, HF)
    message = str(info.value)
    assert "access token" in message
    assert TOKEN not in message and "HeadroomTestToken" not in message and "hf_***" not in message
    assert isinstance(info.value, PlannerError)


def test_a_token_in_the_reference_is_never_sent(hub: HubServer) -> None:
    with pytest.raises(HubError, match="access token"):
        fetch_model(f"acme/{TOKEN}")
    assert hub.requests == []


@pytest.mark.parametrize("name", ["huggingface/hf_transformers", "org/hf_model-v2", "hf_team/small_hf_model"])
def test_names_that_merely_start_with_hf_are_accepted(name: str) -> None:
    assert parse_repo_ref(name, HF) == (name, None)
