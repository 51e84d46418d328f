"""A YaRN extension the model card documents and the config does not ship (Qwen3: 32,768 native, 40,960 in
config.json, 131,072 with YaRN factor 4): a context above the config's maximum is planned with YaRN switched on,
the launch command of each engine and release carries it, the card's caveat is said, and a context above the
ceiling stays refused (planner.core.model.for_context, planner.engines.yarn)."""

from __future__ import annotations

import json
import shlex

import pytest

from model_catalog import get_gpu, get_model, load_models
from model_catalog.schema import CatalogModel
from planner.cli import main
from planner.core.blocks import YarnExtension
from planner.core.model import for_context
from planner.engines.launch import launch_commands
from planner.engines.registry import engine_report, get_engine, overhead_profile
from planner.engines.vllm.rope import rope_cache_bytes
from planner.planning.plan import PlanRequest, plan
from ui.state import context_range

QWEN3_32B = get_model("Qwen/Qwen3-32B").spec
H100 = get_gpu("h100-sxm-80gb")
YARN_MODELS = {"Qwen/Qwen3-8B", "Qwen/Qwen3-14B", "Qwen/Qwen3-32B", "Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-235B-A22B"}
CAVEAT = "potentially impacting performance on shorter texts"


def _request(engine: str, context: int, version: str | None = None) -> PlanRequest:
    profile = overhead_profile(engine, version=version) if version else overhead_profile(engine)
    return PlanRequest(
        model=QWEN3_32B,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        gpu_count=2,
        context_tokens=context,
        overhead=profile,
    )


def _argv(engine: str, context: int, version: str | None = None) -> list[str]:
    request = _request(engine, context, version)
    return shlex.split(launch_commands(request, plan(request))[engine].splitlines()[-1])


def _after(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def test_the_catalog_records_the_cards_yarn_with_its_source() -> None:
    with_yarn = {m.id: m for m in load_models().values() if m.spec.yarn is not None}
    assert set(with_yarn) == YARN_MODELS
    for entry in with_yarn.values():
        yarn = entry.spec.yarn
        assert yarn is not None and (yarn.factor, yarn.original_max_position_embeddings) == (4.0, 32_768)
        assert yarn.ceiling == 131_072 and entry.spec.max_position_embeddings == 40_960
        assert entry.yarn_source is not None and "model card" in entry.yarn_source and "131,072" in entry.yarn_source
    data = with_yarn["Qwen/Qwen3-32B"].model_dump()
    data["yarn_source"] = None
    with pytest.raises(ValueError, match="yarn_source"):
        CatalogModel.model_validate(data)


def test_a_yarn_ceiling_is_bounded_like_any_context() -> None:
    """A shared link's custom model carries any numbers: a ceiling past planner.bounds.limits.MAX_CONTEXT is refused."""
    with pytest.raises(ValueError, match="exceeds 16,777,216 tokens"):
        YarnExtension(factor=1024, original_max_position_embeddings=32_768, rope_theta=1e6)


def test_yarn_is_switched_on_only_above_the_configs_maximum() -> None:
    assert not _request("vllm", 40_960).model.yarn_on
    assert _request("vllm", 40_961).model.yarn_on
    on = _request("vllm", 131_072)
    assert on.model.context_limit == 131_072 and not on.at_context(8_192).model.yarn_on
    assert _request("vllm", 8_192).at_context(65_536).model.yarn_on
    assert get_model("meta-llama/Llama-3.1-8B").spec is for_context(get_model("meta-llama/Llama-3.1-8B").spec, 10**6)


def test_a_131072_token_plan_holds_the_kv_of_131072_tokens_and_starts() -> None:
    """Fails without the change: vLLM refused (max-model-len) and the plan warned of a maximum of 40,960."""
    request = _request("vllm", 131_072)
    result = plan(request)
    assert result.kv_bytes_per_token == 262_144  # 64 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes, unchanged
    assert result.capacity.kv_bytes_per_sequence == 131_072 * 262_144 == 34_359_738_368
    report = engine_report(request, result)
    assert report.failure_kind is None and report.max_model_len == 131_072
    assert not any("exceeds" in w for w in result.warnings)
    assert any(w.startswith("YaRN switched on (factor 4") and CAVEAT in w for w in result.warnings)


def test_vllms_rotary_cache_spans_the_ceiling() -> None:
    """yarn_scaling_rope.py:78-79: original x factor positions, 131,072 x 128 x 2 bytes, where 40,960 held 10 MiB."""
    assert rope_cache_bytes(QWEN3_32B, 2) == 40_960 * 128 * 2
    assert rope_cache_bytes(_request("vllm", 131_072).model, 2) == 131_072 * 128 * 2 == 32 * 2**20


RELEASE_KEYS = [("0.6.4", "rope_scaling"), ("0.11.0", "rope_scaling")] + [
    (version, "rope_parameters") for version in ("0.12.0", "0.31.0", "0.34.0")
]


@pytest.mark.parametrize(("version", "key"), RELEASE_KEYS)
def test_vllm_takes_yarn_as_hf_overrides_by_release(version: str, key: str) -> None:
    argv = _argv("vllm", 131_072, version)
    assert _after(argv, "--max-model-len") == "131072"
    override = json.loads(_after(argv, "--hf-overrides"))
    scaling = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
    if key == "rope_parameters":
        scaling["rope_theta"] = 1000000
    assert override == {key: scaling, "max_position_embeddings": 131072}


def test_sglang_and_llamacpp_take_yarn_on_their_command_lines() -> None:
    sglang = _argv("sglang", 131_072)
    assert _after(sglang, "--context-length") == "131072"
    assert json.loads(_after(sglang, "--json-model-override-args")) == {
        "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
        "max_position_embeddings": 131072,
    }
    llama = _argv("llamacpp", 131_072)
    assert llama[llama.index("-c") + 1] == "131072"
    assert " ".join(llama).count("--rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768") == 1


def test_no_yarn_flags_within_the_configs_maximum() -> None:
    for engine in ("vllm", "sglang", "llamacpp"):
        argv = _argv(engine, 32_768)
        assert not {"--hf-overrides", "--json-model-override-args", "--rope-scaling"} & set(argv), engine


def test_tensorrt_llm_is_refused_by_name_with_yarn() -> None:
    assert get_engine("trtllm").refusal(_request("trtllm", 32_768)) is None
    refusal = get_engine("trtllm").refusal(_request("trtllm", 131_072))
    assert refusal is not None and "YaRN" in refusal and "TensorRT-LLM" in refusal


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_a_context_above_the_ceiling_stays_refused(engine: str) -> None:
    request = _request(engine, 131_073)
    result = plan(request)
    assert engine_report(request, result).failure_kind == "max-model-len"
    assert "exceeds the model's maximum of 131,072 with YaRN" in result.warnings[0]


def test_the_advisor_ranks_128k_with_yarn_as_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["advise", "--model", "Qwen/Qwen3-32B", "--context", "131072", "--users", "4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["options"]
    for option in data["options"]:
        notes = [w for w in option["warnings"] if w.startswith("YaRN switched on")]
        assert len(notes) == 1 and CAVEAT in notes[0] and notes[0] not in option["undermining"]
    assert main(["advise", "--model", "Qwen/Qwen3-32B", "--context", "131073", "--users", "4"]) != 0
    assert "maximum of 131,072 with the YaRN its card documents" in capsys.readouterr().err


def test_the_dashboards_context_slider_reaches_the_ceiling() -> None:
    assert context_range(QWEN3_32B) == (512, 131_072)
    assert context_range(get_model("Qwen/Qwen3-0.6B").spec)[1] == 40_960
