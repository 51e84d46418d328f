"""Speed estimates: decode tokens per second (per user and in aggregate) and prefill time, from rooflines.

Decode (one step produces one token for every sequence in the batch; per GPU of a tensor-parallel group):

- **memory** ``= (weights read + KV read) / (bandwidth x efficiency)``. Weights read once per step: every linear
  layer, the lm_head (or the tied embedding), norms; not the input embedding table (a row gather) nor a vision
  tower. MoE experts: the fraction of experts a batch of ``B`` tokens touches, ``1 - (1 - k/E)^B`` (uniform
  routing, ``k`` of ``E`` experts per token). KV read: the whole cache of every sequence of the batch at its
  current length (window caps and linear-attention states included). The efficiency is
  ``bandwidth_efficiency`` for discrete GPUs and ``unified_bandwidth_efficiency`` for unified-memory machines.
- **compute** ``= (2 x active parameters + 4 x context x q-width x attention layers) x B / (TFLOPS x MFU)``, at
  the dense TFLOPS of the arithmetic the engine runs (:func:`compute_tflops`: the format's own tensor cores for
  FP8 / INT8 / FP4 when the support table says so, else 16-bit: BF16, then FP16, then, for a GPU with no
  16-bit matrix figure, its FP32 rate). ``mfu_16bit`` for 16-bit figures, ``mfu_low_bit`` for 8- and 4-bit ones.
  A GPU without the figure has an *unknown* compute time: never counted as free.
- **step** ``= max(memory, compute) + step_overhead_s + (TP > 1: 2 x layers x allreduce_s)``: a step waits for
  the slower of the two (a roofline); the fixed part is kernel launches, sampling and scheduling; two
  all-reduces per layer. Per-user speed is ``1 / step``; aggregate ``B / step``. ``bound`` names the larger part.

Prefill (time to first token of one prompt, alone on the GPUs, no queueing), compute-bound:
``(2 x active x tokens + 2 x tokens^2 x q-width x attention layers) / (TFLOPS x tp x MFU)``.

The constants (:data:`FITTED`) are fitted by :func:`planner.advisor.fit.fit_roofline` to the ``fit`` rows of
``measurements.toml`` (which row fixes which constant is stated there); every other row is held out, and
:func:`planner.advisor.validation.family_errors` reports the error per GPU family.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from pydantic import BaseModel

from planner.core.gpu import GpuSpec
from planner.core.kv import attention_layer_count, kv_bytes_per_sequence
from planner.core.model import ModelSpec
from planner.core.params import ParameterBreakdown, parameter_breakdown
from planner.core.precision import weight_format
from planner.core.weights import category_bits

ComputePath = Literal["16-bit", "fp8", "int8", "fp4"]
Bound = Literal["memory", "compute", "unknown"]


class Roofline(NamedTuple):
    """The fitted constants of the speed model (see the module docstring)."""

    bandwidth_efficiency: float  # share of the datasheet bandwidth a decode step reaches, discrete GPUs
    unified_bandwidth_efficiency: float  # the same on unified-memory machines (Apple)
    step_overhead_s: float  # fixed time per decode step
    allreduce_s: float  # one all-reduce under tensor parallelism
    mfu_16bit: float  # share of the 16-bit peak matmuls reach
    mfu_low_bit: float  # share of the 8- and 4-bit peak


# Reproduced by planner.advisor.fit.fit_roofline() from the "fit" rows (tests/advisor/test_fit.py checks it).
FITTED = Roofline(
    bandwidth_efficiency=0.83,
    unified_bandwidth_efficiency=0.74,
    step_overhead_s=0.0017,
    allreduce_s=0.000055,
    mfu_16bit=0.69,
    mfu_low_bit=0.40,
)


def compute_tflops(gpu: GpuSpec, path: ComputePath) -> tuple[float | None, str]:
    """Dense TFLOPS the matmuls of ``path`` run at on ``gpu`` (``None``: unknown), and which figure that is."""
    compute = gpu.compute
    if path == "fp8" or path == "int8" or path == "fp4":
        value = compute.tflops(path)
        label = {"fp8": "FP8 dense", "int8": "INT8 dense", "fp4": "FP4 dense"}[path]
        return (value, label) if value else (None, f"{label} unknown for this GPU")
    for fmt, label in (("bf16", "BF16 dense"), ("fp16", "FP16 dense")):
        value = compute.tflops(fmt)  # type: ignore[arg-type]
        if value:
            return value, label
    fp32 = compute.tflops("fp32")
    if fp32:
        return fp32, "FP32 (no 16-bit matrix figure: 16-bit math at the FP32 rate)"
    return None, "16-bit TFLOPS unknown for this GPU"


def default_compute_path(gpu: GpuSpec, weights: str) -> ComputePath:
    """The arithmetic a set-up runs when no support row says: the format's own tensor cores when the GPU has a
    figure for them (FP8, INT8, FP4 for NVFP4 / MXFP4), else 16-bit (weight-only dequantisation)."""
    own: dict[str, Literal["fp8", "int8", "fp4"]] = {"fp8": "fp8", "int8": "int8", "nvfp4": "fp4", "mxfp4": "fp4"}
    path = own.get(weights)
    if path is not None and gpu.compute.tflops(path):
        return path
    return "16-bit"


def mfu(path: ComputePath, roofline: Roofline = FITTED) -> float:
    """Share of the peak matmuls reach: 8- and 4-bit tensor cores reach a smaller share of their doubled peak."""
    return roofline.mfu_16bit if path == "16-bit" else roofline.mfu_low_bit


def bandwidth_efficiency(gpu: GpuSpec, roofline: Roofline = FITTED) -> float:
    return roofline.unified_bandwidth_efficiency if gpu.unified_memory else roofline.bandwidth_efficiency


def weight_read_bytes(model: ModelSpec, params: ParameterBreakdown, weights: str, batch: int) -> float:
    """Bytes of weights one decode step reads, whole model (one replica)."""
    bits = category_bits(weight_format(weights), params.experts > 0)
    read = (
        params.attention * bits["attention"]
        + params.dense_mlp * bits["dense_mlp"]
        + params.small * bits["small"]
        + (params.lm_head * bits["lm_head"] if params.lm_head else params.embedding * bits["embedding"])
    )
    total = float(read) / 8
    if params.experts:
        share = params.experts_active / params.experts
        touched = 1.0 - (1.0 - share) ** max(1, batch)
        total += float(params.experts * bits["experts"]) / 8 * touched
    return total


def _q_width(model: ModelSpec) -> int:
    if model.num_attention_heads is None:
        return model.hidden_size or 0
    if model.mla is not None:
        return model.num_attention_heads * (model.mla.qk_nope_head_dim + model.mla.qk_rope_head_dim)
    return model.num_attention_heads * model.resolved_head_dim


class DecodeEstimate(BaseModel, frozen=True, extra="forbid"):
    """One decode step of a replica at a batch and context."""

    batch: int
    context_tokens: int
    step_seconds: float
    tokens_per_s_per_user: float
    tokens_per_s_replica: float
    bound: Bound
    memory_seconds: float
    compute_seconds: float | None
    weights_read_bytes_per_gpu: float
    kv_read_bytes_per_gpu: float
    assumption: str


class DecodeLoad(NamedTuple):
    """What one decode step of a replica asks of each GPU, independent of the GPU."""

    batch: int
    context_tokens: int
    tensor_parallel: int
    weights_read_bytes: float  # per GPU
    kv_read_bytes: float  # per GPU
    flops: float  # per GPU
    comm_seconds: float


def decode_load(
    model: ModelSpec,
    weights: str,
    kv_dtype: str,
    tensor_parallel: int,
    batch: int,
    context_tokens: int,
    params: ParameterBreakdown | None = None,
    roofline: Roofline = FITTED,
) -> DecodeLoad:
    """Bytes and FLOPs per GPU of one decode step of ``batch`` sequences at ``context_tokens``."""
    params = params or parameter_breakdown(model)
    tp, batch = tensor_parallel, max(1, batch)
    flops = (2 * params.active + 4 * context_tokens * _q_width(model) * attention_layer_count(model)) * batch / tp
    return DecodeLoad(
        batch=batch,
        context_tokens=context_tokens,
        tensor_parallel=tp,
        weights_read_bytes=weight_read_bytes(model, params, weights, batch) / tp,
        kv_read_bytes=batch * kv_bytes_per_sequence(model, kv_dtype, context_tokens, tp),
        flops=flops,
        comm_seconds=2 * model.num_hidden_layers * roofline.allreduce_s if tp > 1 else 0.0,
    )


class DecodeStep(NamedTuple):
    """The figures of :class:`DecodeEstimate` as a plain tuple (the ranking's inner loop builds thousands).

    With ``bound`` "unknown" the GPU has no figure for the arithmetic: ``step_seconds`` counts memory only (a
    lower bound on the time, so the speed is an upper bound)."""

    step_seconds: float
    memory_seconds: float
    compute_seconds: float | None
    bound: Bound
    assumption: str


def decode_step(gpu: GpuSpec, path: ComputePath, load: DecodeLoad, roofline: Roofline = FITTED) -> DecodeStep | None:
    """The step time of ``load`` on ``gpu`` (``None`` without a bandwidth figure): ``max(memory, compute)`` plus
    the fixed time per step and the all-reduces."""
    if gpu.bandwidth_bytes_per_s is None:
        return None
    eff = bandwidth_efficiency(gpu, roofline)
    memory = (load.weights_read_bytes + load.kv_read_bytes) / (gpu.bandwidth_bytes_per_s * eff)
    tflops, tflops_label = compute_tflops(gpu, path)
    compute = load.flops / (tflops * 1e12 * mfu(path, roofline)) if tflops else None
    bound: Bound = "unknown" if compute is None else ("compute" if compute > memory else "memory")
    step = max(memory, compute or 0.0) + roofline.step_overhead_s + load.comm_seconds
    assumption = (
        f"batch {load.batch} at {load.context_tokens:,} tokens: {load.weights_read_bytes / 1e9:.2f} GB weights + "
        f"{load.kv_read_bytes / 1e9:.2f} GB KV read per GPU per step at {eff:.0%} of "
        f"{gpu.bandwidth_bytes_per_s / 1e9:,.0f} GB/s ({memory * 1e3:.1f} ms)"
        + (
            f"; {load.flops / 1e12:.2f} TFLOP per GPU at {mfu(path, roofline):.0%} of {tflops:,.1f} TFLOPS "
            f"({tflops_label}; {(compute or 0.0) * 1e3:.1f} ms); the larger counts"
            if tflops
            else f"; compute time unknown ({tflops_label}): memory only, so the speed is an upper bound"
        )
        + f" + {roofline.step_overhead_s * 1e3:.1f} ms per step"
        + (f" + {load.comm_seconds * 1e3:.1f} ms all-reduce (TP {load.tensor_parallel})" if load.comm_seconds else "")
        + f"; {bound}-bound"
    )
    return DecodeStep(step, memory, compute, bound, assumption)


def decode_on(gpu: GpuSpec, path: ComputePath, load: DecodeLoad, roofline: Roofline = FITTED) -> DecodeEstimate | None:
    """:func:`decode_step` as a :class:`DecodeEstimate`."""
    step = decode_step(gpu, path, load, roofline)
    if step is None:
        return None
    return DecodeEstimate(
        batch=load.batch,
        context_tokens=load.context_tokens,
        step_seconds=step.step_seconds,
        tokens_per_s_per_user=1.0 / step.step_seconds,
        tokens_per_s_replica=load.batch / step.step_seconds,
        bound=step.bound,
        memory_seconds=step.memory_seconds,
        compute_seconds=step.compute_seconds,
        weights_read_bytes_per_gpu=load.weights_read_bytes,
        kv_read_bytes_per_gpu=load.kv_read_bytes,
        assumption=step.assumption,
    )


def decode_estimate(
    model: ModelSpec,
    gpu: GpuSpec,
    weights: str,
    kv_dtype: str,
    tensor_parallel: int,
    batch: int,
    context_tokens: int,
    params: ParameterBreakdown | None = None,
    path: ComputePath | None = None,
    roofline: Roofline = FITTED,
) -> DecodeEstimate | None:
    """Decode speed of one replica (``tensor_parallel`` GPUs), or ``None`` without a bandwidth figure
    (``path``: the arithmetic, default :func:`default_compute_path`)."""
    load = decode_load(model, weights, kv_dtype, tensor_parallel, batch, context_tokens, params, roofline)
    return decode_on(gpu, path or default_compute_path(gpu, weights), load, roofline)


def prefill_seconds(
    model: ModelSpec,
    gpu: GpuSpec,
    path: ComputePath,
    tensor_parallel: int,
    prompt_tokens: int,
    params: ParameterBreakdown | None = None,
    roofline: Roofline = FITTED,
) -> tuple[float | None, str]:
    """Seconds to prefill one prompt of ``prompt_tokens`` alone (compute-bound), and what that assumes."""
    tflops, label = compute_tflops(gpu, path)
    if not tflops:
        return None, f"prefill not estimated: {label}"
    params = params or parameter_breakdown(model)
    n = max(0, prompt_tokens)
    flops = 2 * params.active * n + 2 * n * n * _q_width(model) * attention_layer_count(model)
    efficiency = mfu(path, roofline)
    seconds = flops / (tflops * 1e12 * tensor_parallel * efficiency)
    return seconds, (
        f"compute-bound prefill of {n:,} tokens: 2 x {params.active / 1e9:.1f} B active parameters x tokens + "
        f"causal attention, at {efficiency:.0%} of {tflops:,.1f} TFLOPS ({label}) x TP {tensor_parallel}; "
        "alone on the GPUs, no queueing"
    )
