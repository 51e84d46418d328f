"""What a visitor of the dashboard is told when an import fails (issue 25 finding 7): never the server's Hub address
(``HF_ENDPOINT`` may be an internal mirror), never "set HF_TOKEN" or "HF_ENDPOINT" (a visitor can set neither), but
what a visitor can do. The command line keeps naming both: it runs as the operator, who set them."""

from __future__ import annotations

import socket
from collections.abc import Callable

import pytest

from planner.cli import main
from planner.sources.hub import HubError, fetch_model, parse_repo_ref
from planner.sources.hub.audience import for_visitors
from tests.sources.hub.conftest import TOKEN, Handler, HostileRepo, HubServer

FAST = {"timeout": (1.0, 0.3), "backoff": 0.01}
OPERATOR_ONLY = ("HF_TOKEN", "HF_ENDPOINT", "HF_HUB_OFFLINE")


def _visitor_message(call: Callable[[], object], *hidden: str) -> str:
    """The message a visitor reads for ``call``: no operator setting and none of ``hidden`` in it."""
    with for_visitors(), pytest.raises(HubError) as info:
        call()
    message = str(info.value)
    for text in (*OPERATOR_ONLY, *hidden):
        assert text not in message, message
    assert TOKEN not in message
    return message


def test_a_gated_repo_tells_a_visitor_where_to_ask_and_what_to_give(
    hub: HubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HF_TOKEN")
    message = _visitor_message(lambda: fetch_model("meta-llama/Llama-3.1-8B", use_env_token=False), hub.host)
    assert "request access at https://huggingface.co/meta-llama/Llama-3.1-8B" in message, message
    assert "access-token box" in message, message


def test_a_gated_repo_with_a_token_without_access(hub: HubServer) -> None:
    message = _visitor_message(
        lambda: fetch_model("meta-llama/Llama-3.1-8B", token="hf_SomeoneElsesToken9876543210"), hub.host
    )
    assert "huggingface.co/meta-llama/Llama-3.1-8B" in message, message


@pytest.mark.parametrize("token", [None, "not-hf-shaped-password-42"])
def test_a_private_repo_and_a_rejected_token(
    hub: HubServer, monkeypatch: pytest.MonkeyPatch, token: str | None
) -> None:
    monkeypatch.delenv("HF_TOKEN")
    _visitor_message(lambda: fetch_model("acme/private-model", token=token, use_env_token=False), hub.host)


def test_a_forbidden_file(hub: HubServer) -> None:
    repo = HostileRepo(hub, "hostile/forbidden")
    repo.respond(f"/{repo.name}/resolve/{repo.sha}/config.json", lambda h: h.send(403, b"{}"))
    _visitor_message(lambda: fetch_model(repo.name, use_env_token=False, **FAST), hub.host)


def test_a_missing_repo(hub: HubServer) -> None:
    message = _visitor_message(lambda: fetch_model("acme/does-not-exist", use_env_token=False), hub.host)
    assert "acme/does-not-exist not found" in message, message


def test_an_unreachable_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    message = _visitor_message(lambda: fetch_model("Qwen/Qwen3-0.6B", use_env_token=False, **FAST), str(port))
    assert "try again later" in message, message


def test_a_stalled_hub(hub: HubServer) -> None:
    def stall(handler: Handler) -> bool:
        hub.release.wait(5)
        return True

    hub.overrides["/api/models/headroom-test/stall"] = stall
    message = _visitor_message(lambda: fetch_model("headroom-test/stall", use_env_token=False, **FAST), hub.host)
    assert "timed out" in message, message


def test_a_refused_redirect(hub: HubServer) -> None:
    hub.aliases["hostile/away"] = "Qwen/Qwen3-0.6B"
    hub.overrides["/api/models/hostile/away"] = lambda h: h.send(302, b"", {"Location": "http://10.0.0.1:9/x"})
    _visitor_message(lambda: fetch_model("hostile/away", use_env_token=False, **FAST), hub.host)


def test_a_url_on_another_host(hub: HubServer) -> None:
    _visitor_message(lambda: parse_repo_ref("https://127.0.0.2:9/account/verify"), hub.host)


def test_an_offline_server(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    message = _visitor_message(lambda: fetch_model("Qwen/Qwen3-0.6B", use_env_token=False))
    assert "catalog model" in message, message


def test_a_malformed_server_token(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_TOKEN", "hf_ abc")
    message = _visitor_message(lambda: fetch_model("Qwen/Qwen3-0.6B", use_env_token=True))
    assert "the server's access token" in message, message


def test_the_operator_is_still_told_the_address_and_the_variables(
    hub: HubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HF_TOKEN")
    with pytest.raises(HubError) as info:
        fetch_model("meta-llama/Llama-3.1-8B")
    assert f"{hub.url}/meta-llama/Llama-3.1-8B and set HF_TOKEN" in str(info.value)


def test_the_cli_says_why_a_config_cannot_be_planned(hub: HubServer, capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown layer type: every field is there, so "config.json lacks config" said nothing."""
    repo = HostileRepo(hub, "hostile/layers")
    repo.file("config.json", {**repo.file_json("config.json"), "layer_types": ["weird_attention"] * 28})
    assert main(["fit", "--hf", repo.name, "--gpu", "h100-sxm-80gb"]) == 2
    error = capsys.readouterr().err.strip()
    assert "lacks config" not in error and "cannot be planned as written" in error, error
    assert "unknown layer type 'weird_attention' (known: " in error, error
