"""A planned release that predates a model's architecture in the engine's own registry is refused, naming the first
release that loads it (planner/engines/model_releases/*.toml, read from the engines' released packages). Before,
vLLM 0.6.4 planned Qwen3-8B with 48 conversations and a launch command, and 0.8.5 planned gpt-oss."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model, load_models
from planner.engines.first_release import model_releases, release_order
from planner.engines.registry import engine_profile, get_engine
from planner.planning.plan import PlanRequest

H200 = get_gpu("h200-sxm-141gb")


def _request(model_id: str, engine: str, version: str) -> PlanRequest:
    return PlanRequest(
        model=get_model(model_id).spec,
        gpu=H200,
        gpu_memory_bytes=H200.memory_bytes_for(True),
        overhead=engine_profile(engine, version=version),
    )


@pytest.mark.parametrize(
    ("model_id", "before", "since"),
    [
        ("Qwen/Qwen3-8B", "0.6.4", "0.8.4"),  # Qwen3ForCausalLM: 0.8.4 wheel registry.py:105, absent in 0.8.3
        ("openai/gpt-oss-20b", "0.8.5", "0.10.1"),  # GptOssForCausalLM: 0.10.1 registry.py:76
        ("google/gemma-3-12b-it", "0.6.4", "0.8.0"),  # Gemma3ForConditionalGeneration: 0.8.0 registry.py:166
        ("Qwen/Qwen3.5-27B", "0.8.5", "0.17.0"),  # Qwen3_5ForConditionalGeneration: 0.17.0 registry.py:496
        ("google/gemma-4-31B-it", "0.9.2", "0.19.0"),  # Gemma4ForConditionalGeneration: 0.19.0 registry.py:385
        ("deepseek-ai/DeepSeek-V3", "0.6.4", "0.6.6"),  # DeepseekV3ForCausalLM: 0.6.6 registry.py:48
    ],
)
def test_vllm_refuses_a_model_its_release_does_not_load(model_id: str, before: str, since: str) -> None:
    engine = get_engine("vllm")
    refused = engine.refusal(_request(model_id, "vllm", before))
    model_type = get_model(model_id).spec.model_type
    assert refused is not None and refused.startswith(f"vLLM {before} does not load {model_type} models: ")
    assert refused.endswith(f"came with {since}; plan {since} or later")
    assert engine.refusal(_request(model_id, "vllm", since)) is None


# Model types an engine's file has no row for, with why (no claim: not refused).
NO_ROW: dict[str, dict[str, str]] = {
    "vllm": {},
    "sglang": {"falcon": "no EntryClass in any release read (0.1.3-0.5.23); the Transformers fallback may run it"},
    "llamacpp": {
        t: "converted before @Model.register existed (b2254-b2329): the registration build is later than its support"
        for t in ("llama", "mistral", "falcon", "mixtral", "phi", "qwen2", "gemma")
    },
}


@pytest.mark.parametrize("engine", sorted(NO_ROW))
def test_every_catalog_model_type_has_each_engines_first_release(engine: str) -> None:
    """Adding a model of a new type means reading each engine's registry for it (the row's source), or the check is
    silent; a type with no row is named with why."""
    rows = model_releases(engine)
    missing = sorted({m.spec.model_type for m in load_models().values()} - set(rows) - set(NO_ROW[engine]))
    assert not missing, f"add a row to planner/engines/model_releases/{engine}.toml for: {', '.join(missing)}"
    assert not set(rows) & set(NO_ROW[engine])


@pytest.mark.parametrize("engine", sorted(NO_ROW))
def test_every_catalog_model_loads_at_each_engines_default_release(engine: str) -> None:
    """The defaults are releases that load the catalog: llama.cpp's default was b6000, before gpt-oss (b6096), the
    Qwen3.5 hybrids (b8095) and Gemma 4; it is b9849, the newest build with a public start-up log."""
    support, default = get_engine(engine).support, engine_profile(engine).engine_version
    refused = {m.spec.model_type: support.model_refusal(m.spec.model_type, default) for m in load_models().values()}
    assert not {t: why for t, why in refused.items() if why}


@pytest.mark.parametrize(
    ("engine", "model_id", "before", "since"),
    [
        ("sglang", "openai/gpt-oss-20b", "0.4.10", "0.5.1"),  # gpt_oss.py:1216 EntryClass at 0.5.1
        ("sglang", "Qwen/Qwen3-8B", "0.4.5", "0.4.6"),  # qwen3.py:335 EntryClass at 0.4.6
        ("sglang", "google/gemma-4-31B-it", "0.5.10", "0.5.11"),  # gemma4_mm.py:878 at 0.5.11
        ("llamacpp", "openai/gpt-oss-20b", "b6000", "b6096"),  # the build gpt-oss GGUFs name; PR 15091
    ],
)
def test_sglang_and_llamacpp_refuse_a_model_their_release_does_not_load(
    engine: str, model_id: str, before: str, since: str
) -> None:
    e = get_engine(engine)
    refused = e.refusal(_request(model_id, engine, before))
    assert refused is not None and f"{before} does not load" in refused and f"plan {since} or later" in refused
    assert e.refusal(_request(model_id, engine, since)) is None


def test_a_llamacpp_build_between_two_read_tags_is_not_refused() -> None:
    """Qwen3.5's converter class is in b8095 and not in b7836, the nearest tags read: b7836 is refused, b7900 (not
    read) is not."""
    e = get_engine("llamacpp")
    refused = e.refusal(_request("Qwen/Qwen3.5-27B", "llamacpp", "b7836"))
    assert refused is not None and "came after b7836 (it is in b8095)" in refused
    assert e.refusal(_request("Qwen/Qwen3.5-27B", "llamacpp", "b7900")) is None


def test_every_vllm_row_names_the_file_and_line_it_was_read_at() -> None:
    for row in model_releases("vllm").values():
        assert release_order(row.since) >= (0, 0, 1)
        assert row.source.startswith("vllm ") and ".py:" in row.source, row


def test_the_cli_refuses_and_names_the_release(capsys: pytest.CaptureFixture[str]) -> None:
    from planner.cli import main

    argv = [
        "fit",
        "--model",
        "Qwen/Qwen3-8B",
        "--gpu",
        "h100-sxm-80gb",
        "--engine",
        "vllm",
        "--engine-version",
        "0.6.4",
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "vLLM 0.6.4 does not load qwen3 models: Qwen3ForCausalLM came with 0.8.4; plan 0.8.4 or later" in err


def test_a_refusal_every_release_gives_comes_before_the_releases_own() -> None:
    """SGLang 0.5.5 told Qwen3.5-27B to 'plan 0.5.9 or later', where 0.5.9 refuses it for its state layers as every
    release does (reviewer, 2026-12-05): the reason that holds on every release is given first."""
    refused = get_engine("sglang").refusal(_request("Qwen/Qwen3.5-27B", "sglang", "0.5.5"))
    assert refused is not None and refused.startswith("SGLang sizes a state pool") and "0.5.9" not in refused
