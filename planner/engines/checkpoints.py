"""What each engine needs to load the weights a plan assumes: a flag, a pre-quantized checkpoint, or nothing.

A plan in FP8 or AWQ counts FP8 or 4-bit weights; a launch command that loads the BF16 checkpoint would need
twice or four times the memory. So every launch command says how the planned weights get there:

- the model's own checkpoint when the planned format is the one it ships in (DeepSeek-V3 ships FP8);
- a flag that quantizes while loading (vLLM and SGLang ``--quantization fp8``: online FP8 of a 16-bit
  checkpoint; ``docs.vllm.ai`` "FP8 W8A8", SGLang ``server_args.py`` quantization choices);
- otherwise a pre-quantized checkpoint of that kind, named in a placeholder (``<an AWQ checkpoint of …>``) so
  that pasting the command cannot silently load the 16-bit weights;
- or no support at all (GGUF in SGLang / TensorRT-LLM, AWQ in llama.cpp), said in a comment.

Which formats an engine makes while loading and which it cannot load at all are the engine's to declare
(:class:`planner.engines.support.EngineSupport`); llama.cpp converts to GGUF instead (its engine module). The model
argument is one shell word (:mod:`planner.engines.commands`).

KV-cache dtypes map to each engine's flag: vLLM ``--kv-cache-dtype`` (``vllm/config/cache.py``), SGLang
``--kv-cache-dtype`` (``fp8_e4m3``/``fp8_e5m2``), TensorRT-LLM ``trtllm-serve --kv_cache_dtype`` (NVIDIA/
TensorRT-LLM PR #11487, 2026-03), llama.cpp ``--cache-type-k/-v`` (``q8_0``, ``q4_0``).
"""

from __future__ import annotations

from pydantic import BaseModel

from planner.core.model import ModelSpec
from planner.core.precision import GGUF_TYPES
from planner.engines.commands import placeholder, repo_argument, word
from planner.engines.support import EngineSupport

GGUF = GGUF_TYPES
# The checkpoint kind a format needs when the engine cannot make it while loading.
CHECKPOINT_KIND = {
    "fp8": "an FP8 checkpoint",
    "int8": "an INT8 W8A8 (compressed-tensors) checkpoint",
    "int4": "a 4-bit (AWQ or GPTQ) checkpoint",
    "int4-awq": "an AWQ 4-bit checkpoint",
    "int4-gptq": "a GPTQ 4-bit checkpoint",
    "int4-g32": "a compressed-tensors W4A16 group-32 checkpoint (an AWQ-INT4 export)",
    "int4-int8head": "a W4A16 checkpoint with an int8 lm_head (compressed-tensors)",
    "int4-int8vocab": "a W4A16 checkpoint with an int8 lm_head and embeddings (compressed-tensors)",
    "int4-mixed-autoround": "an Intel int4-mixed AutoRound checkpoint",
    "mxfp4": "an MXFP4 checkpoint",
    "nvfp4": "an NVFP4 (ModelOpt) checkpoint",
    "nvfp4-fp8tail": "unsloth's mixed NVFP4 / FP8 (compressed-tensors) checkpoint",
    **{g: f"a GGUF {g.upper()} file" for g in GGUF},
}


class WeightLoading(BaseModel, frozen=True, extra="forbid"):
    """How an engine gets the planned weights: the model argument, extra flags, and a note when needed."""

    model_argument: str  # one shell word: the repo id, or a placeholder naming the checkpoint to use instead
    flags: str  # appended to the command (leading space), shell-safe
    note: str | None  # a comment line above the command
    supported: bool


def model_word(model: ModelSpec) -> tuple[str, str | None]:
    """The model as one shell word: its repository id when it is one (:func:`planner.engines.commands.repo_argument`),
    else a placeholder, with a note saying what to put there."""
    repo = repo_argument(model.id)
    if repo is not None:
        return word(repo), None
    return placeholder("this model's checkpoint"), "the model is not a Hub repository: put its path or repo id in place"


def gguf_file(model: ModelSpec, label: str) -> str:
    """The GGUF file name of ``model`` in ``label`` (``Llama-3.1-8B-Q4_K_M.gguf``), as one shell word."""
    repo = repo_argument(model.id)
    stem = repo.split("/")[-1] if repo is not None else "model"
    return word(f"{stem}-{label}.gguf")


def weight_loading(support: EngineSupport, model: ModelSpec, weights: str) -> WeightLoading:
    """What the engine of ``support`` needs to load ``model`` in ``weights`` (see the module docstring)."""
    argument, unnamed = model_word(model)
    reason = support.weight_refusals.get(weights)
    if reason is not None:
        return WeightLoading(
            model_argument=argument, flags="", note=f"not runnable as planned: {reason}", supported=False
        )
    native = "bf16" if model.native_dtype == "fp32" else model.native_dtype
    if weights == native:
        return WeightLoading(model_argument=argument, flags="", note=unnamed, supported=True)
    online = support.online_quantization.get(weights)
    if online is not None and native in ("bf16", "fp16"):
        return WeightLoading(model_argument=argument, flags=f" {online}", note=unnamed, supported=True)
    kind = CHECKPOINT_KIND.get(weights, f"a {weights} checkpoint")
    return WeightLoading(
        model_argument=placeholder(f"{kind} of {model.id}"),
        flags="",
        note=f"needs {kind} of {model.id}: put its repo id or path in place of the placeholder",
        supported=True,
    )


def with_note(command: str, loading: WeightLoading) -> str:
    """The command, with the loading note as a comment line above it (the note on one line: it is a comment)."""
    if not loading.note:
        return command
    note = " ".join(loading.note.split())
    return f"# {note}\n{command}"
