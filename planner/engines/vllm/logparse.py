"""What a vLLM start-up log prints (V0 before 0.8, V1 after): the profiling, budget, CUDA-graph, capacity and
settings lines, and why a start-up failed (``vllm/v1/worker/gpu_worker.py``, ``vllm/v1/core/kv_cache_utils.py``,
``vllm/v1/worker/gpu_model_runner.py``, ``utils/mem_utils.py``; V0: ``vllm/worker/worker.py``).

Read through :meth:`planner.engines.vllm.engine.VllmEngine.parse_log`; the fields are those of
:class:`planner.engines.logfigures.ParsedLog`, with ``format`` ``"vllm-v1"`` or ``"vllm-v0"``. Every pattern is
anchored on a literal and meets only the lines holding its keyword (:mod:`planner.engines.logscan`).
"""

from __future__ import annotations

import re

from planner.engines.logscan import NUM, Lines, find_failure, number, pattern

Fields = dict[str, object]

# vLLM V1 (vllm/v1/worker/gpu_worker.py, vllm/v1/core/kv_cache_utils.py, vllm/v1/worker/gpu_model_runner.py).
_PROFILING = pattern(
    r"Total non KV cache memory: NUM ?GiB; torch peak memory increase: NUM ?GiB; non-torch forward increase "
    r"memory: NUM ?GiB; weights memory: NUM ?GiB"
)
_AVAILABLE = pattern(r"Available KV cache memory: NUM ?GiB")
_TOKENS = pattern(r"GPU KV cache size: NUM tokens")
# vLLM 0.34's extensible KV cache (v1/worker/extensible_kv_cache.py:693-705): "Memory after warmup: ... N KV cache
# blocks (X GiB) fit ...", the pool committed after warm-up and graph capture, where "Available KV cache memory"
# printed the capacity reserved before them (anchored on its own words: bounded digits, no span to skip).
_AFTER_WARMUP = pattern(r"(\d{1,12}) KV cache blocks \(NUM ?GiB\) fit")
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
# The worker's notice (0.31.0 v1/worker/gpu_worker.py:697-718, the same from 0.22.0): current utilization and
# current - estimate / total rounded to four places; Model Runner V2 prints no "Estimated CUDA graph memory" line.
_UTIL_NOTICE = pattern(r"current --gpu-memory-utilization=NUM is equivalent to --gpu-memory-utilization=NUM")
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
# The API server's arguments line, which an excerpt may hold alone (0.19.0 entrypoints/utils.py:233):
# "non-default args: {'model_tag': 'meta-llama/Llama-3.1-8B-Instruct', 'model': 'meta-llama/Llama-3.1-8B-Instruct',
# 'max_model_len': 2048, ...}" (the key 'model', not 'model_tag').
_ARGS_MODEL = re.compile(r"'model': '([^',]{1,200})'")
_DTYPE = re.compile(r", dtype=(?:torch\.)?(\w{1,20})")
_QUANT = re.compile(r", quantization=([\w-]{1,40})")
_KV_DTYPE = re.compile(r", kv_cache_dtype=(\w{1,20})")
_TP = pattern(r"tensor_parallel_size['\"]?[:=] ?NUM")
_PP = pattern(r"pipeline_parallel_size['\"]?[:=] ?NUM")
_MAX_SEQ_LEN = pattern(r"max_seq_len=NUM")
_BUDGET = pattern(r"total_gpu_memory \(NUM ?GiB\) x gpu_memory_utilization \(NUM\)")


def _v0_fields(lines: Lines, fields: Fields) -> bool:
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


def _v1_profile(lines: Lines, fields: Fields) -> None:
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
    _estimate_from_notice(lines, fields)
    _consumed(lines, fields)
    if lines.has("CUDA graph memory profiling is enabled"):
        fields["cudagraph_in_budget"] = True
    elif lines.has("CUDA graph memory profiling will be enabled by default"):
        fields["cudagraph_in_budget"] = False


def _estimate_from_notice(lines: Lines, fields: Fields) -> None:
    """The graph estimate from the utilization notice where no line prints it (Model Runner V2, 0.31.0
    ``v1/worker/gpu/cudagraph_utils.py`` ``profile_cudagraph_memory`` logs none): ``cg_util_delta = estimate /
    total_mem``, ``total_mem`` the init snapshot's total (``gpu_worker.py:697-718``), which the "Free memory on
    device (free/total GiB) on startup" line prints; the estimate to within 5e-5 of the total. Without the total
    nothing is derived."""
    notice = lines.last("is equivalent to --gpu-memory-utilization", _UTIL_NOTICE)
    total = fields.get("total_memory_gib")
    if "cuda_graph_estimate_gib" in fields or notice is None or not isinstance(total, float):
        return
    current, equivalent = number(notice.group(1), "current utilization"), number(notice.group(2), "equivalent")
    fields["cuda_graph_estimate_gib"] = round((current - equivalent) * total, 2)


def _consumed(lines: Lines, fields: Fields) -> None:
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


def _settings(lines: Lines, fields: Fields) -> None:
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
    args_model = None if "model" in fields else lines.last("non-default args", _ARGS_MODEL)
    if args_model:
        fields["model"] = args_model.group(1)


def _capacity(lines: Lines, fields: Fields) -> None:
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
    pool = lines.last("KV cache blocks (", _AFTER_WARMUP)
    if pool:
        fields["gpu_blocks"] = int(number(pool.group(1), "KV cache blocks"))
        fields["kv_cache_gib"] = number(pool.group(2), "KV cache pool")
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


def parse_vllm(lines: Lines) -> Fields | None:
    """The figures of a vLLM log (``None`` when it shows neither a KV figure nor a failure)."""
    fields: Fields = {}
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
    return {"format": "vllm-v0" if v0 else "vllm-v1", **fields}
