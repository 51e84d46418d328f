"""Public measured speed figures the speed model is fitted to and checked against: their schema and loader.

``planner/advisor/benchmarks/*.toml`` hold one ``[[row]]`` per published figure (a llama.cpp scoreboard cell, a
TensorRT-LLM performance-overview cell, an open serving benchmark at a concurrency), each with the set-up it maps
to in the catalog, its source (repository, path and commit, or address), the date of the source and its
``role``. Rows a source gives but the catalog or the model cannot reproduce are listed under ``[[excluded]]``
with the reason, so every published row is accounted for.

The role is not chosen by hand: :func:`assigned_role` holds a row out when the first byte of the SHA-1 of its id
is even (about half of every engine and regime), and ``tests/advisor/test_benchmarks.py`` checks every row
against it. :func:`planner.advisor.fit.fit_roofline` reads only the ``fit`` rows. Any other file of the same
schema (``tests/advisor/benchmarks/*.toml``, or one given to ``python -m planner.advisor.validation``) is scored
the same way.
"""

from __future__ import annotations

import hashlib
import tomllib
from functools import cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from planner.advisor.kernels import MoeKernel
from planner.bounds.errors import PlannerError
from planner.bounds.files import read_regular_file
from planner.bounds.limits import MAX_CONTEXT
from planner.core.kv_formats import kv_format
from planner.core.precision import weight_format

BENCHMARKS_DIR = Path(__file__).with_name("benchmarks")
# A benchmark file a user names (``python -m planner.advisor.validation FILE``) is read up to this many bytes: the
# largest in the repository (tests/advisor/benchmarks/unseen-2026-12.toml, 624 rows) is under 1 MB.
MAX_BENCHMARK_FILE_BYTES = 4_000_000
# A measurement or a bit width: above zero and finite (``inf`` is valid TOML, and was scored as a 100 % miss).
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]

Regime = Literal["single_stream", "batched", "long_context", "prefill"]
Family = Literal["fused", "paged", "layer-split"]
Metric = Literal[
    "decode_per_user",  # tokens/s of one sequence while it decodes (prefill excluded)
    "decode_total",  # tokens/s of a batch of ``concurrency`` sequences decoding together (llama-batched-bench S_TG)
    "output_total",  # output tokens/s of the whole deployment at a load (prefill of every request included)
    "output_per_gpu",  # output_total / GPUs
    "prefill_per_s",  # prompt tokens/s of one prompt (llama-bench pp)
    "ttft_seconds",  # time to the first token of one prompt, alone
]
Split = Literal["tensor", "layer", "pipeline"]
Lengths = Literal["fixed", "sharegpt", "uniform"]
# A burst is drained step by step (planner.advisor.drain), its work about one loop per token written: a row (or a
# user's file) may ask for at most this many requests and tokens written in all (~2 s of scoring; GPUStack's
# 1,000-prompt ShareGPT runs write ~0.2 M).
MAX_BURST_REQUESTS = 10_000
MAX_BURST_OUTPUT_TOKENS = 5_000_000
PositiveInt = Annotated[int, Field(gt=0)]
FAMILY_LABELS: dict[str, str] = {
    "fused": "TensorRT-LLM (and NIM, lmdeploy TurboMind)",
    "paged": "vLLM / SGLang",
    "layer-split": "llama.cpp",
}


class BenchmarkRow(BaseModel, frozen=True, extra="forbid"):
    """One published figure and the set-up it maps to (catalog model and GPU ids, planner format names).

    ``family``: the speed model that applies (:data:`planner.engines.support.SpeedFamily`: ``fused`` for
    TensorRT-LLM, NVIDIA NIM and lmdeploy TurboMind, fused C++ runtimes; ``paged`` for vLLM and SGLang; ``layer-split``
    for llama.cpp). ``split``: how the GPUs of one replica share the model (llama.cpp's
    default ``layer`` split runs them one after another). ``concurrency``: sequences in flight, or ``"max"`` when
    the engine fills its KV pool (an offline or max-throughput run). ``depth_tokens``: context already in the cache
    before the measured phase (llama-bench ``-d``). ``ubatch_tokens``: the prompt tokens one pass over the weights
    processes when the source sets it (llama-bench ``-ub``; unset: the engine's default). ``weights_bits``: the
    bits per weight of a GGUF type the planner has no format for (Q4_0: 4.5), scaling the bytes of ``weights``;
    ``other_bits``: the bits of the tensors other than the routed experts in a GGUF that keeps them apart
    (ggml-org's gpt-oss files: MXFP4 experts, Q8_0 the rest). ``moe_kernel``: the MoE kernel the source's run
    forces where the engine's default would differ (``marlin``: ``VLLM_MXFP4_USE_MARLIN=1``,
    :mod:`planner.advisor.kernels`). ``engine_release``: when the engine build the source ran was released, as the
    source states it (``YYYY-MM[-DD]``; unset: a current build), where the kernels an engine picks changed since
    (llama.cpp's CUDA prompt kernels for GGUF quants before PR 8075:
    :func:`planner.advisor.kernels.llamacpp_dequant_gemm`). ``flash_attention``: whether the run used flash
    attention, where the source states it or its tool's default then did (llama.cpp on Metal without it reads the
    KV cache per query head: :func:`planner.advisor.kernels.llamacpp_kv_per_query_head`). ``engine_version``: the
    engine release the source ran, where it states one (TensorRT-LLM before 0.8 reads a grouped-query model's KV
    cache per query head: :func:`planner.advisor.kernels.trtllm_kv_per_query_head`). ``attention_dp``: the run used
    TensorRT-LLM's attention data parallelism with expert parallelism (``enable_attention_dp``: each GPU runs
    attention for its own sequences, the experts split over the GPUs), where the source states it: the v1.0 perf
    overview's MoE cells (perf-overview.md, "For MoE models": ``trtllm-bench ... --ep $ep_size`` with
    ``enable_attention_dp: true`` in its ``llm_options.yml``; printed nested under ``cuda_graph_config``, a config
    class that forbids unknown keys, ``tensorrt_llm/llmapi/llm_args.py`` ``CudaGraphConfig(StrictBaseModel)``, so
    read literally that file would be rejected; the EP size per cell is not stated). Recorded, not modelled: the
    speed model prices every tensor-parallel replica as tensor parallel (docs/advisor.md, "Attention data
    parallelism"). ``requests``: the row is a burst, that many requests sent at once with no rate or concurrency
    cap (``vllm bench serve`` at its default ``--request-rate inf``) and its figure the output tokens over the whole
    run, where the source states it: scored by draining the queue through the engine's scheduler
    (:mod:`planner.advisor.drain`), not as a steady state. ``lengths``: ``sharegpt`` when the requests are ShareGPT
    conversations (lengths vary around the row's means, :func:`planner.advisor.drain.sharegpt_lengths`), ``fixed``
    when every request has the row's lengths (vLLM's ``--dataset-name random`` at its default range ratio 0),
    ``uniform`` when each length is drawn evenly up to twice the row's mean (SGLang's ``random`` dataset at its
    default range ratio 0: prompts of 1 to the stated length). A burst with an integer ``concurrency`` was capped
    by its client (``--max-concurrency``): at most that many run. ``max_running``: the running limit the source
    sets on the engine (vLLM ``--max-num-seqs``, SGLang ``--max-running-requests``), where it does.
    ``max_model_len``: the longest request the engine was started for (vLLM ``--max-model-len``), where the source's
    command states it: vLLM starts only with a KV pool that holds one such request, so a burst's pool is at least it
    (:func:`planner.advisor.validation.burst_limits`).
    """

    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")]
    regime: Regime
    engine: Annotated[str, Field(min_length=1)]  # as published, with its version where stated
    family: Family
    model_id: str
    gpu_id: str
    gpu_count: PositiveInt = 1
    gpus_per_replica: PositiveInt = 1  # the width of the split: tensor-parallel size, or GPUs a layer split spans
    replicas: PositiveInt = 1
    split: Split = "tensor"
    weights: str
    weights_bits: Positive | None = None
    other_bits: Positive | None = None  # non-expert tensors' bits in a mixed GGUF
    kv_dtype: str = "bf16"
    concurrency: PositiveInt | Literal["max"] = 1
    input_tokens: Annotated[int, Field(ge=0)] = 0
    output_tokens: Annotated[int, Field(ge=0)] = 0
    depth_tokens: Annotated[int, Field(ge=0)] = 0
    ubatch_tokens: PositiveInt | None = None  # prompt tokens one pass over the weights takes (llama-bench -ub)
    moe_kernel: MoeKernel | None = None  # a MoE kernel the source's run forces (unset: the engine's default)
    engine_release: Annotated[str, Field(pattern=r"^[0-9]{4}-[0-9]{2}(-[0-9]{2})?$")] | None = None
    flash_attention: bool | None = None  # as the source ran it (llama-bench -fa); unset: the engine's default now
    engine_version: Annotated[str, Field(pattern=r"^[0-9]+(\.[0-9]+)*$")] | None = None  # as the source states it
    attention_dp: bool = False  # TensorRT-LLM enable_attention_dp with expert parallelism, as the source states it
    requests: PositiveInt | None = None  # a burst: this many requests sent at once and drained (planner.advisor.drain)
    lengths: Lengths = "fixed"  # a burst's lengths: every request the row's, ShareGPT's or uniform around its means
    max_running: PositiveInt | None = None  # the engine's running limit the source sets (--max-num-seqs, ...)
    max_model_len: PositiveInt | None = None  # the longest request the engine was started for (--max-model-len)
    endpoint: Literal["chat", "completions"] | None = None  # the OpenAI endpoint the harness sent to, as stated
    metric: Metric
    value: Positive
    source: Annotated[str, Field(min_length=1)]
    source_date: Annotated[str, Field(min_length=4)]
    excerpt: str = ""
    note: str = ""
    role: Literal["fit", "held-out"]

    @model_validator(mode="after")
    def _check(self) -> BenchmarkRow:
        if self.gpus_per_replica * self.replicas != self.gpu_count:
            raise ValueError("gpus_per_replica x replicas must equal gpu_count")
        if self.metric in ("prefill_per_s", "ttft_seconds") and self.input_tokens == 0:
            raise ValueError(f"{self.metric}: give input_tokens")
        if self.metric not in ("prefill_per_s", "ttft_seconds") and self.output_tokens == 0:
            raise ValueError(f"{self.metric}: give output_tokens")
        if self.attention_dp and (self.family != "fused" or self.split != "tensor"):
            raise ValueError("attention_dp: a TensorRT-LLM (fused) row over a tensor-parallel replica")
        if self.requests is not None and (self.family != "paged" or self.metric != "output_total" or self.replicas > 1):
            raise ValueError("requests: a burst is drained on one replica of a paged engine (metric output_total)")
        if self.requests is not None and self.requests > MAX_BURST_REQUESTS:
            raise ValueError(f"requests: at most {MAX_BURST_REQUESTS:,} in a burst")
        if self.requests is not None and self.requests * self.output_tokens > MAX_BURST_OUTPUT_TOKENS:
            raise ValueError(f"requests x output_tokens: at most {MAX_BURST_OUTPUT_TOKENS:,} tokens in a burst")
        if self.lengths != "fixed" and self.requests is None:
            raise ValueError("lengths: only a burst (requests) states its lengths' distribution")
        if self.depth_tokens + self.input_tokens + self.output_tokens > MAX_CONTEXT:
            raise ValueError(f"depth + input + output tokens: at most {MAX_CONTEXT:,} (the planner's longest context)")
        weight_format(self.weights)  # a named PlannerError (a ValueError) for a format the planner does not know
        kv_format(self.kv_dtype)
        return self


class ExcludedRow(BaseModel, frozen=True, extra="forbid"):
    """A published row left out, and why (not in the catalog, a setting the source does not state, …)."""

    id: str
    source: str
    reason: Annotated[str, Field(min_length=1)]


class _BenchmarkFile(BaseModel, frozen=True, extra="forbid"):
    row: tuple[BenchmarkRow, ...] = ()
    excluded: tuple[ExcludedRow, ...] = ()


def assigned_role(row_id: str) -> Literal["fit", "held-out"]:
    """``held-out`` when the first byte of SHA-1(id) is even, else ``fit``: a split nobody picks."""
    return "held-out" if hashlib.sha1(row_id.encode()).digest()[0] % 2 == 0 else "fit"


def _load_file(path: Path) -> _BenchmarkFile:
    """The file at ``path``, read within :data:`MAX_BENCHMARK_FILE_BYTES` (a regular file only), or a named
    :class:`PlannerError`."""
    return _parse_file(path.name, read_regular_file(path, MAX_BENCHMARK_FILE_BYTES, "a benchmark file"))


@cache
def _parse_file(name: str, data: bytes) -> _BenchmarkFile:
    """A benchmark file's bytes as rows (kept: the package's files are read by every scoring)."""
    try:
        return _BenchmarkFile.model_validate(tomllib.loads(data.decode("utf-8")))
    except UnicodeDecodeError as exc:
        raise PlannerError(f"{name}: not valid TOML: not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise PlannerError(f"{name}: not valid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise PlannerError(f"{name}: not valid TOML: arrays or tables nested too deeply") from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise PlannerError(f"{name}: {problems}") from None


def benchmark_files(directory: Path = BENCHMARKS_DIR) -> tuple[Path, ...]:
    return tuple(sorted(directory.glob("*.toml")))


def load_rows(paths: tuple[Path, ...] | None = None) -> tuple[BenchmarkRow, ...]:
    """Every row of ``paths`` (default: the package's files), ids unique across them."""
    rows = [row for path in (paths if paths is not None else benchmark_files()) for row in _load_file(path).row]
    ids = [r.id for r in rows]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise PlannerError(f"benchmarks: duplicate ids {', '.join(duplicates)}")
    return tuple(rows)


def excluded_rows(paths: tuple[Path, ...] | None = None) -> tuple[ExcludedRow, ...]:
    return tuple(e for path in (paths if paths is not None else benchmark_files()) for e in _load_file(path).excluded)
