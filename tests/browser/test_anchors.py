"""The page-wide anchor check in a real browser (issue 25 finding 2): every ``<a>`` of the rendered page (Markdown,
alerts, headings, the sidebar, Plotly's SVG) points at the app or a documented source, whatever a link, a
repository on the Hub or a model description says. Streamlit's Markdown autolinked bare URLs, ``www.`` names and
e-mail addresses even with every Markdown character escaped."""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from tests.anchors import allowed
from tests.browser.server import running_app
from tests.sources.hub.conftest import FIXTURES, HostileRepo, HubServer, _start, _stop
from ui.custom_spec import pack_token

PHISHING = "https://example-login.test/verify-your-account"
NAME = f"Llama {PHISHING} www.example-login.test support@example-login.test"
SPEC = pack_token(
    json.dumps(
        {
            "id": "x/y",
            "name": NAME,
            "hidden_size": 4096,
            "num_hidden_layers": 32,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "intermediate_size": 14336,
            "vocab_size": 128256,
        }
    ).encode()
)
TENSOR_REPO = "hostile/tensor-url"
LINKS = {
    "www in hf": ("", {"hf": "www.example-login.test/x"}),
    "url in hf": ("", {"hf": "https://127.0.0.1:9/account/verify"}),
    "named model, memory": ("", {"spec": SPEC}),
    "named model, what if": ("what_if", {"spec": SPEC}),
    "named model, compare": ("compare", {"spec": SPEC}),
    "named model, advisor": ("advisor", {"spec": SPEC}),
    "tensor named after a URL": ("", {"hf": TENSOR_REPO}),
    "catalog": ("catalog", {}),
    "custom": ("custom", {}),
}


@pytest.fixture(scope="module")
def hostile_app() -> Iterator[str]:
    """The dashboard reading a fake Hub (tests/sources/hub) whose ``hostile/tensor-url`` names a tensor after a URL."""
    hub = _start(HubServer(FIXTURES))
    repo = HostileRepo(hub, TENSOR_REPO)
    header = json.dumps({PHISHING: {"dtype": "BF16", "shape": [2], "data_offsets": [0, 3]}}).encode()
    repo.safetensors(struct.pack("<Q", len(header)) + header)
    saved = {k: os.environ.get(k) for k in ("HF_ENDPOINT", "HF_TOKEN")}
    os.environ["HF_ENDPOINT"] = hub.url
    os.environ.pop("HF_TOKEN", None)
    try:
        with running_app() as url:
            yield url
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        _stop(hub)


def _anchors(page) -> list[str]:
    return page.eval_on_selector_all(
        "a", "els => els.map(e => e.getAttribute('href') || e.getAttribute('xlink:href') || '')"
    )


@pytest.mark.parametrize("case", list(LINKS))
def test_no_anchor_points_anywhere_but_the_app(page, hostile_app: str, case: str) -> None:
    path, params = LINKS[case]
    page.goto(f"{hostile_app}/{path}?{urlencode(params)}")
    page.wait_for_selector("[data-testid='stSidebar'] [data-testid='stAlert'], h1", timeout=60_000)
    page.wait_for_function("() => !document.querySelector(\"[data-testid='stStatusWidget']\")", timeout=60_000)
    page.wait_for_timeout(300)  # the last deltas painted
    body = page.inner_text("body")
    if "hf" in params and case != "url in hf":
        assert "example-login.test" in body, body[:2000]  # the text is shown, as text
    if "spec" in params:
        assert "verify-your-account" in body, body[:2000]
    foreign = [href for href in _anchors(page) if not allowed(href, hostile_app)]
    assert not foreign, foreign
