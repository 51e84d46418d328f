"""The batch limit ``trtllm-bench throughput`` runs at when the command names none: its own tuning heuristic.

The perf overview's runs (``trtllm-bench ... throughput --dataset ... --extra_llm_api_options``, v1.0
``docs/source/performance/perf-overview.md``; ``trtllm-bench build --dataset`` at 0.17) pass no ``max_batch_size``,
so ``get_settings`` (``tensorrt_llm/bench/benchmark/utils/general.py``, search-index file id 51768079499) and the
0.17 ``build`` command (``tensorrt_llm/bench/build/build.py``) take it from ``calc_engine_setting`` and
``finetune_setting`` (``tensorrt_llm/bench/build/tuning.py``: file id 9779382841 for the 1.x text, 5900118795 for
the 0.x one; the search index's versions, not pinned to a tag). The estimate is the whole set-up's memory less the
checkpoint at its quantized bytes, times the fraction, over the KV of one ``ISL + OSL`` request with at least one KV
head per tensor-parallel GPU, capped at 4,096 and divided by the pipeline stages, then rounded up ("slightly
optimistic"). TensorRT-LLM 0.17's own log of the heuristic (``docs/source/performance/perf-benchmarking.md``, file
id 661882647: Llama-3.1-8B FP8 on one H200 at 128/128, "Estimated max number of requests in KV cache memory:
8048.16", max batch size 4096, max num tokens 8192) is reproduced by :func:`bench_settings`.

The executor then admits ``pp_size x max_batch_size`` requests (``PyTorchModelEngine.get_max_num_sequences``,
``tensorrt_llm/_torch/pyexecutor/model_engine.py``), and with attention data parallelism each rank its own
``max_batch_size`` (``ExecutorRequestQueue._fetch_new_requests_attention_dp``: ``total_max_num_active_requests =
tp_size * max_num_active_requests``, ``tensorrt_llm/_torch/pyexecutor/executor_request_queue.py``, file id
903912077): :func:`running_limit`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from planner.core.model import ModelSpec

GIB = 1024**3
BATCH_CAP = 4096  # finetune_setting: "Cap total batch size to avoid decoder buffer size becoming too large."
TOKEN_CAP = 32768  # finetune_setting: "Cap num tokens to avoid TRT activation buffer becoming too large."
# Bytes a checkpoint parameter takes by quantization (1.x ``BYTES_PER_ELEM``; anything else 2). The 0.x text knows
# FP8 alone (``1 if quant_algo == FP8 else 2``) and counts the parameters in 10**9, the memory in GiB.
BYTES_PER_PARAM = {"fp8": 1.0, "nvfp4": 0.5}
BYTES_PER_PARAM_0X = {"fp8": 1.0}


class BenchSettings(NamedTuple):
    """What trtllm-bench sets for a dataset: its estimate of the requests the KV cache holds and the
    ``max_batch_size`` / ``max_num_tokens`` it derives from it."""

    requests: float
    max_batch_size: int
    max_num_tokens: int


def kv_cache_requests(
    model: ModelSpec,
    checkpoint_params: int,
    weights: str,
    kv_dtype: str,
    device_bytes: int,
    gpus: tuple[int, int],
    lengths: tuple[int, int],
    release: str | None = None,
) -> float:
    """``calc_engine_setting``'s ``kv_cache_max_requests``: ``(device x tp x pp - params x bytes) x 0.95`` over
    ``2 x layers x max(tp, kv_heads) x head_size x kv_bytes x (ISL + OSL)``. ``device_bytes``: what NVML reports for
    one GPU (``get_device_memory``); ``gpus``: (tp, pp); ``lengths``: the dataset's mean (ISL, OSL); ``release``:
    ``"0.x"`` takes that text's units (see the module docstring).

    >>> from planner.core.model import ModelSpec
    >>> llama8b = ModelSpec(id="m", name="m", hidden_size=4096, num_hidden_layers=32, num_attention_heads=32,
    ...                     num_key_value_heads=8, head_dim=128, intermediate_size=14336, vocab_size=128256)
    >>> round(kv_cache_requests(llama8b, 8_030_261_248, "fp8", "fp8", 143_771 * 2**20, (1, 1), (128, 128), "0.17"), 2)
    8048.16
    """
    tp, pp = gpus
    legacy = release is not None and release.startswith("0.")
    per_param = (BYTES_PER_PARAM_0X if legacy else BYTES_PER_PARAM).get(weights, 2.0)
    engine_gib = checkpoint_params / (1000**3 if legacy else GIB) * per_param
    kv_heads = max(tp, model.num_key_value_heads or model.num_attention_heads or 1)
    head = model.head_dim or (model.hidden_size or 0) // max(1, model.num_attention_heads or 1)
    kv_bytes = 1.0 if kv_dtype == "fp8" else 2.0
    per_token_gib = 2 * (model.num_hidden_layers or 0) * kv_heads * head * kv_bytes / GIB
    cache_gib = (device_bytes / GIB * tp * pp - engine_gib) * 0.95
    return cache_gib / (per_token_gib * sum(lengths)) if per_token_gib else 0.0


def bench_settings(requests: float, input_tokens: int, output_tokens: int, pp: int) -> BenchSettings:
    """``finetune_setting``: the batch ``min(requests, 4096) / pp`` rounded up (to 32 under 256, at least 64; to
    128 under 1,024; else to 256), the tokens ``batch x (1 + ISL / OSL)`` capped at 32,768 and rounded up (at least
    2,048; to 256 under 4,096, 512 under 8,192, else 1,024).

    >>> bench_settings(8048.16, 128, 128, 1)
    BenchSettings(requests=8048.16, max_batch_size=4096, max_num_tokens=8192)
    """
    raw_bs = min(requests, BATCH_CAP) / pp
    raw_token = min(raw_bs * (1 + input_tokens / output_tokens), TOKEN_CAP)
    if raw_bs < 256:
        max_bs = max(64, 32 * math.ceil(raw_bs / 32))
    elif raw_bs < 1024:
        max_bs = 128 * math.ceil(raw_bs / 128)
    else:
        max_bs = 256 * math.ceil(raw_bs / 256)
    if raw_token < 4096:
        max_token = max(2048, 256 * math.ceil(raw_token / 256))
    elif raw_token < 8192:
        max_token = 512 * math.ceil(raw_token / 512)
    else:
        max_token = 1024 * math.ceil(raw_token / 1024)
    return BenchSettings(requests, max_bs, max_token)


def running_limit(max_batch_size: int, tp: int, pp: int, attention_dp: bool) -> int:
    """The requests the executor keeps in flight at ``max_batch_size``: one batch per pipeline stage
    (``get_max_num_sequences``), and under attention data parallelism one per rank (``tp`` ranks).

    >>> running_limit(1280, 8, 1, False), running_limit(1280, 8, 1, True), running_limit(96, 1, 8, False)
    (1280, 10240, 768)
    """
    return max_batch_size * pp * (tp if attention_dp else 1)
