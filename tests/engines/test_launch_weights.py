"""Launch commands load what was planned: every engine x weight precision x KV dtype (issue "one answer",
case 8: an FP8 plan printed `vllm serve meta-llama/Llama-3.1-70B` with no quantization and loaded 141 GB)."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.core.precision import WEIGHT_FORMATS
from planner.engines.checkpoints import GGUF
from planner.engines.registry import engine_profile, launch_commands
from planner.planning.plan import PlanRequest, plan

LLAMA_70B = get_model("meta-llama/Llama-3.1-70B").spec
DEEPSEEK = get_model("deepseek-ai/DeepSeek-V3").spec  # ships an FP8 checkpoint
H100 = get_gpu("h100-sxm-80gb")


def _commands(weights: str, kv: str = "bf16", model=LLAMA_70B) -> dict[str, str]:
    request = PlanRequest(
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
    return launch_commands(request, plan(request))


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
    commands = _commands(weights)
    for engine, text in commands.items():
        line = _command_line(text)
        expected = EXPECTED.get((engine, weights))
        if expected is not None:
            assert expected in text, (engine, weights, text)
        if (engine, weights) in UNRUNNABLE:
            assert text.startswith("# not runnable as planned:"), (engine, weights, text)
            continue
        if weights not in ("bf16", "fp32") and engine != "llamacpp":
            # never the bare 16-bit checkpoint without a flag: that loads two to four times the planned bytes
            bare = f" {LLAMA_70B.id} --t" in line or f" {LLAMA_70B.id} --tp" in line
            assert not bare, (engine, weights, text)
        if "<" in line:
            assert text.startswith("# needs "), "a placeholder is explained in the comment above"


def test_a_checkpoint_in_the_planned_format_needs_no_flag() -> None:
    commands = _commands("fp8", model=DEEPSEEK)
    assert _command_line(commands["vllm"]).startswith("vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8")
    assert "--quantization" not in commands["vllm"]


@pytest.mark.parametrize(
    ("engine", "flag"),
    [
        ("vllm", "--kv-cache-dtype fp8"),
        ("sglang", "--kv-cache-dtype fp8_e4m3"),
        ("trtllm", "--kv_cache_dtype fp8"),
        ("llamacpp", "--cache-type-k q8_0 --cache-type-v q8_0"),
    ],
)
def test_fp8_kv_reaches_every_engine(engine: str, flag: str) -> None:
    assert flag in _commands("bf16", kv="fp8")[engine]
    assert flag not in _commands("bf16", kv="bf16")[engine]


def test_parallelism_flags() -> None:
    commands = _commands("bf16")
    assert "--tensor-parallel-size 8" in commands["vllm"]
    assert "--tp 8" in commands["sglang"]
    assert "--tp_size 8 --pp_size 1" in commands["trtllm"]
    assert "--tensor-split 1,1,1,1,1,1,1,1" in commands["llamacpp"]
