"""What each engine needs to load the weights a plan assumes: a flag, a pre-quantized checkpoint, or nothing.

A plan in FP8 or AWQ counts FP8 or 4-bit weights; a launch command that loads the BF16 checkpoint would need
twice or four times the memory. So every launch command says how the planned weights get there:

- the model's own checkpoint when the planned format is the one it ships in (DeepSeek-V3 ships FP8);
- a flag that quantizes while loading (vLLM and SGLang ``--quantization fp8``: online FP8 of a 16-bit
  checkpoint; ``docs.vllm.ai`` "FP8 W8A8", SGLang ``server_args.py`` quantization choices);
- otherwise a pre-quantized checkpoint of that kind, named in a placeholder (``<an AWQ checkpoint of …>``) so
  that pasting the command cannot silently load the 16-bit weights;
- or no support at all (GGUF in SGLang / TensorRT-LLM, AWQ in llama.cpp), said in a comment.

KV-cache dtypes map to each engine's flag: vLLM ``--kv-cache-dtype`` (``vllm/config/cache.py``), SGLang
``--kv-cache-dtype`` (``fp8_e4m3``/``fp8_e5m2``), TensorRT-LLM ``trtllm-serve --kv_cache_dtype`` (NVIDIA/
TensorRT-LLM PR #11487, 2026-03), llama.cpp ``--cache-type-k/-v`` (``q8_0``, ``q4_0``).
"""

from __future__ import annotations

from pydantic import BaseModel

from planner.core.model import ModelSpec

GGUF = ("q8_0", "q6_k", "q5_k_m", "q4_k_m", "q3_k_m", "q2_k")
# The checkpoint kind a format needs when the engine cannot make it while loading.
CHECKPOINT_KIND = {
    "fp8": "an FP8 checkpoint",
    "int8": "an INT8 W8A8 (compressed-tensors) checkpoint",
    "int4": "a 4-bit (AWQ or GPTQ) checkpoint",
    "int4-awq": "an AWQ 4-bit checkpoint",
    "int4-gptq": "a GPTQ 4-bit checkpoint",
    "mxfp4": "an MXFP4 checkpoint",
    "nvfp4": "an NVFP4 (ModelOpt) checkpoint",
    **{g: f"a GGUF {g.upper()} file" for g in GGUF},
}
# Formats each engine makes while loading a 16-bit checkpoint, with the flag that does it.
ONLINE_FLAGS: dict[str, dict[str, str]] = {
    "vllm": {"fp8": " --quantization fp8", "fp16": " --dtype float16", "bf16": " --dtype bfloat16"},
    "sglang": {"fp8": " --quantization fp8", "fp16": " --dtype float16", "bf16": " --dtype bfloat16"},
    "trtllm": {},
    "llamacpp": {},
}
# Formats an engine cannot load at all, with the reason.
UNSUPPORTED: dict[str, dict[str, str]] = {
    "sglang": {g: "SGLang does not serve GGUF files; use llama.cpp" for g in GGUF},
    "trtllm": {
        **{g: "TensorRT-LLM does not load GGUF files; use llama.cpp" for g in GGUF},
        "int4-gptq": "TensorRT-LLM's PyTorch flow loads ModelOpt checkpoints (FP8, NVFP4, INT4-AWQ), not GPTQ",
    },
    "llamacpp": {
        "int4": "llama.cpp has no plain 4-bit weights; the nearest GGUF types are Q4_0 (4.5 bits) and Q4_K_M",
        "fp8": "llama.cpp has no FP8 weights; the nearest GGUF type is Q8_0",
        "int8": "llama.cpp has no W8A8 weights; the nearest GGUF type is Q8_0",
        "int4-awq": "llama.cpp does not load AWQ checkpoints; the nearest GGUF type is Q4_K_M",
        "int4-gptq": "llama.cpp does not load GPTQ checkpoints; the nearest GGUF type is Q4_K_M",
        "nvfp4": "llama.cpp has no NVFP4 weights; the nearest GGUF type is Q4_K_M",
    },
}


class WeightLoading(BaseModel, frozen=True, extra="forbid"):
    """How an engine gets the planned weights: the model argument, extra flags, and a note when needed."""

    model_argument: str  # the repo id, or a placeholder naming the checkpoint to use instead
    flags: str  # appended to the command (leading space)
    note: str | None  # a comment line above the command
    supported: bool


def _gguf_name(model: ModelSpec, label: str) -> str:
    return f"{model.id.split('/')[-1]}-{label}.gguf"


def _llamacpp_loading(model: ModelSpec, weights: str) -> WeightLoading:
    """llama.cpp loads GGUF files only: a 16-bit checkpoint is converted, a GGUF type downloaded or quantized."""
    if weights in GGUF:
        name = _gguf_name(model, weights.upper())
        return WeightLoading(
            model_argument=name, flags="", note=f"{CHECKPOINT_KIND[weights]} of {model.id}", supported=True
        )
    if weights in ("bf16", "fp16", "fp32"):
        name = _gguf_name(model, "BF16" if weights != "fp16" else "F16")
        note = f"convert the checkpoint with llama.cpp's convert_hf_to_gguf.py to {name}"
        return WeightLoading(model_argument=name, flags="", note=note, supported=True)
    reason = UNSUPPORTED["llamacpp"].get(weights, f"llama.cpp has no {weights} weights")
    return WeightLoading(model_argument=model.id, flags="", note=f"not runnable as planned: {reason}", supported=False)


def weight_loading(engine: str, model: ModelSpec, weights: str) -> WeightLoading:
    """What ``engine`` needs to load ``model`` in ``weights`` (see the module docstring)."""
    if engine == "llamacpp":
        return _llamacpp_loading(model, weights)
    reason = UNSUPPORTED.get(engine, {}).get(weights)
    if reason is not None:
        return WeightLoading(
            model_argument=model.id, flags="", note=f"not runnable as planned: {reason}", supported=False
        )
    native = "bf16" if model.native_dtype == "fp32" else model.native_dtype
    if weights == native:
        return WeightLoading(model_argument=model.id, flags="", note=None, supported=True)
    online = ONLINE_FLAGS.get(engine, {}).get(weights)
    if online is not None and native in ("bf16", "fp16"):
        return WeightLoading(model_argument=model.id, flags=online, note=None, supported=True)
    kind = CHECKPOINT_KIND.get(weights, f"a {weights} checkpoint")
    return WeightLoading(
        model_argument=f"'<{kind} of {model.id}>'",
        flags="",
        note=f"needs {kind} of {model.id}: put its repo id or path in place of the placeholder",
        supported=True,
    )


def with_note(command: str, loading: WeightLoading) -> str:
    """The command, with the loading note as a comment line above it."""
    return f"# {loading.note}\n{command}" if loading.note else command
