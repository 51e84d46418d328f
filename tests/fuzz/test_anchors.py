"""The page-wide anchor check (issue 25 finding 2): whatever a link, an imported repository or a model description
says, no element of any page renders an anchor that points anywhere but the app and its documented sources. Bare
URLs, ``www.`` names and e-mail addresses became live links though every Markdown character was escaped: GFM
autolinks them in the text once the escapes are resolved (tests/anchors.py models it; tests/browser/test_anchors.py
checks the real DOM)."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator

import pytest
import streamlit as st
from hypothesis import given, settings
from hypothesis import strategies as hst

from tests.anchors import foreign_anchors, markdown_anchors, unescape
from tests.app.conftest import CALIBRATE, COMMANDS, PAGES, SOURCES, run_page
from tests.fuzz.conftest import FUZZ
from tests.sources.hub.conftest import FIXTURES, HostileRepo, HubServer, _start, _stop
from ui.custom_spec import pack_token
from ui.guard import WORD_JOINER, as_text

pytestmark = pytest.mark.apptest
LLAMA = {
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
}
PHISHING = "https://example-login.test/verify-your-account"
MODEL_PAGES = ("memory", "what_if", "compare", "advisor")


def _named(name: str, model_id: str = "x/y") -> str:
    return pack_token(json.dumps({**LLAMA, "id": model_id, "name": name}).encode())


def _check(page: str, params: dict[str, str]) -> None:
    sections = [COMMANDS, CALIBRATE, SOURCES] if page == "memory" else []  # the Memory page's lazy sections drawn too
    at = run_page(page, params, open_keys=sections)
    assert not at.exception, [e.value for e in at.exception]
    assert not foreign_anchors(at), foreign_anchors(at)


@pytest.mark.parametrize(
    "params",
    [{"hf": "www.example-login.test/x"}, {"hf": "https://127.0.0.1:9/account/verify"}, {"hf": "a@example-login.test"}],
    ids=["www", "url", "email"],
)
def test_a_hub_reference_in_a_link_stays_text(params: dict[str, str]) -> None:
    """``/?hf=www.example-login.test/x`` showed a sidebar error with a clickable http://www.example-login.test/x."""
    _check("memory", params)


@pytest.mark.parametrize("page", MODEL_PAGES)
def test_a_model_name_with_a_url_stays_text_in_titles_and_verdicts(page: str) -> None:
    """A model named after a URL became a link in the page title and the verdict on four pages."""
    _check(page, {"spec": _named(f"Llama {PHISHING} www.example-login.test support@example-login.test")})


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    server = _start(HubServer(FIXTURES))
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    st.cache_data.clear()
    try:
        yield server
    finally:
        _stop(server)
        st.cache_data.clear()


def test_a_tensor_name_with_a_url_stays_text_in_the_import_error(hub: HubServer) -> None:
    """A safetensors header whose tensor is named ``https://…/verify-your-account`` became a link in "Import failed"."""
    repo = HostileRepo(hub, "hostile/tensor-url")
    header = json.dumps({PHISHING: {"dtype": "BF16", "shape": [2], "data_offsets": [0, 3]}}).encode()
    repo.safetensors(struct.pack("<Q", len(header)) + header)
    at = run_page("memory", {"hf": repo.name})
    assert any("verify-your-account" in unescape(e.value) for e in at.sidebar.error), [
        e.value for e in at.sidebar.error
    ]
    assert not foreign_anchors(at), foreign_anchors(at)


URLISH = hst.text(alphabet="wW.:/@hHtTpPsS-_ex1[]()<>!` \u2060", min_size=1, max_size=40)


@FUZZ
@given(hst.one_of(URLISH, hst.text(max_size=60)))
def test_as_text_never_leaves_an_anchor_and_reads_the_same(text: str) -> None:
    shown = as_text(text)
    assert not markdown_anchors(shown), (text, shown)
    assert unescape(shown).replace(WORD_JOINER, "") == text.replace(WORD_JOINER, "")


NAMES = hst.builds(
    lambda a, b, c: f"{a} {b} {c}",
    hst.sampled_from([PHISHING, "www.example-login.test", "HTTP://X.Y", "a@b.co", "[x](https://e.test)"]),
    URLISH,
    hst.sampled_from(["", "<https://e.test>", "mailto:a@b.co", "xmpp:a@b.co"]),
)


@settings(FUZZ, max_examples=12, derandomize=True)
@given(hst.sampled_from(sorted(PAGES)), NAMES)
def test_no_page_renders_an_anchor_out_of_a_models_name_or_a_reference(page: str, name: str) -> None:
    _check(page, {"spec": _named(name, model_id=name[:60].strip() or "x/y")})
    _check(page, {"hf": name.split()[0]})
