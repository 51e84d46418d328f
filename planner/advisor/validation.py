"""The speed model against published measurements: each benchmark row's prediction, its error, and the error per
engine family and regime, fit rows and held-out rows apart.

:func:`case` turns a :class:`~planner.advisor.benchmarks.BenchmarkRow` into the loads of
:mod:`planner.advisor.throughput` once (they do not depend on the fitted constants): the catalog supplies the model
and the GPU, the support table the arithmetic, the planner the KV pool of a run that fills it (``concurrency =
"max"``: the engine's own accounting at the run's context, capped at the engine's default batch limit).
:func:`predict` then applies :mod:`planner.advisor.engine_speed` with a set of constants.

``python -m planner.advisor.validation [FILE ...]`` prints the table for the package's rows, or scores other files
of the same schema (cases the fit never saw) the same way.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from pydantic import BaseModel

from planner.advisor.attended import attended_model
from planner.advisor.benchmarks import FAMILY_LABELS, BenchmarkRow, load_rows
from planner.advisor.drain import Drained, Limits, Scheduler, drain, sharegpt_lengths, uniform_lengths
from planner.advisor.eager_steps import eager_forward
from planner.advisor.engine_speed import (
    FITTED,
    Roofline,
    prefill_alone,
    prefill_in_serving,
    serving_chunk,
    step,
)
from planner.advisor.frontend import burst_wait_seconds, chat_prompt_tokens
from planner.advisor.hardware import default_compute_path
from planner.advisor.kernels import (
    llamacpp_dequant_gemm,
    llamacpp_flash_attention,
    llamacpp_kv_per_query_head,
    moe_kernel_layer_seconds,
    trtllm_kv_per_query_head,
)
from planner.advisor.row_batch import assessed_row, engine_of_family, max_batch
from planner.advisor.serving_cycle import serving
from planner.advisor.support import runner
from planner.advisor.throughput import GGUF_QUANTS, Load, Setup, decode_load, prefill_chunk_tokens, prefill_load
from planner.advisor.triton_attention import vllm_triton_attention
from planner.bounds.errors import PlannerError
from planner.core.layer_params import ParameterBreakdown
from planner.core.model import ModelSpec
from planner.core.params import parameter_breakdown
from planner.engines.preemption import resumes_from_cached_prefix
from planner.engines.registry import engine_labelled
from planner.engines.startup import pool_holds_max_model_len

if TYPE_CHECKING:
    from planner.engines.base import EngineReport

# A burst's decode steps are priced once per batch and this many tokens of mean context (planner.advisor.drain).
DRAIN_CONTEXT_STEP = 64


class Case(NamedTuple):
    """A benchmark row as loads (independent of the fitted constants)."""

    row: BenchmarkRow
    setup: Setup
    decode: Load | None
    prefill: Load | None
    batch: int


def row_engine(row: BenchmarkRow) -> str:
    """The registered engine the row names (SGLang, vLLM, ...), else its family's first."""
    named = engine_labelled(row.engine)
    return named.name if named is not None else engine_of_family(row.family)


def _setup(row: BenchmarkRow) -> Setup:
    from model_catalog import get_gpu, get_model  # the catalog imports the planner: import late

    gpu, spec = get_gpu(row.gpu_id), get_model(row.model_id).spec
    engine = engine_of_family(row.family)
    found = runner(gpu, row.weights, row.kv_dtype, spec.moe is not None, (engine,))
    named = row_engine(row)  # the engine the row names: its kernels by GPU (SGLang's are not vLLM's)
    path = (
        found.compute if found is not None and row.family != "layer-split" else default_compute_path(gpu, row.weights)
    )
    if row.family == "layer-split":
        path = "16-bit"
    quantized = row.family == "layer-split" and row.weights in GGUF_QUANTS
    moe = moe_kernel_layer_seconds(gpu, named, row.weights, row.moe_kernel)
    dequant = llamacpp_dequant_gemm(gpu, quantized, row.engine_release)
    per_head = (row.family == "layer-split" and llamacpp_kv_per_query_head(gpu, row.flash_attention)) or (
        row.engine.startswith("TensorRT-LLM") and trtllm_kv_per_query_head(row.engine_version)
    )
    flash = row.family == "layer-split" and llamacpp_flash_attention(gpu, row.flash_attention)
    chunk = None
    if row.family == "paged":  # the paged rows are the family's first engine's (vLLM's) unless they name another
        chunk = prefill_chunk_tokens(gpu, named, row.gpus_per_replica)
    sinks, kv = spec.attention_sinks, row.kv_dtype  # vLLM's Triton attention where the release picks it
    triton = row.family == "paged" and vllm_triton_attention(gpu, named, row.engine_version, sinks, kv)
    return Setup(
        gpu, row.family, path, row.gpus_per_replica, row.split, quantized, moe, dequant, per_head, flash, chunk,
        row.attention_dp, engine=named, weights=row.weights, release=row.engine_version, triton_attention=triton,
    )  # fmt: skip


def burst_pool(row: BenchmarkRow) -> EngineReport:
    """The engine report of the row's set-up under the registered engine it names (SGLang, vLLM) at the release it
    states (``engine_version``), else (none named, or a set-up the registry says that engine does not run) its
    family's first at its default release."""
    named = engine_labelled(row.engine)
    report = None
    if named is not None:
        try:
            report = assessed_row(row, named.name, row.engine_version).report
        except PlannerError:
            report = None
    report = report or assessed_row(row, engine_of_family(row.family)).report
    assert report is not None  # a paged engine always reports
    return report


def drained(row: BenchmarkRow, r: Roofline = FITTED, scheduler: Scheduler = drain) -> Drained:
    """A burst row (``requests``) run through the scheduler (:mod:`planner.advisor.drain`; another of the same
    signature for an A/B, :mod:`bench.drain_sglang`): the engine's own KV pool (tokens) and running limit for the
    set-up, its step budget, the row's lengths; each decode step priced by the speed model at its batch and mean
    context, each prompt token as a prompt inside a serving run, each step outside the engine's CUDA graphs with
    the time that adds where it is measured (:func:`planner.advisor.eager_steps.eager_forward`)."""
    assert row.requests is not None
    c = case(row)
    assert c.prefill is not None
    lengths = burst_lengths(row)
    limits = burst_limits(row, lengths)
    spec, _, params = _served_model(row)
    steps: dict[tuple[int, int], float] = {}

    def decode_seconds(batch: int, context: int) -> float:
        key = (batch, context // DRAIN_CONTEXT_STEP)
        if key not in steps:
            bits = (row.weights_bits, row.other_bits)
            load = decode_load(spec, row.weights, row.kv_dtype, batch, context, params, *bits)
            steps[key] = step(c.setup, load, r).seconds
        return steps[key]

    per_token = (prefill_in_serving(c.setup, c.prefill, r) or 0.0) / max(1, row.input_tokens)
    return scheduler(lengths, limits, decode_seconds, per_token, burst_wait_seconds(row), eager_forward(row))


def burst_limits(row: BenchmarkRow, lengths: list[tuple[int, int]]) -> Limits:
    """What bounds a burst's running batch: the engine's pool for the set-up (:func:`burst_pool`), at least its
    longest request and, under vLLM, the ``max_model_len`` the row states (the run finished, so the engine started,
    and vLLM refuses to start unless its pool holds one ``max_model_len`` request: vllm 0.11.0
    ``v1/core/kv_cache_utils.py:678-723``, ``check_enough_kv_cache_memory``); the fewest of the engine's own running
    limit, the one the source sets on it (``max_running``) and the client's cap (an integer ``concurrency``); the
    engine's step budget; under vLLM (V1) a preempted request's prefix kept in its prefix cache
    (:class:`planner.advisor.drain.Limits`)."""
    report = burst_pool(row)
    started = row.max_model_len if pool_holds_max_model_len(report.engine) else None
    pool = max(report.kv_cache_tokens, max(p + o for p, o in lengths), started or 0)
    caps = (report.max_running, row.max_running, row.concurrency if row.concurrency != "max" else None)
    most = min((cap for cap in caps if cap), default=len(lengths))
    return Limits(pool, most, serving_chunk(case(row).setup), cached_prefix=resumes_from_cached_prefix(report.engine))


def burst_lengths(row: BenchmarkRow) -> list[tuple[int, int]]:
    """The (prompt, answer) lengths of a burst row's requests, by its ``lengths``, each prompt as the engine prefills
    it: the client's count and the tokens the chat format adds (:func:`planner.advisor.frontend.chat_prompt_tokens`)."""
    assert row.requests is not None
    if row.lengths == "sharegpt":
        lengths = sharegpt_lengths(row.requests, row.input_tokens, row.output_tokens)
    elif row.lengths == "uniform":
        lengths = uniform_lengths(row.requests, row.input_tokens, row.output_tokens)
    else:
        lengths = [(row.input_tokens, row.output_tokens)] * row.requests
    added = chat_prompt_tokens(row)
    return [(prompt + added, answer) for prompt, answer in lengths]


def _served_model(row: BenchmarkRow) -> tuple[ModelSpec, ModelSpec, ParameterBreakdown]:
    """The model as the row's engine caches and attends to it, as its prompts attend (chunked layers within their
    chunks, :func:`planner.advisor.attended.attended_model`), and its parameters."""
    from model_catalog import get_model
    from planner.engines.registry import engine_profile

    model = get_model(row.model_id).spec
    cached = engine_profile(engine_of_family(row.family)).kv_model(model)
    return cached, attended_model(cached, model), parameter_breakdown(model)


@cache
def case(row: BenchmarkRow) -> Case:
    """The loads of ``row`` (cached: the fit evaluates every row many times), on the model as the row's engine
    caches and attends to it (:meth:`planner.core.overhead.OverheadModelBase.kv_model`: TensorRT-LLM keeps every
    token of sliding-window and chunked layers unless the run sets an attention window, which no row states)."""
    spec, prompt_spec, params = _served_model(row)
    setup = _setup(row)
    bits, other = row.weights_bits, row.other_bits
    if row.metric in ("prefill_per_s", "ttft_seconds"):
        alone = prefill_load(prompt_spec, row.weights, row.input_tokens, row.depth_tokens, params, bits, other)
        return Case(row, setup, None, alone, 1)
    per_replica = row.concurrency if row.concurrency != "max" else max_batch(row) * row.replicas
    batch = max(1, math.ceil(per_replica / row.replicas))
    context = row.depth_tokens + row.input_tokens + row.output_tokens // 2
    decode = decode_load(spec, row.weights, row.kv_dtype, batch, context, params, bits, other)
    prefill: Load | None = None
    if row.metric in ("output_total", "output_per_gpu") and row.input_tokens:
        prefill = prefill_load(prompt_spec, row.weights, row.input_tokens, 0, params, bits, other)
    return Case(row, setup, decode, prefill, batch)


def predict(row: BenchmarkRow, r: Roofline = FITTED) -> float | None:
    """What the speed model gives for ``row``, in its metric (``None``: a figure the catalog lacks)."""
    c = case(row)
    if c.decode is None:
        assert c.prefill is not None
        seconds = prefill_alone(c.setup, c.prefill, r, row.ubatch_tokens)
        if seconds is None:
            return None
        return seconds if row.metric == "ttft_seconds" else row.input_tokens / seconds
    if row.metric == "decode_per_user":
        return 1.0 / step(c.setup, c.decode, r).seconds
    if row.metric == "decode_total":
        return c.batch / step(c.setup, c.decode, r).seconds
    if row.requests is not None:
        return drained(row, r).output_tokens_per_s
    if row.concurrency == 1 and c.prefill is not None:  # one request at a time: its prefill runs alone
        first = prefill_alone(c.setup, c.prefill, r, row.ubatch_tokens) or 0.0
        total = row.output_tokens / (first + row.output_tokens * step(c.setup, c.decode, r).seconds)
    else:
        total = serving(c.setup, c.decode, c.prefill, row.output_tokens, r).total_tokens_per_s
    total *= row.replicas
    return total / row.gpu_count if row.metric == "output_per_gpu" else total


class Scored(BaseModel, frozen=True, extra="forbid"):
    id: str
    family: str
    regime: str
    role: str
    metric: str
    measured: float
    predicted: float | None
    error: float | None  # predicted / measured - 1 (for ttft_seconds: measured / predicted - 1, a speed error)
    source: str


def scored(rows: tuple[BenchmarkRow, ...] | None = None, r: Roofline = FITTED) -> list[Scored]:
    """Every row against its prediction."""
    out = []
    for row in load_rows() if rows is None else rows:
        p = predict(row, r)
        error = None
        if p is not None:
            error = row.value / p - 1 if row.metric == "ttft_seconds" else p / row.value - 1
        out.append(
            Scored(
                id=row.id,
                family=row.family,
                regime=row.regime,
                role=row.role,
                metric=row.metric,
                measured=row.value,
                predicted=p,
                error=error,
                source=row.source,
            )
        )
    return out


class GroupError(BaseModel, frozen=True, extra="forbid"):
    """The error of one engine family in one regime over the fit or the held-out rows."""

    family: str
    regime: str
    role: str
    rows: int
    median_abs_error: float
    worst_abs_error: float
    worst_id: str


def group_errors(results: list[Scored]) -> list[GroupError]:
    """Median and worst ``|predicted / measured - 1|`` per family, regime and role (rows with a prediction)."""
    groups: dict[tuple[str, str, str], list[Scored]] = {}
    for s in results:
        if s.error is not None:
            groups.setdefault((s.family, s.regime, s.role), []).append(s)
    out = []
    for (family, regime, role), members in sorted(groups.items()):
        worst = max(members, key=lambda s: abs(s.error or 0.0))
        out.append(
            GroupError(
                family=family,
                regime=regime,
                role=role,
                rows=len(members),
                median_abs_error=statistics.median(abs(s.error or 0.0) for s in members),
                worst_abs_error=abs(worst.error or 0.0),
                worst_id=worst.id,
            )
        )
    return out


def summary(results: list[Scored], role: str) -> tuple[int, float, float]:
    """(rows, median |error|, worst |error|) over the rows of ``role`` with a prediction."""
    errors = [abs(s.error) for s in results if s.role == role and s.error is not None]
    return len(errors), (statistics.median(errors) if errors else 0.0), max(errors, default=0.0)


@cache
def held_out_median_error() -> float:
    """The speed model's median ``|error|`` over the package's held-out rows (:func:`summary` of :func:`scored` at
    the fitted constants: 10.7 % over 109 rows with the fit of 2026-12-07; README, "Speed"): the error a modelled
    speed carries on a set-up it was not fitted on, so a smaller difference between two modelled speeds is no
    evidence that one is faster."""
    return summary(scored(), "held-out")[1]


def errors_table(results: list[Scored]) -> str:
    """The markdown table of :func:`group_errors`: per engine family and regime, fit and held-out side by side."""
    lines = [
        "| engine | regime | fit rows: median / worst | held-out rows: median / worst | worst held-out row |",
        "|---|---|---|---|---|",
    ]
    index = {(g.family, g.regime, g.role): g for g in group_errors(results)}
    for family, regime in sorted({(g.family, g.regime) for g in index.values()}):
        fit, held = index.get((family, regime, "fit")), index.get((family, regime, "held-out"))

        def cell(g: GroupError | None) -> str:
            return "none" if g is None else f"{g.rows}: {g.median_abs_error:.0%} / {g.worst_abs_error:.0%}"

        worst = "" if held is None else held.worst_id
        lines.append(f"| {FAMILY_LABELS[family]} | {regime} | {cell(fit)} | {cell(held)} | {worst} |")
    return "\n".join(lines)


def scores_report(results: list[Scored]) -> str:
    """:func:`errors_table` and, for the fit rows and the held-out ones, the count, median and worst |error| (what
    ``python -m planner.advisor.validation`` and ``python -m planner.advisor.fit`` print)."""
    lines = [errors_table(results)]
    for role in ("fit", "held-out"):
        n, median, worst = summary(results, role)
        lines.append(f"{role}: {n} rows, median |error| {median:.1%}, worst {worst:.1%}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the error table of the package's rows, or of the files named; a file that cannot be read or is not of
    the schema ends with a named message on stderr and status 2."""
    parser = argparse.ArgumentParser(
        prog="python -m planner.advisor.validation",
        description="The speed model against published measurements: errors per engine and regime.",
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="TOML files of BenchmarkRow rows (default: ours)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        rows = load_rows(tuple(Path(a) for a in args.files)) if args.files else None
        results = scored(rows)
    except PlannerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(scores_report(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
