"""fetch_model against the local fake Hub: counts, bytes and precision equal the recorded truth."""

from __future__ import annotations

import json
from typing import Any

import pytest

from model_catalog import get_model
from planner.core.kv import kv_bytes_per_token
from planner.core.params import parameter_breakdown
from planner.planning.plan import PlanRequest, plan
from planner.sources.hub import HubModel, fetch_model
from planner.sources.hub.assembly import has_mistral_native_files
from tests.sources.hub.conftest import FIXTURES, TOKEN, HubServer

INDEX = "safetensors index total_size"
API = "API safetensors.total"
HEADER = "safetensors header (model.safetensors)"
COMPUTED = "computed from config.json"

# repo: (parameters the plan uses, its source, checkpoint count, stored bytes, their source, precision)
TRUTH: dict[str, tuple[int, str, int, int, str, str]] = {
    "meta-llama/Llama-3.1-8B": (8_030_261_248, API, 8_030_261_248, 16_060_522_496, INDEX, "bf16"),
    "Qwen/Qwen3-30B-A3B": (30_532_122_624, API, 30_532_122_624, 61_064_245_248, INDEX, "bf16"),
    "deepseek-ai/DeepSeek-V3": (684_489_845_504, COMPUTED, 684_531_386_000, 688_574_839_360, INDEX, "fp8"),
    "google/gemma-3-27b-it": (27_432_406_640, API, 27_432_406_640, 54_864_813_280, INDEX, "bf16"),
    "openai/gpt-oss-20b": (20_914_757_184, COMPUTED, 20_914_757_184, 13_761_264_768, INDEX, "mxfp4"),
    "mistralai/Mistral-7B-v0.1": (7_241_732_096, API, 7_241_732_096, 14_483_464_192, INDEX, "bf16"),
    "microsoft/Phi-3-mini-4k-instruct": (3_821_079_552, API, 3_821_079_552, 7_642_159_104, INDEX, "bf16"),
    "Qwen/Qwen3-0.6B": (596_049_920, COMPUTED, 751_632_384, 1_503_264_768, HEADER, "bf16"),
    "TheBloke/Mistral-7B-Instruct-v0.2-GPTQ": (
        7_241_732_096,
        COMPUTED,
        1_197_412_352,
        4_155_777_024,
        HEADER,
        "int4-gptq",
    ),
    "Qwen/Qwen2.5-7B-Instruct-AWQ": (7_615_616_512, COMPUTED, 1_963_340_288, 5_570_747_392, INDEX, "int4-awq"),
    "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8": (8_030_261_248, COMPUTED, 8_030_261_696, 9_081_201_536, INDEX, "fp8"),
    "headroom-test/tiny-vlm": (18_472_192, HEADER, 18_472_192, 36_944_384, HEADER, "fp16"),
}


def _fixture(repo: str, name: str) -> Any:
    return json.loads((FIXTURES / repo / name).read_text())


@pytest.mark.parametrize("repo", sorted(TRUTH))
def test_counts_bytes_and_precision_match_the_recorded_truth(hub: HubServer, repo: str) -> None:
    parameters, source, checkpoint, stored, stored_source, precision = TRUTH[repo]
    model = fetch_model(repo)
    assert model.spec is not None and model.missing == ()
    assert model.parameters is not None and model.parameters.value == parameters
    assert model.parameters.source.startswith(source)
    assert model.checkpoint_parameters is not None and model.checkpoint_parameters.value == checkpoint
    assert model.stored_bytes is not None
    assert (model.stored_bytes.value, model.stored_bytes.source) == (stored, stored_source)
    assert model.weight_precision == precision
    assert model.spec.native_dtype == precision
    # the plan counts what the result says it counts
    assert parameter_breakdown(model.spec).total == parameters
    # every file was read at the commit the API reported
    sha = _fixture(repo, "api.json")["sha"]
    assert model.sha == sha
    resolves = [r.path for r in hub.requests if "/resolve/" in r.path]
    assert resolves and all(f"/resolve/{sha}/" in p for p in resolves)
    # the token went to the endpoint in the header, never into a URL, the result or its repr
    assert all(r.headers.get("Authorization") == f"Bearer {TOKEN}" for r in hub.requests)
    assert not any(TOKEN in r.path for r in hub.requests)
    assert TOKEN not in model.model_dump_json() + repr(model)


@pytest.mark.parametrize(
    "repo",
    [
        "meta-llama/Llama-3.1-8B",
        "Qwen/Qwen3-30B-A3B",
        "google/gemma-3-27b-it",
        "openai/gpt-oss-20b",
        "mistralai/Mistral-7B-v0.1",
        "microsoft/Phi-3-mini-4k-instruct",
        "deepseek-ai/DeepSeek-V3",
        "Qwen/Qwen3-0.6B",
    ],
)
def test_fixture_totals_agree_with_the_catalog(hub: HubServer, repo: str) -> None:
    """The recorded Hub totals are the catalog's: the fixtures are not invented numbers."""
    model = fetch_model(repo)
    reference = get_model(repo).reference
    assert model.checkpoint_parameters is not None
    assert model.checkpoint_parameters.value == reference.hub_safetensors_total
    assert model.spec is not None
    assert kv_bytes_per_token(model.spec, "bf16") == kv_bytes_per_token(
        get_model(repo).spec, "bf16"
    ) or repo.startswith(
        "microsoft/"  # the catalog budgets Phi-3 as full attention (catalog-notes #13); config.json says 2047
    )


def test_deepseek_v3_mla_fp8_and_mtp(hub: HubServer) -> None:
    model = fetch_model("deepseek-ai/DeepSeek-V3")
    spec = model.spec
    assert spec is not None and spec.mla is not None and spec.attention_kind == "MLA"
    assert spec.mla.latent_dim == 576 and spec.num_nextn_predict_layers == 1
    assert model.quantization is not None and model.quantization.method == "fp8"
    assert model.parameters_by_dtype == {"BF16": 3_918_786_560, "F8_E4M3": 680_571_043_840, "F32": 41_555_600}
    # the Hub total holds 41,540,496 FP8 scale_inv values that are not parameters (catalog note)
    assert model.checkpoint_parameters is not None and model.parameters is not None
    assert model.checkpoint_parameters.value - model.parameters.value == 41_540_496
    assert any("stored elements" in note for note in model.notes)
    assert parameter_breakdown(spec).attached_not_loaded == 13_463_426_304  # the MTP module


def test_gemma3_multimodal_sliding_window_and_vision_tower(hub: HubServer) -> None:
    model = fetch_model("google/gemma-3-27b-it")
    spec = model.spec
    assert spec is not None and model.multimodal and model.gated == "auto"
    assert spec.layer_kind_counts["sliding"] == 52 and spec.layer_kind_counts["full"] == 10
    assert spec.sliding_window == 1024 and spec.vocab_size == 262_208 and spec.tie_word_embeddings
    assert model.vision is not None and model.vision.parameters == 423_060_336
    assert model.vision in spec.attached_modules
    assert parameter_breakdown(spec).total - model.vision.parameters == 27_009_346_304  # text decoder
    assert any("transformers gemma3_text config defaults" in note for note in model.notes)


def test_vision_tower_counted_from_safetensors_tensor_names(hub: HubServer) -> None:
    model = fetch_model("headroom-test/tiny-vlm")
    header = json.loads((FIXTURES / "headroom-test/tiny-vlm/model.safetensors.header.json").read_text())
    vision = sum(
        _numel(e["shape"]) for k, e in header.items() if k.startswith(("vision_tower.", "multi_modal_projector."))
    )
    assert model.vision is not None and model.vision.parameters == vision == 604_160
    assert "tensors named" in model.vision.source
    assert model.stored_bytes_by_dtype == {"F16": 36_944_384}


def _numel(shape: list[int]) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


def test_gpt_oss_mxfp4_sliding_and_sinks(hub: HubServer) -> None:
    model = fetch_model("openai/gpt-oss-20b")
    spec = model.spec
    assert spec is not None and spec.attention_sinks and spec.moe is not None
    assert spec.layer_kind_counts == {"full": 12, "sliding": 12, "chunked": 0, "linear": 0}
    assert model.quantization is not None and model.quantization.precision == "mxfp4"
    assert model.parameters_by_dtype == {"BF16": 1_804_459_584, "U8": 19_110_297_600}


def test_sliding_window_models(hub: HubServer) -> None:
    mistral = fetch_model("mistralai/Mistral-7B-v0.1").spec
    assert mistral is not None and mistral.sliding_window == 4096 and set(mistral.layers) == {"sliding"}
    phi = fetch_model("microsoft/Phi-3-mini-4k-instruct").spec
    assert phi is not None and phi.sliding_window == 2047 and phi.attention_kind == "MHA"


def test_quantized_checkpoints_plan_with_their_precision(hub: HubServer) -> None:
    awq = fetch_model("Qwen/Qwen2.5-7B-Instruct-AWQ")
    assert awq.quantization is not None
    assert (awq.quantization.method, awq.quantization.bits, awq.quantization.group_size) == ("awq", 4, 128)
    assert awq.parameters_by_dtype == {"F16": 1_141_306_880, "I32": 822_033_408}
    gptq = fetch_model("TheBloke/Mistral-7B-Instruct-v0.2-GPTQ")
    assert gptq.stored_bytes_by_dtype == {"F16": 633_872_384, "I32": 3_521_904_640}
    fp8 = fetch_model("RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8")
    assert fp8.quantization is not None and fp8.quantization.method == "compressed-tensors"
    assert awq.spec is not None
    result = plan(PlanRequest(model=awq.spec, gpu_memory_bytes=24 * 10**9, context_tokens=4096))
    assert result.weights == "int4-awq"


def test_tied_lm_head_copy_is_reported_not_planned(hub: HubServer) -> None:
    model = fetch_model("Qwen/Qwen3-0.6B")
    assert model.spec is not None and model.spec.tie_word_embeddings and model.spec.num_parameters is None
    assert any("copy of the tied embedding" in n and "155,582,464" in n for n in model.notes)


def test_unplannable_config_gives_a_structured_missing_list(hub: HubServer) -> None:
    model = fetch_model("headroom-test/rwkv-like")
    assert model.spec is None and not model.plannable
    assert [m.field for m in model.missing] == ["num_attention_heads", "intermediate_size"]
    assert model.prefill["num_hidden_layers"] == 12 and model.prefill["hidden_size"] == 768
    assert model.prefill["num_parameters"] == 169_342_464 and model.prefill["native_dtype"] == "fp32"
    assert model.parameters is not None and model.parameters.source == API
    assert model.stored_bytes is not None and model.stored_bytes.value == 169_342_464 * 4


def test_revision_and_url_forms(hub: HubServer) -> None:
    sha = _fixture("Qwen/Qwen3-0.6B", "api.json")["sha"]
    by_url = fetch_model(f"{hub.url}/Qwen/Qwen3-0.6B/tree/main")
    assert by_url.revision == "main"
    assert any(r.path == "/api/models/Qwen/Qwen3-0.6B/revision/main" for r in hub.requests)
    pinned = fetch_model(f"Qwen/Qwen3-0.6B@{sha}")
    assert pinned.sha == sha and pinned.revision == sha
    assert fetch_model("Qwen/Qwen3-0.6B", revision="main").parameters == by_url.parameters


def test_fetch_is_deterministic_and_picklable(hub: HubServer) -> None:
    import pickle

    first = fetch_model("google/gemma-3-27b-it")
    second = fetch_model("google/gemma-3-27b-it")
    assert first == second
    assert pickle.loads(pickle.dumps(first)) == first  # st.cache_data pickles the result
    assert isinstance(HubModel.model_validate_json(first.model_dump_json()), HubModel)


def test_explicit_token_and_session(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    import requests

    monkeypatch.delenv("HF_TOKEN")
    with requests.Session() as session:
        model = fetch_model("meta-llama/Llama-3.1-8B", token=TOKEN, endpoint=hub.url, session=session)
    assert model.gated == "manual" and model.parameters is not None


def test_mistral_native_files_detected_from_the_file_list(hub: HubServer) -> None:
    """vLLM reads params.json + consolidated*.safetensors as Mistral format by default (the Pixtral vision tower is
    then whole on every TP rank, planner.engines.vllm.towers); both files are needed, and a plain HF repo has none."""
    assert has_mistral_native_files(frozenset({"config.json", "params.json", "consolidated.safetensors"}))
    assert has_mistral_native_files(frozenset({"params.json", "consolidated-00001-of-00002.safetensors"}))
    assert not has_mistral_native_files(frozenset({"params.json", "model-00001-of-00002.safetensors"}))
    assert not has_mistral_native_files(frozenset({"consolidated.safetensors", "config.json"}))
    assert not has_mistral_native_files(None)
    spec = fetch_model("headroom-test/tiny-vlm").spec
    assert spec is not None and not spec.mistral_native_files
