"""Read a pasted engine start-up log: the memory figures vLLM (V0 and V1), SGLang, TensorRT-LLM or llama.cpp
print, why a start-up failed, and a calibrated overhead model made from them.

Units: vLLM V0's and SGLang's "GB" are 2^30 bytes (they divide by ``1 << 30``), as is every "GiB"; llama.cpp
prints MiB. Every figure is per GPU as the printing rank sees it.

The parser is linear in the size of the text: the text is bounded (:data:`MAX_LOG_CHARS`), scanned line by
line, only lines holding a keyword meet a regular expression, every expression is anchored on a literal and
has no nested or unbounded-backtracking part, and a number longer than :data:`MAX_NUMBER_DIGITS` digits is
refused with a :class:`PlannerError` (a real memory figure has a handful of digits).
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, Field, ValidationError

from planner.bounds.errors import PlannerError, describe_validation_error
from planner.bounds.limits import MAX_CONTEXT, MAX_GPU_MEMORY_BYTES, MAX_GPUS
from planner.core.overhead import FailureKind
from planner.core.units import GiB
from planner.engines.logscan import MAX_LOG_CHARS, MAX_NUMBER_DIGITS, NUM, Lines, find_failure, number, pattern
from planner.engines.registry import engines
from planner.engines.vllm.calibrated import Calibrated
from planner.engines.vllm.profile import VLLM_DEFAULT_VERSION
from planner.engines.vllm.versions import vllm_rules

__all__ = ["MAX_LOG_CHARS", "MAX_NUMBER_DIGITS", "LogFormat", "ParsedLog", "calibrate", "parse_log"]

LogFormat = Literal["vllm-v1", "vllm-v0", "sglang", "trtllm", "llamacpp"]
# A printed memory figure is at most what one GPU may hold (planner.bounds.limits, 100,000 GB): a larger one is not an
# engine's line, and would make a calibration whose bytes no link can carry. Negative figures are printed when a
# start-up fails ("Available KV cache memory: -1.2 GiB").
MAX_GIB = MAX_GPU_MEMORY_BYTES / GiB
Gib = Annotated[float, Field(ge=-MAX_GIB, le=MAX_GIB)]
Count = Annotated[int, Field(ge=0, le=10**15)]  # blocks, tokens, sequences: the parser reads at most 15 digits
Ranks = Annotated[int, Field(gt=0, le=MAX_GPUS)]
Tokens = Annotated[int, Field(gt=0, le=MAX_CONTEXT)]


class ParsedLog(BaseModel, frozen=True, extra="forbid"):
    """The figures a start-up log printed (GiB per GPU; ``None`` where the log does not say)."""

    format: LogFormat
    engine: str = "vllm"  # the registered engine whose lines these are (planner.engines.registry)
    engine_version: str | None = None
    model: str | None = None  # vLLM's config line: the served checkpoint
    tensor_parallel: Ranks | None = None
    pipeline_parallel: Ranks | None = None
    dtype: str | None = None  # "bfloat16", "float16", "float32"
    quantization: str | None = None  # "None", "fp8", "mxfp4", "compressed-tensors", "gptq_marlin", ...
    kv_cache_dtype: str | None = None
    total_memory_gib: Gib | None = None
    free_memory_gib: Gib | None = None  # free on the device when the engine started
    gpu_memory_utilization: float | None = None
    max_num_batched_tokens: Count | None = None
    max_num_seqs: Count | None = None
    weights_gib: Gib | None = None
    activation_peak_gib: Gib | None = None
    non_torch_gib: Gib | None = None
    cuda_graph_gib: Gib | None = None  # captured ("Graph capturing finished", "Actual usage ... CUDAGraph")
    cuda_graph_estimate_gib: Gib | None = None  # "Estimated CUDA graph memory" (vLLM >= 0.18)
    consumed_gib: Gib | None = None  # vLLM >= 0.27: weights + non-torch, the free-memory drop ("consumed memory")
    peak_includes_graphs: bool = False  # vLLM >= 0.27's "peak activation" adds the graph estimate it subtracted
    cudagraph_in_budget: bool | None = None  # the estimate was subtracted from the KV budget
    kv_cache_gib: Gib | None = None
    gpu_blocks: Count | None = None
    kv_cache_tokens: Count | None = None
    max_concurrency: float | None = None
    max_concurrency_at_tokens: Count | None = None
    max_model_len: Tokens | None = None
    compute_buffer_gib: Gib | None = None
    fails: bool = False  # the log shows the start-up failing
    failure_kind: FailureKind | None = None
    failure: str | None = None  # the engine's error line
    estimated_max_model_len: Count | None = None


# vLLM V1 (vllm/v1/worker/gpu_worker.py, vllm/v1/core/kv_cache_utils.py, vllm/v1/worker/gpu_model_runner.py).
_PROFILING = pattern(
    r"Total non KV cache memory: NUM ?GiB; torch peak memory increase: NUM ?GiB; non-torch forward increase "
    r"memory: NUM ?GiB; weights memory: NUM ?GiB"
)
_AVAILABLE = pattern(r"Available KV cache memory: NUM ?GiB")
_TOKENS = pattern(r"GPU KV cache size: NUM tokens")
_BLOCKS = pattern(r"num_gpu_blocks is: NUM")
_V0_BLOCKS = pattern(r"GPU blocks: NUM")
_CONCURRENCY = pattern(r"Maximum concurrency for NUM tokens per request: NUM ?x")
_LOADED = pattern(r"(?:Model loading took|Loading model weights took) NUM ?G")
_GRAPH_ESTIMATE = pattern(r"Estimated CUDA graph memory: NUM ?GiB")
_GRAPH_TAKEN = pattern(r"Graph capturing finished in \S{1,20} secs?, took NUM ?GiB")
_ACTUAL = pattern(
    r"Actual usage is NUM ?GiB for weight, NUM ?GiB for peak activation, NUM ?GiB for non-torch memory, and "
    r"NUM ?GiB for CUDAGraph memory"
)
# Newer releases (vLLM ~0.27, club-3090 issue #1087): "Actual usage is X GiB for consumed memory (weights +
# non-torch), Y GiB for peak activation, and Z GiB for CUDAGraph memory".
_ACTUAL_CONSUMED = pattern(
    r"Actual usage is NUM ?GiB for consumed memory \(weights \+ non-torch\), NUM ?GiB for peak activation, and "
    r"NUM ?GiB for CUDAGraph memory"
)
# vLLM >= 0.27 (utils/mem_utils.py:220-230): the DEBUG line measures "total consumed" instead of non-torch memory.
_PROFILING_027 = pattern(
    r"Total non KV cache memory: NUM ?GiB; torch peak memory increase: NUM ?GiB; total consumed \(from "
    r"mem_get_info\): NUM ?GiB; weights memory: NUM ?GiB"
)
_KV_IN_USE = pattern(r"Current kv cache memory in use is NUM ?GiB")
_MAMBA_REFUSAL = pattern(r"max_num_seqs \(NUM\) exceeds available Mamba cache blocks \(NUM\)")
_GRAPH_POOL = pattern(r"CUDA graph pool memory: NUM ?GiB \(actual\), NUM ?GiB \(estimated\)")
_FREE_AT_START = pattern(r"Free memory on device (?:cuda:\d{1,3} )?\(NUM ?/ ?NUM ?GiB\) on startup")
_REQUESTED = pattern(r"Requested memory: NUM \(util\)")
_INITIAL_FREE = pattern(r"Initial free memory:? NUM ?GiB")
_TOTAL = pattern(r"total_memory=NUM ?GiB")
_UTIL_ARG = pattern(r"gpu[-_]memory[-_]utilization['\"]?[:=] ?NUM")
_UTIL_CURRENT = pattern(r"current --gpu-memory-utilization=NUM")
_BATCHED = pattern(r"max_num_batched_tokens['\"]?[:=] ?NUM")
_SEQS = pattern(r"max_num_seqs['\"]?[:=] ?NUM")
_SAMPLER_REQS = pattern(r"warming up sampler with NUM dummy requests")
_VERSIONS = (  # the engine line, the API server line, the banner
    ("LLM engine (v", re.compile(r"LLM engine \(v(\d{1,3}\.\d{1,3}(?:\.\d{1,4})?)")),
    ("vLLM API server version", re.compile(r"vLLM API server version (\d{1,3}\.\d{1,3}(?:\.\d{1,4})?)")),
    ("\u2588  version", re.compile(r"\u2588 {1,4}version (\d{1,3}\.\d{1,3}(?:\.\d{1,4})?)")),
)
_V1_TOO_LONG = pattern(r"estimated maximum model length is NUM")
_V0_TOO_LONG = pattern(
    r"max seq len \(NUM\) is larger than the maximum number of tokens that can be stored in KV cache \(NUM\)"
)
# vLLM V0 (vllm/worker/worker.py): v0.6.4 key=value line, v0.6.5+ sentence.
_V064_KEYS = re.compile(
    r"(total_gpu_memory|peak_torch_memory|non_torch_memory|kv_cache_size|gpu_memory_utilization)=" + NUM
)
_V065 = pattern(
    r"model weights take NUM ?GiB; non_torch_memory takes NUM ?GiB; PyTorch activation peak memory takes NUM ?GiB; "
    r"the rest of the memory reserved for KV Cache is NUM ?GiB"
)
# The engine's config line: "Initializing a V1 LLM engine (v0.19.0) with config: model='...', ..., dtype=torch.bfloat16,
# max_seq_len=8192, ..., tensor_parallel_size=2, pipeline_parallel_size=1, ..., quantization=None, ...".
_MODEL = re.compile(r"with config: model='([^',]{1,200})'")
_DTYPE = re.compile(r", dtype=(?:torch\.)?(\w{1,20})")
_QUANT = re.compile(r", quantization=([\w-]{1,40})")
_KV_DTYPE = re.compile(r", kv_cache_dtype=(\w{1,20})")
_TP = pattern(r"tensor_parallel_size['\"]?[:=] ?NUM")
_PP = pattern(r"pipeline_parallel_size['\"]?[:=] ?NUM")
_MAX_SEQ_LEN = pattern(r"max_seq_len=NUM")
_BUDGET = pattern(r"total_gpu_memory \(NUM ?GiB\) x gpu_memory_utilization \(NUM\)")


def _v0_fields(lines: Lines, fields: dict[str, object]) -> bool:
    """V0's profiling lines (v0.6.4 key=value, v0.6.5+ sentence); True when one is present."""
    found = False
    if lines.has("Memory profiling results"):
        values: dict[str, float] = {}
        for line in lines.lines:
            if "Memory profiling results" in line:
                for match in _V064_KEYS.finditer(line):
                    values[match.group(1)] = number(match.group(2), match.group(1))
        if {"total_gpu_memory", "kv_cache_size"} <= set(values):
            found = True
            fields.update(total_memory_gib=values["total_gpu_memory"], kv_cache_gib=values["kv_cache_size"])
            optional = (("non_torch_memory", "non_torch_gib"), ("gpu_memory_utilization", "gpu_memory_utilization"))
            for key, name in optional:
                if key in values:
                    fields[name] = values[key]
            if "peak_torch_memory" in values:
                fields["_peak_torch"] = values["peak_torch_memory"]
    sentence = lines.last("model weights take", _V065)
    if sentence:
        found = not lines.has("Available KV cache memory")
        names = ("weights_gib", "non_torch_gib", "activation_peak_gib", "kv_cache_gib")
        fields.update({name: number(sentence.group(i + 1), name) for i, name in enumerate(names)})
    budget = lines.last("total_gpu_memory (", _BUDGET)
    if budget:
        fields.update(
            total_memory_gib=number(budget.group(1), "total_gpu_memory"),
            gpu_memory_utilization=number(budget.group(2), "gpu_memory_utilization"),
        )
    return found


def _v1_profile(lines: Lines, fields: dict[str, object]) -> None:
    """V1's profiling, budget and CUDA-graph lines."""
    profiling = lines.last("Total non KV cache memory", _PROFILING)
    if profiling:
        for i, name in ((2, "activation_peak_gib"), (3, "non_torch_gib"), (4, "weights_gib")):
            fields[name] = number(profiling.group(i), name)
    actual = lines.last("Actual usage is", _ACTUAL)
    if actual:
        for i, name in ((1, "weights_gib"), (2, "activation_peak_gib"), (3, "non_torch_gib"), (4, "cuda_graph_gib")):
            fields.setdefault(name, number(actual.group(i), name))
    pool = lines.last("CUDA graph pool memory", _GRAPH_POOL)
    if pool:
        fields.setdefault("cuda_graph_gib", number(pool.group(1), "CUDA graph pool"))
        fields.setdefault("cuda_graph_estimate_gib", number(pool.group(2), "CUDA graph estimate"))
    start = lines.last("on startup", _FREE_AT_START)
    if start:
        fields.update(
            free_memory_gib=number(start.group(1), "free memory"), total_memory_gib=number(start.group(2), "total")
        )
    optional = (
        ("total_memory_gib", "total_memory=", _TOTAL),
        ("free_memory_gib", "Initial free memory", _INITIAL_FREE),
        ("gpu_memory_utilization", "Requested memory", _REQUESTED),
        ("gpu_memory_utilization", "current --gpu-memory-utilization", _UTIL_CURRENT),
        ("gpu_memory_utilization", "memory_utilization", _UTIL_ARG),
        ("weights_gib", " took ", _LOADED),
        ("cuda_graph_estimate_gib", "Estimated CUDA graph memory", _GRAPH_ESTIMATE),
        ("cuda_graph_gib", "Graph capturing finished", _GRAPH_TAKEN),
    )
    for name, keyword, regex in optional:
        if name not in fields:
            value = lines.number(keyword, regex, name)
            if value is not None:
                fields[name] = value
    _consumed(lines, fields)
    if lines.has("CUDA graph memory profiling is enabled"):
        fields["cudagraph_in_budget"] = True
    elif lines.has("CUDA graph memory profiling will be enabled by default"):
        fields["cudagraph_in_budget"] = False


def _consumed(lines: Lines, fields: dict[str, object]) -> None:
    """vLLM >= 0.27's accounting (utils/mem_utils.py:306-326): consumed = weights + non-torch (the free-memory drop
    from the init snapshot); the post-capture "peak activation" is the transient peak plus the graph estimate the
    budget subtracted (gpu_worker.py peak_activation_memory), so the estimate is not counted a second time."""
    debug = lines.last("total consumed (from mem_get_info)", _PROFILING_027)
    if debug:
        fields.setdefault("activation_peak_gib", number(debug.group(2), "torch peak memory increase"))
        fields["consumed_gib"] = number(debug.group(3), "total consumed")
        fields.setdefault("weights_gib", number(debug.group(4), "weights memory"))
    actual = lines.last("for consumed memory", _ACTUAL_CONSUMED)
    if actual:
        fields["consumed_gib"] = number(actual.group(1), "consumed memory")
        fields.setdefault("cuda_graph_gib", number(actual.group(3), "CUDAGraph memory"))
        if "activation_peak_gib" not in fields:
            fields.update(activation_peak_gib=number(actual.group(2), "peak activation"), peak_includes_graphs=True)
    consumed, weights = fields.get("consumed_gib"), fields.get("weights_gib")
    if "non_torch_gib" not in fields and isinstance(consumed, float) and isinstance(weights, float):
        fields["non_torch_gib"] = round(consumed - weights, 4)
    if "kv_cache_gib" not in fields and lines.has("Current kv cache memory in use"):
        value = lines.number("Current kv cache memory in use", _KV_IN_USE, "kv cache memory in use")
        if value is not None:
            fields["kv_cache_gib"] = value


def _settings(lines: Lines, fields: dict[str, object]) -> None:
    """Engine version, model, parallelism, precision and batch settings printed at start-up."""
    for keyword, regex in _VERSIONS:
        version = lines.last(keyword, regex)
        if version:
            fields["engine_version"] = version.group(1)
            break
    for name, keyword, regex in (
        ("max_num_batched_tokens", "max_num_batched_tokens", _BATCHED),
        ("max_num_seqs", "max_num_seqs", _SEQS),
        ("max_num_seqs", "warming up sampler with", _SAMPLER_REQS),
        ("tensor_parallel", "tensor_parallel_size", _TP),
        ("pipeline_parallel", "pipeline_parallel_size", _PP),
        ("max_model_len", "max_seq_len=", _MAX_SEQ_LEN),
    ):
        value = lines.number(keyword, regex, name)
        if value is not None and name not in fields:
            fields[name] = int(value)
    for name, regex in (("model", _MODEL), ("dtype", _DTYPE), ("quantization", _QUANT), ("kv_cache_dtype", _KV_DTYPE)):
        match = lines.last("with config:", regex)
        if match:
            fields[name] = match.group(1)


def _capacity(lines: Lines, fields: dict[str, object]) -> None:
    """Available KV memory, blocks, tokens, concurrency and the too-long error."""
    available = lines.number("Available KV cache memory", _AVAILABLE, "Available KV cache memory")
    if available is not None:
        fields["kv_cache_gib"] = available
    tokens = lines.number("GPU KV cache size", _TOKENS, "GPU KV cache size")
    if tokens is not None:
        fields["kv_cache_tokens"] = int(tokens)
    blocks = lines.number("num_gpu_blocks is", _BLOCKS, "num_gpu_blocks")
    if blocks is None:
        blocks = lines.number("GPU blocks:", _V0_BLOCKS, "GPU blocks")
    if blocks is not None:
        fields["gpu_blocks"] = int(blocks)
    concurrency = lines.last("Maximum concurrency for", _CONCURRENCY)
    if concurrency:
        at = int(number(concurrency.group(1), "max model len"))
        concurrent = number(concurrency.group(2), "maximum concurrency")
        fields.update(max_concurrency=concurrent, max_concurrency_at_tokens=at)
        fields.setdefault("max_model_len", at)
    too_long = lines.last("max seq len (", _V0_TOO_LONG)
    if too_long:
        fields["max_model_len"] = int(number(too_long.group(1), "max seq len"))
        stored = int(number(too_long.group(2), "tokens in KV cache"))
        fields.setdefault("kv_cache_tokens", stored)
        fields["estimated_max_model_len"] = stored
    estimated = lines.number("estimated maximum model length", _V1_TOO_LONG, "estimated maximum model length")
    if estimated is not None:
        fields["estimated_max_model_len"] = int(estimated)
    refusal = lines.last("exceeds available Mamba cache blocks", _MAMBA_REFUSAL)
    if refusal:
        fields.setdefault("max_num_seqs", int(number(refusal.group(1), "max_num_seqs")))
        fields.setdefault("gpu_blocks", int(number(refusal.group(2), "Mamba cache blocks")))


def _parse_vllm(lines: Lines) -> ParsedLog | None:
    fields: dict[str, object] = {}
    lines.find_rank("Available KV cache memory")
    v0 = _v0_fields(lines, fields)
    _v1_profile(lines, fields)
    _capacity(lines, fields)
    _settings(lines, fields)
    peak = fields.pop("_peak_torch", None)
    if isinstance(peak, float) and isinstance(fields.get("weights_gib"), float):
        fields["activation_peak_gib"] = round(peak - float(fields["weights_gib"]), 4)  # type: ignore[arg-type]
    failure = find_failure(lines)
    if failure is None and not any(k in fields for k in ("kv_cache_gib", "kv_cache_tokens", "gpu_blocks")):
        return None
    if failure is not None:
        fields.update(fails=True, failure_kind=failure[0], failure=failure[1])
    kv = fields.get("kv_cache_gib")
    if isinstance(kv, float) and kv <= 0:
        fields.setdefault("failure_kind", "no-kv-memory")
        fields["fails"] = True
    v0_wording = lines.has("Loading model weights took") or lines.has("GPU blocks: ") or lines.has("max seq len (")
    if not lines.has("Available KV cache memory") and v0_wording:
        v0 = True
    return _validated({"format": "vllm-v0" if v0 else "vllm-v1", **fields})


def _validated(data: dict[str, object]) -> ParsedLog:
    try:
        return ParsedLog.model_validate(data)
    except ValidationError as exc:
        raise PlannerError(f"log: figures no engine prints: {describe_validation_error(exc)}") from None


def parse_log(text: str) -> ParsedLog:
    """The figures of a vLLM (V0 or V1), SGLang, TensorRT-LLM or llama.cpp start-up log.

    Raises :class:`PlannerError` when the text is longer than :data:`MAX_LOG_CHARS`, holds an absurd number,
    or none of the lines it looks for.
    """
    if not text or not text.strip():
        raise PlannerError("log: empty; paste the engine's start-up output")
    if len(text) > MAX_LOG_CHARS:
        raise PlannerError(
            f"log: {len(text):,} characters; paste at most {MAX_LOG_CHARS:,} (the start-up part of the log)"
        )
    lines = Lines(text)
    for engine in engines():  # each registered engine reads its own start-up lines
        fields = engine.parse_log(lines)
        if fields is not None:
            return _validated({"engine": engine.name, **fields})
    parsed = _parse_vllm(lines)
    if parsed is not None:
        return parsed
    hints = "; ".join(f"{engine.label}: {engine.log_hint}" for engine in engines() if engine.log_hint)
    raise PlannerError(f"log: no memory figures found; expected a line such as {hints}")


def calibrate(
    parsed: ParsedLog, engine_version: str | None = None, gpu_memory_utilization: float | None = None
) -> Calibrated:
    """A calibrated overhead model from a parsed log: the measured weights, activation peak, non-torch memory,
    CUDA-graph memory and device total replace the estimates (vLLM logs; other engines keep their totals)."""

    def to_bytes(gib: float | None) -> int | None:
        return None if gib is None or gib < 0 else round(gib * GiB)

    engine = parsed.engine
    version = engine_version or parsed.engine_version
    version = version or ("0.6.4" if parsed.format == "vllm-v0" else VLLM_DEFAULT_VERSION)
    util = gpu_memory_utilization or parsed.gpu_memory_utilization or vllm_rules(version).default_gpu_memory_utilization
    graph = parsed.cuda_graph_estimate_gib if parsed.cudagraph_in_budget else parsed.cuda_graph_gib
    if parsed.peak_includes_graphs:  # the activation figure holds the estimate the budget subtracted
        graph = 0.0
    return Calibrated(
        engine=engine,
        engine_version=version,
        gpu_memory_utilization=util,
        total_memory_bytes=to_bytes(parsed.total_memory_gib) or None,
        weights_bytes=to_bytes(parsed.weights_gib),
        activation_bytes=to_bytes(parsed.activation_peak_gib),
        non_torch_bytes=to_bytes(parsed.non_torch_gib),
        cuda_graph_bytes=to_bytes(graph),
    )
