"""The words every surface uses for a set-up: context sizes, memory figures, the GPUs and how the model is split
over them, why an engine would not start, and why a pool of N tokens holds more (or fewer) conversations than
N divided by the context. :func:`planner.assessment.assess.verdict_sentence` builds the verdict from them.
"""

from __future__ import annotations

from planner.core.blocks import LayerKind
from planner.core.context_text import context_label as context_label
from planner.core.gpu import GpuSpec
from planner.core.kv_formats import KV_FORMATS
from planner.core.model import ModelSpec
from planner.core.units import format_bytes
from planner.engines.accuracy import KvAccuracy
from planner.engines.base import EngineReport
from planner.planning.data_parallel import experts_shared, ranks_apart
from planner.planning.request import PlanRequest
from planner.planning.results import PlanResult


def mem(n_bytes: float, unit: str) -> str:
    """A memory figure in the chosen unit, one decimal from 10 GiB up.

    >>> mem(80 * 2**30, "GiB")
    '80.0 GiB'
    >>> mem(1.5e9, "GB")
    '1.50 GB'
    """
    return format_bytes(n_bytes, unit, digits=1 if abs(n_bytes) >= 10 * 2**30 else 2)


def setup_label(request: PlanRequest) -> str:
    """``'2 × H100 SXM5 80GB'``."""
    gpu = request.gpu
    name = gpu.name if gpu is not None else f"{request.gpu_memory_bytes / 1e9:g} GB GPU"
    if request.deployment is not None and request.deployment.stage_gpus:  # mixed GPUs, one per pipeline stage
        return " + ".join(stage.name for stage in request.deployment.stage_gpus)
    return f"{request.gpu_count} × {name}"


def devices(count: int, vendor: str | None = None, purchase_kind: str | None = None) -> str:
    """A count of the planned devices in a buyer's words: GPUs, or for a GPU sold as the machine itself (a Mac, a
    DGX Spark) the machines.

    >>> devices(4), devices(1), devices(2, "Apple", "machine"), devices(1, "Apple", "machine")
    ('4 GPUs', '1 GPU', '2 Macs', '1 Mac')
    >>> devices(2, "NVIDIA", "machine"), devices(8, "NVIDIA", "baseboard")
    ('2 machines', '8 GPUs')
    """
    noun = "GPU" if purchase_kind != "machine" else "Mac" if vendor == "Apple" else "machine"
    return f"{count} {noun}{'s' if count != 1 else ''}"


def request_devices(request: PlanRequest, count: int | None = None) -> str:
    """:func:`devices` for ``request``'s GPU (``count``: its own count by default)."""
    gpu = request.gpu
    n = request.gpu_count if count is None else count
    return devices(n, gpu.vendor, gpu.purchase.kind) if gpu is not None else devices(n)


def split_label(request: PlanRequest, result: PlanResult | None = None, short: bool = False) -> str:
    """How the model is spread over the GPUs, in the engine's terms: ``'TP 2 × PP 1'`` for an engine that splits
    every layer (vLLM, SGLang, TensorRT-LLM), ``'layers split over 2 GPUs'`` for one that splits whole layers
    (llama.cpp ``--split-mode layer``), with the data-parallel replicas (the plan's, else the request's split);
    ``short`` leaves out "× PP 1"."""
    if result is not None:
        tp, pp, replicas = result.tensor_parallel, result.pipeline_parallel, result.replicas
    else:
        tp, pp = request.resolved_parallelism
        replicas = max(1, request.gpu_count // (tp * pp))
    if request.overhead.splits_layers:  # one llama-server over tp x pp GPUs: --tensor-split, whole layers each
        one = request_devices(request, 1).removeprefix("1 ")
        split = (
            f"layers split over {request_devices(request, tp * pp)}"
            if tp * pp > 1
            else f"whole model on {'each' if replicas > 1 else 'one'} {one}"
        )
    else:
        split = f"TP {tp}" if short and pp == 1 else f"TP {tp} × PP {pp}"
    if shares_experts(request, replicas):  # one server: experts over every rank
        return split + f" · {replicas} data-parallel ranks, experts split over {tp * replicas} GPUs"
    return split + (f" · {replicas} replicas" if replicas > 1 else "")


def shares_experts(request: PlanRequest, replicas: int) -> bool:
    """Whether the ``replicas`` of ``request`` are data-parallel ranks of one server that split the model's experts
    over them all (:func:`planner.planning.data_parallel.experts_shared`), not whole copies (a request planning
    one of them alone says how many: ``replica_of``)."""
    tp, pp = request.resolved_parallelism
    return experts_shared(
        request.overhead, request.model, tp * pp, request.replica_of or replicas, ranks_apart(request)
    )


def replica_word(request: PlanRequest, replicas: int) -> str:
    """What one of the set-up's ``replicas`` is: a data-parallel rank where they share the experts
    (:func:`shares_experts`), else a replica."""
    return "data-parallel rank" if shares_experts(request, replicas) else "replica"


def cache_words(kv_dtype: str) -> str:
    """The KV cache as a verdict names it: its format's label (:data:`planner.core.kv_formats.KV_FORMATS`, the words
    the page's header uses) when it is not 16-bit (the setting that halves or doubles the answer is in the sentence
    that gets forwarded alone).

    >>> cache_words("bf16"), cache_words("fp8"), cache_words("int8"), cache_words("int4"), cache_words("q8_0")
    ('KV cache', 'FP8 KV cache', 'INT8 (q8_0) KV cache', 'INT4 (q4_0) KV cache', 'Q8_0 KV cache')
    """
    if kv_dtype in ("bf16", "fp16", "fp32"):
        return "KV cache"
    known = KV_FORMATS.get(kv_dtype)
    return f"{known.label if known is not None else kv_dtype.upper()} KV cache"


def seconds(value: float) -> str:
    """A duration as people read it: hundredths under a second, tenths under ten, whole seconds above, and the
    minutes past one.

    >>> seconds(0.987), seconds(1.06), seconds(7.0), seconds(11.4), seconds(111.59), seconds(725)
    ('0.99 s', '1.1 s', '7.0 s', '11 s', '112 s (1.9 min)', '725 s (12 min)')
    """
    if value < 1:
        return f"{value:.2f} s"
    if value < 10:
        return f"{value:.1f} s"
    if value < 60:
        return f"{value:.0f} s"
    minutes = value / 60
    return f"{value:.0f} s ({minutes:.2g} min)" if minutes < 10 else f"{value:.0f} s ({minutes:.0f} min)"


def plural(n: int, word: str) -> str:
    """``'1 concurrent conversation'``, ``'2 concurrent conversations'``."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


REFUSALS: dict[str, str] = {
    "free-memory": "because less memory is free on the GPU than its memory fraction asks for (another process holds "
    "some of it)",
    "sampler-oom": "running out of memory while warming up its sampler (the memory fraction leaves too little)",
    "graph-capture-oom": "running out of memory while capturing its CUDA graphs after sizing the KV cache (the memory "
    "fraction leaves too little); lower the memory fraction or max_num_seqs, or run it with --enforce-eager",
    "tp-indivisible": "because the tensor-parallel size does not divide the model's heads or vocabulary",
    "max-model-len": "because the context is longer than the model's maximum",
    "kv-cache-too-small": "because one conversation of the chosen context needs more KV cache than is left",
    "no-kv-memory": "because weights and working memory leave no room for the KV cache",
    "weights-oom": "running out of memory while loading the model",
    "out-of-memory": "running out of memory at start-up",
    "mamba-blocks": "because more sequences may run at once (max_num_seqs) than its KV pool has state blocks; lower "
    "max_num_seqs or raise the memory fraction",
    "others-oom": "running out of memory because other processes hold more of the GPU than its memory fraction leaves "
    "unused (at start-up; with --enforce-eager at its first full batch); lower the memory fraction by the difference",
    "mm-item-batch": "because one image or video of this model needs more tokens than a step holds "
    "(max_num_batched_tokens) and vLLM will not split it; raise the step to the largest item",
    "mamba-align-step": "because with prefix caching its Mamba cache mode is 'align', where one attention block must "
    "fit a step (max_num_batched_tokens); raise --max-num-batched-tokens to the block, or start it with "
    "--no-enable-prefix-caching",
    "graph-profile-oom": "running out of memory in the throwaway KV cache it measures its CUDA graphs with (a block "
    "per sequence, each a whole state page for a hybrid model), before it sizes the real one; lower max_num_seqs or "
    "run it with --enforce-eager",
}
# On a GPU that shares the host's memory (DGX Spark, Jetson) the engine's "free memory" is the host's MemAvailable
# (vLLM 0.28.0 ``gpu_worker.py:784``, planner.engines.vllm.start_memory): the OS and its programs hold the rest.
UNIFIED_REFUSALS: dict[str, str] = {
    "free-memory": "because the memory the operating system reports available (MemAvailable) on this unified-memory "
    "machine is less than its memory fraction asks for: the OS and its programs hold part of the shared pool; lower "
    "the memory fraction",
}
# Failures a shorter context cures: the engine starts at the longest context that fits.
CONTEXT_FAILURES = frozenset({"kv-cache-too-small", "no-kv-memory", "max-model-len"})


def refusal(report: EngineReport, gpu: GpuSpec | None = None) -> str:
    """Why the engine would not start, in words, with the longest context that would; on a ``gpu`` that shares the
    host's memory in its words (:data:`UNIFIED_REFUSALS`)."""
    kind, unified = report.failure_kind or "", gpu is not None and gpu.platform.integrated
    reason = (UNIFIED_REFUSALS if unified else {}).get(kind) or REFUSALS.get(kind, "as its start-up check fails")
    longest = report.estimated_max_model_len
    tail = f"; the longest context that fits is about {longest:,} tokens." if longest else "."
    return f"{reason}{tail if report.failure_kind in ('kv-cache-too-small', 'no-kv-memory', None) else '.'}"


def shortened(report: EngineReport | None, engine_label: str | None) -> str:
    """An engine that starts with a maximum length shorter than the planned one (TensorRT-LLM cuts ``max_seq_len``
    to what its cache holds, SGLang caps each request at its pool), in a sentence; else nothing."""
    if report is None or not report.fits or report.fits_max_model_len or not report.estimated_max_model_len:
        return ""
    return f" {engine_label} starts with its maximum length cut to {report.estimated_max_model_len:,} tokens."


def _cache_reasons(model: ModelSpec) -> list[str]:
    """What a model's layers keep per conversation instead of the whole context."""
    counts = model.layer_kind_counts
    reasons = []
    if counts.get(LayerKind.SLIDING.value) and model.sliding_window is not None:
        reasons.append(
            f"its {counts[LayerKind.SLIDING.value]} sliding-window layers keep only the last "
            f"{model.sliding_window:,} tokens of each conversation"
        )
    if counts.get(LayerKind.CHUNKED.value) and model.attention_chunk_size is not None:
        reasons.append(
            f"its {counts[LayerKind.CHUNKED.value]} chunked-attention layers keep only the current "
            f"{model.attention_chunk_size:,}-token chunk of each conversation"
        )
    if counts.get(LayerKind.LINEAR.value):
        reasons.append(
            f"its {counts[LayerKind.LINEAR.value]} linear-attention layers keep a fixed state, not a growing cache"
        )
    if model.num_kv_shared_layers:
        reasons.append(f"its last {model.num_kv_shared_layers} layers reuse earlier layers' cache")
    return reasons


def why_not_divided(
    model: ModelSpec, tokens_per_replica: int, context: int, conversations: int, replicas: int, allotment: str
) -> str:
    """Why ``conversations`` is not the KV pool's tokens divided by the context (per replica), as a clause that
    finishes the verdict's sentence; empty when it is. ``allotment``: what one conversation is given ("whole
    blocks of 16 tokens", "a slot of 5,120 tokens").

    >>> from model_catalog import get_model
    >>> why_not_divided(get_model("meta-llama/Llama-3.1-8B").spec, 65536, 8192, 8, 1, "whole blocks of 16 tokens")
    ''
    >>> why_not_divided(get_model("meta-llama/Llama-3.1-8B").spec, 50000, 5000, 9, 1, "whole blocks of 16 tokens")
    ', fewer than 50,000 ÷ 5,000 because each conversation takes whole blocks of 16 tokens'
    """
    divided = tokens_per_replica // context * replicas if context else 0
    if conversations == divided:
        return ""
    quotient = f"{tokens_per_replica:,} ÷ {context:,}"  # both exact: "215.9 k ÷ 32k" mixed 1,000 and 1,024
    if conversations > divided:
        reasons = _cache_reasons(model) or ["the engine counts its pool per group of layers"]
        return f", more than {quotient} because {' and '.join(reasons)}"
    return f", fewer than {quotient} because each conversation takes {allotment}"


def stand_in_words(widest: KvAccuracy, label: str, unit: str) -> str:
    """The stand-in miss of a figure no public start-up checks (``Assessment.unchecked_miss``, ``label`` its
    engine's name) as it is: the widest of the groups' nine-in-ten misses on that kind of device (the worst, for a
    group of few start-ups), not the worst any start-up showed."""
    return (
        f"with the widest miss measured there ({mem(widest.miss_bytes, unit)} per GPU, within which "
        f"{widest.miss_share} of {widest.cases} public start-ups of {label} stayed)"
    )
