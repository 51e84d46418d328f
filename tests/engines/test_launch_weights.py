"""Launch commands load what was planned: every engine x weight precision x KV dtype (issue "one answer",
case 8: an FP8 plan printed `vllm serve meta-llama/Llama-3.1-70B` with no quantization and loaded 141 GB)."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.core.precision import WEIGHT_FORMATS
from planner.engines import registry
from planner.engines.checkpoints import GGUF
from planner.engines.launch import launch_commands
from planner.engines.registry import engine_profile
from planner.planning.plan import PlanRequest, plan

LLAMA_70B = get_model("meta-llama/Llama-3.1-70B").spec
DEEPSEEK = get_model("deepseek-ai/DeepSeek-V3").spec  # ships an FP8 checkpoint
H100 = get_gpu("h100-sxm-80gb")


def _commands(weights: str, kv: str = "bf16", model=LLAMA_70B) -> dict[str, str]:
    request = _request(weights, kv, model)
    return launch_commands(request, plan(request))


def _request(weights: str, kv: str = "bf16", model=LLAMA_70B) -> PlanRequest:
    return PlanRequest(
        model=model,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        gpu_count=8,
        weights=weights,  # type: ignore[arg-type]
        kv_dtype=kv,  # type: ignore[arg-type]
        context_tokens=8192,
        max_model_len=8192,
        overhead=engine_profile("vllm"),
    )


def _command_line(text: str) -> str:
    """The command itself (the last line; a comment may precede it)."""
    return text.splitlines()[-1]


# (engine, weights) -> what the command must contain; the model argument is the repo id unless noted.
EXPECTED: dict[tuple[str, str], str] = {
    ("vllm", "bf16"): "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 8",
    ("vllm", "fp8"): "vllm serve meta-llama/Llama-3.1-70B --quantization fp8 ",
    ("vllm", "fp16"): "vllm serve meta-llama/Llama-3.1-70B --dtype float16 ",
    ("vllm", "int4-awq"): "vllm serve '<an AWQ 4-bit checkpoint of meta-llama/Llama-3.1-70B>' ",
    ("vllm", "int4-gptq"): "vllm serve '<a GPTQ 4-bit checkpoint of meta-llama/Llama-3.1-70B>' ",
    ("vllm", "int8"): "'<an INT8 W8A8 (compressed-tensors) checkpoint of meta-llama/Llama-3.1-70B>'",
    ("vllm", "nvfp4"): "'<an NVFP4 (ModelOpt) checkpoint of meta-llama/Llama-3.1-70B>'",
    ("vllm", "q4_k_m"): "--tokenizer meta-llama/Llama-3.1-70B",
    ("sglang", "fp8"): "--model-path meta-llama/Llama-3.1-70B --quantization fp8 ",
    ("sglang", "int4-awq"): "--model-path '<an AWQ 4-bit checkpoint of meta-llama/Llama-3.1-70B>' ",
    ("trtllm", "fp8"): "trtllm-serve '<an FP8 checkpoint of meta-llama/Llama-3.1-70B>' ",
    ("trtllm", "nvfp4"): "trtllm-serve '<an NVFP4 (ModelOpt) checkpoint of meta-llama/Llama-3.1-70B>' ",
    ("trtllm", "bf16"): "trtllm-serve meta-llama/Llama-3.1-70B --tp_size 8",
    ("llamacpp", "q4_k_m"): "llama-server -m Llama-3.1-70B-Q4_K_M.gguf ",
    ("llamacpp", "bf16"): "llama-server -m Llama-3.1-70B-BF16.gguf ",
}
UNRUNNABLE = (
    {("sglang", g) for g in GGUF}
    | {("trtllm", g) for g in GGUF}
    | {("vllm", g) for g in GGUF}  # vLLM's GGUF loader is experimental: GGUF is llama.cpp's
    | {(e, "nvfp4") for e in ("sglang", "trtllm")}  # NVFP4 on Hopper: vLLM's Marlin path only
    | {
        ("trtllm", "int4-gptq"),
        ("llamacpp", "fp8"),
        ("llamacpp", "int8"),
        ("llamacpp", "int4-awq"),
        ("llamacpp", "int4-gptq"),
        ("llamacpp", "nvfp4"),
        ("llamacpp", "int4"),
    }
)


@pytest.mark.parametrize("weights", list(WEIGHT_FORMATS))
def test_every_engine_loads_the_planned_weights(weights: str) -> None:
    model = DEEPSEEK if WEIGHT_FORMATS[weights].moe_only else LLAMA_70B  # a MoE checkpoint's layout: a MoE model
    commands = _commands(weights, model=model)
    for engine, text in commands.items():
        line = _command_line(text)
        expected = EXPECTED.get((engine, weights))
        if expected is not None:
            assert expected in text, (engine, weights, text)
        refused = registry.get_engine(engine).refusal(_request(weights, model=model))
        assert text.startswith("# not runnable as planned:") == (refused is not None), (engine, weights, text)
        if (engine, weights) in UNRUNNABLE:
            assert refused is not None and text.startswith(f"# not runnable as planned: {refused}"), (engine, weights)
            continue
        if refused is not None:
            continue
        if weights not in ("bf16", "fp32") and engine != "llamacpp":
            # never the bare 16-bit checkpoint without a flag: that loads two to four times the planned bytes
            bare = f" {model.id} --t" in line or f" {model.id} --tp" in line
            assert not bare, (engine, weights, text)
        if "<" in line:
            assert any(c.startswith("# needs ") for c in text.splitlines()[:-1]), "a placeholder is explained above"


def test_a_checkpoint_in_the_planned_format_needs_no_flag() -> None:
    commands = _commands("fp8", model=DEEPSEEK)
    assert _command_line(commands["vllm"]).startswith("vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8")
    assert "--quantization" not in commands["vllm"]


@pytest.mark.parametrize(
    ("engine", "flag"),
    [
        ("vllm", "--kv-cache-dtype fp8"),
        ("sglang", "--kv-cache-dtype fp8_e4m3"),
        ("trtllm", "kv_cache_config: '  free_gpu_memory_fraction: 0.9' '  dtype: fp8'"),  # 1.0: no flag
    ],
)
def test_fp8_kv_reaches_every_engine_that_has_one(engine: str, flag: str) -> None:
    assert flag in _commands("bf16", kv="fp8")[engine]
    assert flag not in _commands("bf16", kv="bf16")[engine]


def test_an_engine_without_the_kv_dtype_says_so_instead_of_mapping_it() -> None:
    """llama.cpp has no FP8 cache: its command for an FP8-KV plan says so (it used to print q8_0 silently)."""
    command = _commands("bf16", kv="fp8")["llamacpp"]
    assert command.startswith("# not runnable as planned: llama.cpp has no FP8 KV cache; its 8-bit cache is q8_0")
    assert "--cache-type-k" not in command
    assert "--cache-type-k q8_0 --cache-type-v q8_0" in _commands("bf16", kv="int8")["llamacpp"]


def test_parallelism_flags() -> None:
    commands = _commands("bf16")
    assert "--tensor-parallel-size 8" in commands["vllm"]
    assert "--tp 8" in commands["sglang"]
    assert "--tp_size 8 --pp_size 1" in commands["trtllm"]
    assert "--tensor-split 1,1,1,1,1,1,1,1" in commands["llamacpp"]


def test_the_own_engine_comes_first_and_a_refusal_is_said_once() -> None:
    """A llama.cpp plan's launch commands opened on vLLM's tab, whose command carried 'not runnable as planned'
    twice (the weight refusal's own note and the engine's refusal; browser audit and review, 2026-12-05)."""
    request = _request("q4_k_m").model_copy(update={"overhead": engine_profile("llamacpp")})
    commands = launch_commands(request, plan(request))
    assert next(iter(commands)) == "llamacpp"
    for engine, text in commands.items():
        assert text.count("# not runnable as planned") <= 1, (engine, text)
    assert commands["vllm"].startswith("# not runnable as planned: ")
    assert next(iter(_commands("fp8"))) == "vllm"  # a vLLM plan: vLLM first


def test_llama_cpp_loads_a_gguf_file_never_a_repo_id() -> None:
    """gpt-oss in its own MXFP4 gave 'llama-server -m openai/gpt-oss-20b' (review, 2026-12-05): -m takes a local
    GGUF file, and that repository ships none."""
    model = get_model("openai/gpt-oss-20b").spec
    request = _request("mxfp4", model=model).model_copy(update={"overhead": engine_profile("llamacpp"), "gpu_count": 1})
    command = launch_commands(request, plan(request))["llamacpp"]
    assert "llama-server -m gpt-oss-20b-MXFP4.gguf " in command, command
    assert any(line.startswith("# an MXFP4 GGUF of openai/gpt-oss-20b") for line in command.splitlines())


def test_a_local_file_argument_is_never_a_repository_id() -> None:
    """Found by an outside review (2026-12-05): llama.cpp's command for an FP8 plan read '-m Qwen/Qwen3-30B-A3B' (-m
    takes a local GGUF file; the repository has none), and vLLM's for a GGUF plan served the repository where its
    GGUF loader takes the file."""
    qwen = get_model("Qwen/Qwen3-30B-A3B").spec
    fp8 = _commands("fp8", model=qwen)
    assert "llama-server -m '<a GGUF file of Qwen/Qwen3-30B-A3B>' " in fp8["llamacpp"]
    vllm = _commands("q4_k_m", model=qwen)["vllm"].splitlines()[-1]
    assert vllm.startswith("vllm serve Qwen3-30B-A3B-Q4_K_M.gguf ") and "--tokenizer Qwen/Qwen3-30B-A3B" in vllm
