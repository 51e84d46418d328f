"""Issue 22: the ``--json`` output of ``fit``, ``advise``, ``inspect`` and ``calibrate`` is published as JSON Schema
(draft 2020-12, ``docs/schema/*.json``), carries ``schema_version``, keeps version 1's ``fit`` names for one version
with a deprecation note, and real outputs validate against the published files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from planner.cli import main
from planner.cli.schema import DEPRECATED_FIT_NAMES, DOCUMENTS, SCHEMA_DIR, SCHEMA_VERSION, schema_text

ROOT = Path(__file__).resolve().parents[2]
LOG = json.loads((ROOT / "tests/fixtures/reference/engine-logs-public.json").read_text(encoding="utf-8"))[0]
FIT = ["fit", "--model", "meta-llama/Llama-3.1-70B", "--gpu", "h100-sxm-80gb", "--gpus", "2", "--context", "8192"]
FIT_CASES = {
    "generic": [],
    "vllm": ["--engine", "vllm", "--users", "20"],
    "memory in use": ["--engine", "vllm", "--weights", "fp8", "--used-memory-gb", "10"],
    "colocated": ["--engine", "vllm", "--weights", "fp8", "--colocate", "meta-llama/Llama-3.1-8B@0.3"],
    "lora and a draft": ["--engine", "vllm", "--max-loras", "4", "--speculative-method", "draft", "--draft-model",
                         "meta-llama/Llama-3.2-1B"],
    "kv tier": ["--engine", "vllm", "--kv-offload-gb", "64"],
    "llama.cpp": ["--engine", "llamacpp", "--weights", "q4_k_m", "--kv-dtype", "int8", "--users", "8"],
    "sglang offload": ["--engine", "sglang", "--cpu-offload-gb", "8"],
    "trtllm": ["--engine", "trtllm", "--weights", "fp8"],
    "does not fit": ["--engine", "vllm", "--gpus", "1", "--context", "131072"],
}  # fmt: skip


def _published(command: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((SCHEMA_DIR / f"{command}.json").read_text(encoding="utf-8"))
    return schema


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    main([*argv, "--json"])
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def _valid(command: str, data: dict[str, Any]) -> None:
    errors = sorted(Draft202012Validator(_published(command)).iter_errors(data), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


@pytest.mark.parametrize("command", list(DOCUMENTS))
def test_the_published_schema_is_current_and_valid(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = (SCHEMA_DIR / f"{command}.json").read_text(encoding="utf-8")
    assert text == schema_text(command), "docs/schema is stale: run `python -m planner schema --write`"
    Draft202012Validator.check_schema(json.loads(text))
    assert json.loads(text)["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert main(["schema", command]) == 0 and capsys.readouterr().out == text


@pytest.mark.parametrize("case", list(FIT_CASES))
def test_fit_outputs_validate(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, *FIT, *FIT_CASES[case])
    _valid("fit", data)
    assert data["schema_version"] == SCHEMA_VERSION


def test_version_1_names_are_kept_for_one_version_with_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, *FIT, "--engine", "vllm")
    for old, new in DEPRECATED_FIT_NAMES.items():
        assert data[old] == data[new], old  # the same figure under its old name
        assert f"renamed {new} in schema version 2" in data["deprecated"][old]
        assert _published("fit")["properties"][old]["deprecated"] is True
    assert data["max_concurrency"] == data["max_concurrency_total"]
    assert data["kv_budget_tokens"] == data["kv_budget_tokens_per_replica"]


def test_a_field_the_schema_does_not_know_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """The schema is closed: a new field is a new schema version, never a silent addition."""
    validator = Draft202012Validator(_published("fit"))
    data = _json(capsys, *FIT)
    assert validator.is_valid(data)
    assert not validator.is_valid({**data, "unexpected": 1})
    assert not validator.is_valid({**data, "schema_version": 1})
    assert not validator.is_valid({k: v for k, v in data.items() if k != "conversations_total"})


@pytest.mark.slow
def test_inspect_advise_and_calibrate_outputs_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for model in ("meta-llama/Llama-3.1-8B", "deepseek-ai/DeepSeek-V3", "google/gemma-4-31B-it"):
        _valid("inspect", _json(capsys, "inspect", "--model", model))
    advice = _json(capsys, "advise", "--model", "meta-llama/Llama-3.1-8B", "--context", "4096", "--users", "50")
    _valid("advise", advice)
    assert advice["schema_version"] == SCHEMA_VERSION
    log = tmp_path / "startup.log"
    log.write_text("\n".join(LOG["verbatim"]), encoding="utf-8")
    setup = ["--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--engine-version", LOG["engine_version"]]
    _valid("calibrate", _json(capsys, "calibrate", "--log", str(log), *setup))
