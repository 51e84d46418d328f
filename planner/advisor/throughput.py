"""Speed estimates: decode tokens per second (per user and in aggregate) and prefill time, from rooflines.

Decode (one step produces one token for every sequence in the batch; per GPU of a tensor-parallel group):

- **memory** ``= (weights read + KV read) / (bandwidth x BANDWIDTH_EFFICIENCY)``. Weights read once per step:
  every linear layer, the lm_head (or the tied embedding), norms; not the input embedding table (a row
  gather) nor a vision tower. MoE experts: the fraction of experts a batch of ``B`` tokens touches,
  ``1 - (1 - k/E)^B`` (uniform routing, ``k`` of ``E`` experts per token). KV read: the whole cache of every
  sequence of the batch at its current length (window caps and linear-attention states included).
- **compute** ``= (2 x active parameters + 4 x context x q-width x attention layers) x B / (TFLOPS x MFU)``,
  at the TFLOPS of the format's arithmetic (FP8 on FP8 tensor cores when the GPU has them, FP4 on FP4 ones,
  INT8 on INT8 ones; everything else, weight-only formats included, at BF16). ``MFU_16BIT`` for BF16 figures,
  ``MFU_FP8`` for 8- and 4-bit ones.
- **step** ``= memory + compute + STEP_OVERHEAD_S + (TP > 1: 2 x layers x ALLREDUCE_S)``: the memory and
  compute parts are *added*, not overlapped (a ``max()`` was 43 % high on the held-out Llama 2 70B TP 4 batch
  64); the fixed part is kernel launches, sampling and scheduling; two all-reduces per layer. Per-user speed
  is ``1 / step``; aggregate ``B / step``.

Prefill (time to first token of one prompt, alone on the GPUs, no queueing):
``(2 x active x tokens + 2 x tokens^2 x q-width x attention layers) / (TFLOPS x tp x MFU)``.

Fitting (grid search on the log error of the ``fit`` rows of ``measurements.toml``, in this order):
``MFU_16BIT`` on Llama 2 7B TTFT on A100 (0.69), ``MFU_FP8`` on the same on H100 FP8 (0.40);
``BANDWIDTH_EFFICIENCY`` and ``STEP_OVERHEAD_S`` jointly on Llama 3 8B F16 batch 1 on RTX 4090 and Llama 2 7B
FP16 batch 1 and batch 64 on A100 (0.95 and 2.8 ms); ``ALLREDUCE_S`` on Llama 2 70B TP 4 batch 1 on A100
(63 us). A separate efficiency for dequantising 4-bit / GGUF kernels was tried on RTX 4090 Q4_K_M and fitted
to 1.0 (no penalty), so it was dropped. Every other row is held out.
:func:`planner.advisor.validation.validation_rows` gives the error
against each; ``tests/advisor/test_throughput.py`` checks them with stated tolerances. Known misses (held
out): Apple M2 Ultra +44 % (Metal reaches a smaller share of its bandwidth), TensorRT-LLM Llama 2 70B FP8
TP 4 at batch 480 +68 %, L40S TTFT +34 %.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from pydantic import BaseModel

from planner.gpu import GpuSpec
from planner.kv import attention_layer_count, kv_bytes_per_sequence
from planner.model import ModelSpec
from planner.params import ParameterBreakdown, parameter_breakdown
from planner.precision import weight_format
from planner.weights import category_bits

# Fitted to the measurements (measurements.toml) with role "fit" (see the module docstring for which fixes which).
BANDWIDTH_EFFICIENCY = 0.95
STEP_OVERHEAD_S = 0.0028
ALLREDUCE_S = 0.000063
MFU_16BIT = 0.69
MFU_FP8 = 0.40


def mfu(tflops_label: str) -> float:
    """Share of the peak TFLOPS matmuls reach: 8- and 4-bit tensor cores reach a smaller share of their doubled
    peak than 16-bit ones (``tflops_label`` as :func:`compute_tflops` names the figure)."""
    return MFU_16BIT if tflops_label.startswith("BF16") else MFU_FP8


Bound = Literal["memory", "compute"]


def compute_tflops(gpu: GpuSpec, weights: str) -> tuple[float | None, str]:
    """Dense TFLOPS the format's matmuls run at on ``gpu``, and which figure that is."""
    fp8, fp4, bf16 = gpu.fp8_dense_tflops, gpu.fp4_dense_tflops, gpu.bf16_dense_tflops
    if weights == "fp8" and fp8:
        return fp8, "FP8 dense"
    if weights == "int8" and gpu.int8_dense_tops:
        return gpu.int8_dense_tops, "INT8 dense"
    if weights in ("nvfp4", "mxfp4") and fp4:
        return fp4, "FP4 dense"
    if weights in ("nvfp4", "mxfp4") and fp8:
        return fp8, "FP8 dense (no FP4 tensor cores)"
    if bf16:
        return bf16, "BF16 dense"
    return None, "no TFLOPS in the catalog"


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
        comm_seconds=2 * model.num_hidden_layers * ALLREDUCE_S if tp > 1 else 0.0,
    )


class DecodeStep(NamedTuple):
    """The figures of :class:`DecodeEstimate` as a plain tuple (the ranking's inner loop builds thousands)."""

    step_seconds: float
    memory_seconds: float
    compute_seconds: float | None
    bound: Bound
    assumption: str


def decode_step(gpu: GpuSpec, weights: str, load: DecodeLoad) -> DecodeStep | None:
    """The step time of ``load`` on ``gpu`` (``None`` without a bandwidth figure): memory + compute + fixed."""
    if gpu.bandwidth_bytes_per_s is None:
        return None
    eff = BANDWIDTH_EFFICIENCY
    memory = (load.weights_read_bytes + load.kv_read_bytes) / (gpu.bandwidth_bytes_per_s * eff)
    tflops, tflops_label = compute_tflops(gpu, weights)
    compute = load.flops / (tflops * 1e12 * mfu(tflops_label)) if tflops else None
    bound: Bound = "compute" if compute is not None and compute > memory else "memory"
    step = memory + (compute or 0.0) + STEP_OVERHEAD_S + load.comm_seconds
    assumption = (
        f"batch {load.batch} at {load.context_tokens:,} tokens: {load.weights_read_bytes / 1e9:.2f} GB weights + "
        f"{load.kv_read_bytes / 1e9:.2f} GB KV read per GPU per step at {eff:.0%} of "
        f"{gpu.bandwidth_bytes_per_s / 1e9:,.0f} GB/s"
        + (
            f" + compute at {mfu(tflops_label):.0%} of {tflops:,.0f} TFLOPS ({tflops_label})"
            if tflops
            else "; compute not counted (no TFLOPS in the catalog)"
        )
        + f" + {STEP_OVERHEAD_S * 1e3:.1f} ms per step"
        + (f" + {load.comm_seconds * 1e3:.1f} ms all-reduce (TP {load.tensor_parallel})" if load.comm_seconds else "")
        + f"; {bound}-bound"
    )
    return DecodeStep(step, memory, compute, bound, assumption)


def decode_on(gpu: GpuSpec, weights: str, load: DecodeLoad) -> DecodeEstimate | None:
    """:func:`decode_step` as a :class:`DecodeEstimate`."""
    step = decode_step(gpu, weights, load)
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
) -> DecodeEstimate | None:
    """Decode speed of one replica (``tensor_parallel`` GPUs), or ``None`` without a bandwidth figure.

    ``step = (weights read + KV read) / (bandwidth x BANDWIDTH_EFFICIENCY) + FLOPs / (TFLOPS x MFU) +
    STEP_OVERHEAD_S + all-reduce``: the memory and compute parts are added, not overlapped (the additive form
    matched the held-out mid-batch measurements; a max() was 43 % high on Llama 2 70B TP 4 at batch 64).
    """
    return decode_on(
        gpu, weights, decode_load(model, weights, kv_dtype, tensor_parallel, batch, context_tokens, params)
    )


def prefill_seconds(
    model: ModelSpec,
    gpu: GpuSpec,
    weights: str,
    tensor_parallel: int,
    prompt_tokens: int,
    params: ParameterBreakdown | None = None,
) -> tuple[float | None, str]:
    """Seconds to prefill one prompt of ``prompt_tokens`` alone (compute-bound), and what that assumes."""
    tflops, label = compute_tflops(gpu, weights)
    if not tflops:
        return None, "prefill not estimated: the catalog has no TFLOPS for this GPU"
    params = params or parameter_breakdown(model)
    n = max(0, prompt_tokens)
    flops = 2 * params.active * n + 2 * n * n * _q_width(model) * attention_layer_count(model)
    seconds = flops / (tflops * 1e12 * tensor_parallel * mfu(label))
    return seconds, (
        f"compute-bound prefill of {n:,} tokens: 2 x {params.active / 1e9:.1f} B active parameters x tokens + "
        f"causal attention, at {mfu(label):.0%} of {tflops:,.0f} TFLOPS ({label}) x TP {tensor_parallel}; "
        "alone on the GPUs, no queueing"
    )
