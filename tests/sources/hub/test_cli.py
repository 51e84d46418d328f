"""``python -m planner inspect|fit --hf REPO[@REVISION]`` with HF_ENDPOINT pointing at the fake Hub."""

from __future__ import annotations

import json

import pytest

from planner.cli import main
from tests.sources.hub.conftest import TOKEN, HubServer


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert TOKEN not in out + err
    return code, out, err


def test_inspect_hf_json(hub: HubServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "inspect", "--hf", "Qwen/Qwen3-30B-A3B", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["id"] == "Qwen/Qwen3-30B-A3B" and data["parameters_total"] == 30_532_122_624
    assert data["kv_bytes_per_token"]["bf16"] == 98_304


def test_inspect_hf_table_with_revision_and_url(hub: HubServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "inspect", "--hf", "google/gemma-3-27b-it@main")
    assert code == 0 and "27,432,406,640 total" in out and "52 sliding" in out
    code, out, _ = _run(capsys, "inspect", "--hf", f"{hub.url}/openai/gpt-oss-20b/tree/main", "--json")
    assert code == 0 and json.loads(out)["native_dtype"] == "mxfp4"


def test_fit_hf_uses_the_checkpoint_precision(hub: HubServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "fit", "--hf", "Qwen/Qwen2.5-7B-Instruct-AWQ", "--gpu-memory-gb", "24", "--json")
    data = json.loads(out)
    assert code == 0 and data["fits"] and data["weights"] == "int4-awq"
    assert data["parameters_total"] == 7_615_616_512
    code, out, _ = _run(capsys, "fit", "--hf", "deepseek-ai/DeepSeek-V3", "--gpu-memory-gb", "80", "--json")
    assert code == 1 and json.loads(out)["weights"] == "fp8"


def test_hf_errors_are_one_line_exit_2(
    hub: HubServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = _run(capsys, "inspect", "--hf", "acme/does-not-exist")
    assert code == 2 and err.startswith("error: model repository acme/does-not-exist not found")
    code, _, err = _run(capsys, "inspect", "--hf", "headroom-test/rwkv-like")
    assert code == 2 and "config.json lacks num_attention_heads, intermediate_size" in err
    code, _, err = _run(capsys, "inspect", "--hf", "https://evil.example/Qwen/Qwen3-0.6B")
    assert code == 2 and "only repository URLs on" in err
    monkeypatch.delenv("HF_TOKEN")
    code, _, err = _run(capsys, "fit", "--hf", "meta-llama/Llama-3.1-8B", "--gpu-memory-gb", "24")
    assert code == 2 and "request access at" in err and "HF_TOKEN" in err


def test_hf_is_exclusive_with_model_and_config(hub: HubServer, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["inspect", "--hf", "Qwen/Qwen3-0.6B", "--model", "Qwen/Qwen3-0.6B"])
    assert info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert hub.requests == []
