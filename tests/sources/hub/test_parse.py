"""Input parsing, endpoint validation and the redaction guard (no network)."""

from __future__ import annotations

import logging

import pytest

from planner.bounds.errors import PlannerError
from planner.sources.hub import (
    HubError,
    detect_quantization,
    parse_repo_ref,
    parse_safetensors_header,
    redact,
    resolve_endpoint,
)
from planner.sources.hub.tokens import _Secret
from planner.sources.hub.transport import _Client
from tests.sources.hub.conftest import TOKEN

HF = "https://huggingface.co"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("meta-llama/Llama-3.1-8B", ("meta-llama/Llama-3.1-8B", None)),
        ("  Qwen/Qwen3-0.6B  ", ("Qwen/Qwen3-0.6B", None)),
        ("Qwen/Qwen3-0.6B@main", ("Qwen/Qwen3-0.6B", "main")),
        ("openai/gpt-oss-20b@v1.0", ("openai/gpt-oss-20b", "v1.0")),
        ("deepseek-ai/DeepSeek-V3@" + "a" * 40, ("deepseek-ai/DeepSeek-V3", "a" * 40)),
        ("https://huggingface.co/google/gemma-3-27b-it", ("google/gemma-3-27b-it", None)),
        ("https://huggingface.co/google/gemma-3-27b-it/", ("google/gemma-3-27b-it", None)),
        ("https://huggingface.co/google/gemma-3-27b-it/tree/main", ("google/gemma-3-27b-it", "main")),
        ("https://huggingface.co/org/m/tree/refs%2Fpr%2F12", ("org/m", "refs/pr/12")),
        ("https://huggingface.co/org/m/blob/dev/config.json", ("org/m", "dev")),
        ("https://huggingface.co/org/m/resolve/main/model.safetensors", ("org/m", "main")),
        ("https://hf.co/org/m", ("org/m", None)),
        ("huggingface.co/org/m", ("org/m", None)),
        ("https://huggingface.co/org/m?library=transformers#top", ("org/m", None)),
    ],
)
def test_parse_accepts(text: str, expected: tuple[str, str | None]) -> None:
    assert parse_repo_ref(text, HF) == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "give a model repository"),
        ("gpt2", "not a model repository id"),
        ("a/b/c", "not a model repository id"),
        ("owner/na me", "not a valid repository id"),
        ("-owner/name", "not a valid repository id"),
        ("owner/na--me", "not a valid repository id"),
        ("owner/name.", "not a valid repository id"),
        ("../etc/passwd", "not a model repository id"),
        ("../passwd", "not a valid repository id"),
        ("owner/name@", "not a valid revision"),
        ("owner/name@../../x", "not a valid revision"),
        ("owner/name@a b", "not a valid revision"),
        ("https://evil.example/owner/name", "only repository URLs on https://huggingface.co"),
        ("http://127.0.0.1:9/owner/name", "only repository URLs on"),
        ("file:///etc/passwd", "only repository URLs on"),
        ("ftp://huggingface.co/owner/name", "only repository URLs on"),
        ("https://huggingface.co/datasets/owner/name", "only model repositories"),
        ("https://huggingface.co/spaces/owner/name", "only model repositories"),
        ("https://huggingface.co/owner", "does not name a repository"),
        ("https://huggingface.co/owner/name/discussions/3", "not a repository page"),
        ("datasets/name", "only model repositories"),
    ],
)
def test_parse_rejects(text: str, fragment: str) -> None:
    with pytest.raises(HubError, match=None) as info:
        parse_repo_ref(text, HF)
    assert fragment in str(info.value)
    assert isinstance(info.value, PlannerError)


def test_parse_urls_follow_the_configured_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:8080/")
    assert resolve_endpoint() == "http://127.0.0.1:8080"
    assert parse_repo_ref("http://127.0.0.1:8080/org/m/tree/v2") == ("org/m", "v2")
    with pytest.raises(HubError, match=r"only repository URLs on http://127\.0\.0\.1:8080"):
        parse_repo_ref("https://huggingface.co/org/m")


@pytest.mark.parametrize("bad", ["ftp://mirror", "huggingface.co", "https://user:pw@mirror.example", "https://x?q=1"])
def test_endpoint_must_be_a_plain_http_url(bad: str) -> None:
    with pytest.raises(HubError, match="HF_ENDPOINT"):
        resolve_endpoint(bad)


def test_redact_removes_the_token_and_token_shaped_strings() -> None:
    assert redact(f"Bearer {TOKEN} failed", TOKEN) == "Bearer *** failed"
    assert TOKEN not in redact(f"x {TOKEN} y")  # pattern alone
    assert redact("password=s3cret-value", "s3cret-value") == "password=***"
    assert redact("nothing here", None, "") == "nothing here"


def test_hub_error_never_holds_a_token() -> None:
    error = HubError(f"server said: invalid token {TOKEN}")
    assert TOKEN not in str(error)
    assert TOKEN not in repr(error)


def test_logger_filter_scrubs_token_shaped_strings(caplog: pytest.LogCaptureFixture) -> None:
    logging.getLogger("planner.sources.hub").warning("leaked %s", TOKEN)
    assert "leaked hf_***" in caplog.text


def test_secret_and_client_reprs_hide_the_token() -> None:
    secret = _Secret("my-plain-password")
    assert "my-plain-password" not in repr(secret) + str(secret) + f"{secret}"
    import requests

    client = _Client(endpoint=HF, token=secret, session=requests.Session())
    assert "my-plain-password" not in repr(client)
    with pytest.raises(TypeError):
        import pickle

        pickle.dumps(secret)


@pytest.mark.parametrize(
    ("quant", "precision", "bits"),
    [
        ({"quant_method": "awq", "bits": 4, "group_size": 128}, "int4-awq", 4),
        ({"quant_method": "gptq", "bits": 4, "group_size": 128}, "int4-gptq", 4),
        ({"quant_method": "gptq", "bits": 8}, "int8", 8),
        ({"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]}, "fp8", None),
        ({"quant_method": "fbgemm_fp8"}, "fp8", None),
        ({"quant_method": "mxfp4"}, "mxfp4", None),
        ({"quant_method": "bitsandbytes", "load_in_4bit": True}, "int4", 4),
        ({"quant_method": "bitsandbytes", "load_in_8bit": True}, "int8", 8),
        ({"quant_method": "modelopt", "quant_algo": "NVFP4"}, "nvfp4", None),
        (
            {
                "quant_method": "compressed-tensors",
                "config_groups": {"g": {"weights": {"num_bits": 8, "type": "float"}}},
            },
            "fp8",
            8,
        ),
        (
            {"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"num_bits": 4, "type": "int"}}}},
            "int4-gptq",
            4,
        ),
        ({"quant_method": "hqq", "nbits": 3}, None, None),
    ],
)
def test_detect_quantization(quant: dict[str, object], precision: str | None, bits: int | None) -> None:
    info = detect_quantization({"quantization_config": quant})
    assert info is not None
    assert info.precision == precision
    assert info.bits == bits
    assert detect_quantization({"torch_dtype": "bfloat16"}) is None


def test_safetensors_header_summary_and_inconsistency() -> None:
    header = {
        "__metadata__": {"format": "pt"},
        "model.embed_tokens.weight": {"dtype": "BF16", "shape": [10, 4], "data_offsets": [0, 80]},
        "model.vision_tower.patch.weight": {"dtype": "F32", "shape": [3], "data_offsets": [80, 92]},
        "lm_head.weight": {"dtype": "BF16", "shape": [10, 4], "data_offsets": [92, 172]},
    }
    summary = parse_safetensors_header(header)
    assert summary.parameters_by_dtype == {"BF16": 80, "F32": 3}
    assert summary.stored_bytes == 172
    assert summary.vision_parameters == 3
    assert summary.lm_head_parameters == 40
    header["lm_head.weight"] = {"dtype": "BF16", "shape": [10, 4], "data_offsets": [92, 100]}
    with pytest.raises(HubError, match="claims 8 bytes for 40 BF16 values"):
        parse_safetensors_header(header)
    with pytest.raises(HubError, match="malformed"):
        parse_safetensors_header({"t": {"dtype": "BF16", "shape": [-1], "data_offsets": [0, 2]}})
