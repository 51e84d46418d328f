"""What a parsed start-up log holds: the figures an engine printed, per GPU as the printing rank sees them.

Every registered engine reads its own lines (:meth:`planner.engines.base.Engine.parse_log`) into these fields;
:func:`planner.sources.logs.parse_log` asks each in turn. Units: every figure is GiB (2^30 bytes); the engines
that print "GB" (vLLM V0, SGLang) divide by ``1 << 30``, llama.cpp's MiB are converted by its parser.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, ValidationError

from planner.bounds.errors import PlannerError, describe_validation_error
from planner.bounds.limits import MAX_CONTEXT, MAX_GPU_MEMORY_BYTES, MAX_GPUS
from planner.core.overhead import FailureKind
from planner.core.units import GiB

# A printed memory figure is at most what one GPU may hold (planner.bounds.limits, 100,000 GB): a larger one is not an
# engine's line, and would make a calibration whose bytes no link can carry. Negative figures are printed when a
# start-up fails ("Available KV cache memory: -1.2 GiB").
MAX_GIB = MAX_GPU_MEMORY_BYTES / GiB
Gib = Annotated[float, Field(ge=-MAX_GIB, le=MAX_GIB)]
Count = Annotated[int, Field(ge=0, le=10**15)]  # blocks, tokens, sequences: the parser reads at most 15 digits
Ranks = Annotated[int, Field(gt=0, le=MAX_GPUS)]
Tokens = Annotated[int, Field(gt=0, le=MAX_CONTEXT)]
# The log kind an engine names (its registry name, or that name and a line format: "<engine>-v1").
LogFormat = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[a-z0-9][a-z0-9.-]*$")]
EngineName = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[a-z0-9][a-z0-9.-]*$")]


class ParsedLog(BaseModel, frozen=True, extra="forbid"):
    """The figures a start-up log printed (GiB per GPU; ``None`` where the log does not say)."""

    format: LogFormat  # the log kind, as the engine that read it names it
    engine: EngineName  # the registered engine whose lines these are (planner.engines.registry)
    engine_version: str | None = None
    model: str | None = None  # the engine's config line: the served checkpoint
    tensor_parallel: Ranks | None = None
    pipeline_parallel: Ranks | None = None
    dtype: str | None = None  # "bfloat16", "float16", "float32"
    quantization: str | None = None  # "None", "fp8", "mxfp4", "compressed-tensors", "gptq_marlin", ...
    kv_cache_dtype: str | None = None
    total_memory_gib: Gib | None = None
    free_memory_gib: Gib | None = None  # free on the device when the engine started
    gpu_memory_utilization: Annotated[float, Field(gt=0, le=1)] | None = None  # a fraction, as every engine takes it
    max_num_batched_tokens: Count | None = None
    max_num_seqs: Count | None = None
    weights_gib: Gib | None = None
    activation_peak_gib: Gib | None = None
    non_torch_gib: Gib | None = None
    cuda_graph_gib: Gib | None = None  # captured ("Graph capturing finished", "Actual usage ... CUDAGraph")
    cuda_graph_estimate_gib: Gib | None = None  # "Estimated CUDA graph memory"
    consumed_gib: Gib | None = None  # weights + non-torch measured as one free-memory drop ("consumed memory")
    peak_includes_graphs: bool = False  # the printed "peak activation" adds the graph estimate it subtracted
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


def parsed_log(data: dict[str, object]) -> ParsedLog:
    """``data`` as a :class:`ParsedLog`; figures no engine prints are a :class:`PlannerError` naming them."""
    try:
        return ParsedLog.model_validate(data)
    except ValidationError as exc:
        raise PlannerError(f"log: figures no engine prints: {describe_validation_error(exc)}") from None
