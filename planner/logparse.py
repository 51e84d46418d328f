"""Read a pasted engine start-up log: the memory figures vLLM (V0 and V1), SGLang, TensorRT-LLM or llama.cpp
print, and a calibrated overhead model made from them.

Units: vLLM V0's and SGLang's "GB" are 2^30 bytes (they divide by ``1 << 30``), as is every "GiB"; llama.cpp
prints MiB. Every figure is per GPU as the printing rank sees it.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from planner.engines.calibrated import Calibrated
from planner.engines.vllm.profile import VLLM_DEFAULT_VERSION
from planner.errors import PlannerError
from planner.units import GiB, MiB

LogFormat = Literal["vllm-v1", "vllm-v0", "sglang", "trtllm", "llamacpp"]

_NUM = r"(-?[\d,]*\.?\d+)"


class ParsedLog(BaseModel, frozen=True, extra="forbid"):
    """The figures a start-up log printed (GiB per GPU; ``None`` where the log does not say)."""

    format: LogFormat
    total_memory_gib: float | None = None
    gpu_memory_utilization: float | None = None
    weights_gib: float | None = None
    activation_peak_gib: float | None = None
    non_torch_gib: float | None = None
    cuda_graph_gib: float | None = None
    kv_cache_gib: float | None = None
    gpu_blocks: int | None = None
    kv_cache_tokens: int | None = None
    max_concurrency: float | None = None
    max_concurrency_at_tokens: int | None = None
    max_model_len: int | None = None
    compute_buffer_gib: float | None = None
    fails: bool = False  # the log shows the start-up failing for lack of KV memory
    estimated_max_model_len: int | None = None


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _find(pattern: str, text: str) -> re.Match[str] | None:
    """The last match (a log may repeat a line per rank or per retry)."""
    matches = list(re.finditer(pattern, text))
    return matches[-1] if matches else None


def _float(pattern: str, text: str, group: int = 1) -> float | None:
    match = _find(pattern, text)
    return _num(match.group(group)) if match else None


def _int(pattern: str, text: str, group: int = 1) -> int | None:
    value = _float(pattern, text, group)
    return None if value is None else int(value)


def _parse_vllm(text: str) -> ParsedLog | None:
    fields: dict[str, object] = {}
    v0 = False
    profiling = _find(
        r"Total non KV cache memory: "
        + _NUM
        + r"\s*GiB; torch peak memory increase: "
        + _NUM
        + r"\s*GiB; non-torch forward increase memory: "
        + _NUM
        + r"\s*GiB; weights memory: "
        + _NUM
        + r"\s*GiB",
        text,
    )
    if profiling:
        fields.update(
            activation_peak_gib=_num(profiling.group(2)),
            non_torch_gib=_num(profiling.group(3)),
            weights_gib=_num(profiling.group(4)),
        )
    v064 = _find(
        r"Memory profiling results: total_gpu_memory="
        + _NUM
        + r"GiB.*?peak_torch_memory="
        + _NUM
        + r"GiB.*?non_torch_memory="
        + _NUM
        + r"GiB kv_cache_size="
        + _NUM
        + r"GiB gpu_memory_utilization="
        + _NUM,
        text,
    )
    if v064:
        v0 = True
        fields.update(
            total_memory_gib=_num(v064.group(1)),
            non_torch_gib=_num(v064.group(3)),
            kv_cache_gib=_num(v064.group(4)),
            gpu_memory_utilization=_num(v064.group(5)),
        )
        fields["_peak_torch"] = _num(v064.group(2))
    v065 = _find(
        r"model weights take "
        + _NUM
        + r"GiB; non_torch_memory takes "
        + _NUM
        + r"GiB; PyTorch activation peak memory takes "
        + _NUM
        + r"GiB; the rest of the memory reserved for KV "
        r"Cache is " + _NUM + r"GiB",
        text,
    )
    if v065:
        v0 = "Available KV cache memory" not in text
        fields.update(
            weights_gib=_num(v065.group(1)),
            non_torch_gib=_num(v065.group(2)),
            activation_peak_gib=_num(v065.group(3)),
            kv_cache_gib=_num(v065.group(4)),
        )
    budget = _find(r"total_gpu_memory \(" + _NUM + r"GiB\) x gpu_memory_utilization \(" + _NUM + r"\)", text)
    if budget:
        fields.update(total_memory_gib=_num(budget.group(1)), gpu_memory_utilization=_num(budget.group(2)))
    total = _float(r"total_memory=" + _NUM + r"\s*GiB", text)
    if total is not None:
        fields.setdefault("total_memory_gib", total)
    weights = _float(r"(?:Model loading took|Loading model weights took) " + _NUM + r"\s*G", text)
    if weights is not None:
        fields.setdefault("weights_gib", weights)
    if "_peak_torch" in fields and fields.get("weights_gib") is not None:
        fields["activation_peak_gib"] = round(float(fields["_peak_torch"]) - float(fields["weights_gib"]), 4)  # type: ignore[arg-type]
    fields.pop("_peak_torch", None)
    available = _float(r"Available KV cache memory: " + _NUM + r"\s*GiB", text)
    if available is not None:
        fields["kv_cache_gib"] = available
    util = _float(r"gpu[-_]memory[-_]utilization['\"]?[:=]\s*" + _NUM, text)
    if util is not None:
        fields.setdefault("gpu_memory_utilization", util)
    tokens = _int(r"GPU KV cache size: " + _NUM + r" tokens", text)
    if tokens is not None:
        fields["kv_cache_tokens"] = tokens
    blocks = _int(r"num_gpu_blocks is: " + _NUM, text) or _int(r"#?\s*GPU blocks: " + _NUM, text)
    if blocks is not None:
        fields["gpu_blocks"] = blocks
    concurrency = _find(r"Maximum concurrency for " + _NUM + r" tokens per request: " + _NUM + r"x", text)
    if concurrency:
        fields.update(
            max_concurrency=_num(concurrency.group(2)), max_concurrency_at_tokens=int(_num(concurrency.group(1)))
        )
        fields.setdefault("max_model_len", int(_num(concurrency.group(1))))
    graph = _float(r"Estimated CUDA graph memory: " + _NUM + r"\s*GiB", text)
    if graph is None:
        graph = _float(r"Graph capturing finished in \S+ secs?, took " + _NUM + r"\s*GiB", text)
    if graph is not None:
        fields["cuda_graph_gib"] = graph
    too_long = _find(
        r"max seq len \(" + _NUM + r"\) is larger than the maximum number of tokens that can be stored in KV "
        r"cache \(" + _NUM + r"\)",
        text,
    )
    if too_long:
        fields.update(fails=True, max_model_len=int(_num(too_long.group(1))))
        fields.setdefault("kv_cache_tokens", int(_num(too_long.group(2))))
        fields["estimated_max_model_len"] = int(_num(too_long.group(2)))
    estimated = _int(r"estimated maximum model length is " + _NUM, text)
    if estimated is not None:
        fields.update(fails=True, estimated_max_model_len=estimated)
    kv = fields.get("kv_cache_gib")
    if isinstance(kv, float) and kv <= 0:
        fields["fails"] = True
    if not any(k in fields for k in ("kv_cache_gib", "kv_cache_tokens", "gpu_blocks")):
        return None
    if "Available KV cache memory" not in text and (
        "Loading model weights took" in text or re.search(r"#?\s*GPU blocks: ", text) or "max seq len" in text
    ):
        v0 = True  # the V0 worker's wording
    return ParsedLog.model_validate({"format": "vllm-v0" if v0 else "vllm-v1", **fields})


def _parse_sglang(text: str) -> ParsedLog | None:
    pool = _find(
        r"KV Cache is allocated\. #tokens: " + _NUM + r", K size: " + _NUM + r" GB, V size: " + _NUM + " GB", text
    )
    fields: dict[str, object] = {}
    if pool:
        fields.update(kv_cache_tokens=int(_num(pool.group(1))), kv_cache_gib=_num(pool.group(2)) + _num(pool.group(3)))
    else:
        mla = _find(r"KV Cache is allocated\. #tokens: " + _NUM + r", KV size: " + _NUM + " GB", text)
        if mla:
            fields.update(kv_cache_tokens=int(_num(mla.group(1))), kv_cache_gib=_num(mla.group(2)))
    total_tokens = _int(r"max_total_num_tokens=" + _NUM, text)
    if total_tokens is not None:
        fields.setdefault("kv_cache_tokens", total_tokens)
    weights = _float(r"Load weight end\..*?mem usage=" + _NUM + " GB", text)
    if weights is not None:
        fields["weights_gib"] = weights
    context = _int(r"context_len=" + _NUM, text)
    if context is not None:
        fields["max_model_len"] = context
    fraction = _float(r"mem[-_]fraction[-_]static[= ]+" + _NUM, text)
    if fraction is not None:
        fields["gpu_memory_utilization"] = fraction
    if "kv_cache_tokens" not in fields:
        return None
    if "Not enough memory" in text:
        fields["fails"] = True
    tokens = fields["kv_cache_tokens"]
    if isinstance(tokens, int) and isinstance(context, int) and context:
        fields.update(max_concurrency=tokens / context, max_concurrency_at_tokens=context)
    return ParsedLog.model_validate({"format": "sglang", **fields})


def _parse_trtllm(text: str) -> ParsedLog | None:
    tokens = _int(r"Using " + _NUM + r" tokens in paged KV cache", text)
    allocated = _find(r"Allocated " + _NUM + r" GiB for max tokens in paged KV cache \(" + _NUM + r"\)", text)
    if tokens is None and allocated is None:
        return None
    fields: dict[str, object] = {}
    if allocated:
        fields.update(kv_cache_gib=_num(allocated.group(1)), kv_cache_tokens=int(_num(allocated.group(2))))
    if tokens is not None:
        fields["kv_cache_tokens"] = tokens
    return ParsedLog.model_validate({"format": "trtllm", **fields})


def _parse_llamacpp(text: str) -> ParsedLog | None:
    kv = _float(r"CUDA0 KV buffer size =\s*" + _NUM + r" MiB", text)
    if kv is None:
        kv = _float(r"KV self size\s*=\s*" + _NUM + r" MiB", text)
    if kv is None:
        return None
    fields: dict[str, object] = {"kv_cache_gib": kv * MiB / GiB}
    weights = _float(r"CUDA0 (?:model )?buffer size =\s*" + _NUM + r" MiB", text)
    if weights is not None:
        fields["weights_gib"] = weights * MiB / GiB
    compute = _float(r"CUDA0 compute buffer size =\s*" + _NUM + r" MiB", text)
    if compute is not None:
        fields["compute_buffer_gib"] = compute * MiB / GiB
    n_ctx = _int(r"n_ctx\s*=\s*" + _NUM, text)
    if n_ctx is not None:
        fields.update(kv_cache_tokens=n_ctx, max_model_len=n_ctx)
    return ParsedLog.model_validate({"format": "llamacpp", **fields})


def parse_log(text: str) -> ParsedLog:
    """The figures of a vLLM (V0 or V1), SGLang, TensorRT-LLM or llama.cpp start-up log.

    Raises :class:`PlannerError` naming the lines it looks for when none is present.
    """
    if not text or not text.strip():
        raise PlannerError("log: empty; paste the engine's start-up output")
    for parser in (_parse_llamacpp, _parse_sglang, _parse_trtllm, _parse_vllm):
        parsed = parser(text)
        if parsed is not None:
            return parsed
    raise PlannerError(
        "log: no memory figures found; expected a vLLM line ('Available KV cache memory: X GiB', "
        "'GPU KV cache size: N tokens', 'Memory profiling results: ...', '# GPU blocks: N'), an SGLang line "
        "('KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB'), a TensorRT-LLM line ('Using N tokens "
        "in paged KV cache') or a llama.cpp line ('CUDA0 KV buffer size = X MiB')"
    )


def calibrate(
    parsed: ParsedLog, engine_version: str | None = None, gpu_memory_utilization: float | None = None
) -> Calibrated:
    """A calibrated overhead model from a parsed log: the measured weights, activation peak, non-torch memory,
    CUDA-graph memory and device total replace the estimates (vLLM logs; other engines keep their totals)."""

    def to_bytes(gib: float | None) -> int | None:
        return None if gib is None or gib < 0 else round(gib * GiB)

    engine: Literal["vllm", "sglang", "llamacpp"] = (
        "sglang" if parsed.format == "sglang" else "llamacpp" if parsed.format == "llamacpp" else "vllm"
    )
    version = engine_version or ("0.6.4" if parsed.format == "vllm-v0" else VLLM_DEFAULT_VERSION)
    util = gpu_memory_utilization or parsed.gpu_memory_utilization or 0.9
    graph = to_bytes(parsed.cuda_graph_gib)
    return Calibrated(
        engine=engine,
        engine_version=version,
        gpu_memory_utilization=util,
        total_memory_bytes=to_bytes(parsed.total_memory_gib) or None,
        weights_bytes=to_bytes(parsed.weights_gib),
        activation_bytes=to_bytes(parsed.activation_peak_gib),
        non_torch_bytes=to_bytes(parsed.non_torch_gib),
        cuda_graph_bytes=graph,
    )
