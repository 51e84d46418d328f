"""Working space: what a GPU holds besides the weights and the KV cache.

Three overhead models, chosen by ``kind`` (a discriminated union, so engine profiles can join it):

- ``simple-fraction``: a fixed share of every GPU's memory for "activations, runtime, headroom" — the
  reference planner of seed 001 (``const overhead = 0.10``).
- ``simple-fixed``: fixed bytes for framework and activations — seed 000's accounting of a 24 GB card
  ("framework + CUDA ~1.5 GB, peak activations ~1.0 GB").
- ``estimate`` (the default): activations that scale with the tokens in flight per step and the logits
  buffer, a framework cost that grows once GPUs talk to each other (NCCL), and the share of memory a
  serving engine leaves unreserved. Its constants come from vLLM V1 start-up logs (see each function).

Engine profiles (``vllm``, ``sglang``, ``trtllm``, ``llamacpp``) and measured ``calibrated`` overheads join the
union from :mod:`planner.engine_profiles`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from planner.engine_profiles import Calibrated, LlamacppProfile, SglangProfile, TrtllmProfile, VllmProfile
from planner.model import ModelSpec
from planner.units import GB, GiB


class OverheadBytes(BaseModel, frozen=True, extra="forbid"):
    """Per-GPU working space, in bytes."""

    activation_bytes: Annotated[int, Field(ge=0)]
    framework_bytes: Annotated[int, Field(ge=0)]  # CUDA context, library workspaces, NCCL buffers
    reserved_bytes: Annotated[int, Field(ge=0)]  # left unused on purpose (gpu_memory_utilization < 1)


class StageContext(BaseModel, frozen=True, extra="forbid"):
    """What an overhead model may depend on: the model and where this GPU sits in the deployment."""

    model: ModelSpec
    gpu_memory_bytes: int
    tensor_parallel: int
    pipeline_parallel: int
    is_last_stage: bool
    weights_bytes: int = 0  # this GPU's weights (TensorRT-LLM sizes its pool from what is left after them)
    max_model_len: int | None = None  # vLLM V0 profiles one sequence of it; llama.cpp allocates it


class SimpleFraction(BaseModel, frozen=True, extra="forbid"):
    """A fixed fraction of each GPU's memory for activations, runtime and headroom (seed 001: 10 %)."""

    kind: Literal["simple-fraction"] = "simple-fraction"
    fraction: Annotated[float, Field(ge=0, lt=1)] = 0.10

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        """``fraction x memory`` reserved, as seed 001's ``total*(1-overhead)`` does."""
        return OverheadBytes(
            activation_bytes=0, framework_bytes=0, reserved_bytes=round(self.fraction * ctx.gpu_memory_bytes)
        )


class SimpleFixed(BaseModel, frozen=True, extra="forbid"):
    """Fixed framework and activation bytes per GPU (seed 000: ~1.5 GB framework, ~1 GB activations)."""

    kind: Literal["simple-fixed"] = "simple-fixed"
    framework_bytes: Annotated[int, Field(ge=0)] = round(1.5 * GB)
    activation_bytes: Annotated[int, Field(ge=0)] = 1 * GB

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        return OverheadBytes(
            activation_bytes=self.activation_bytes, framework_bytes=self.framework_bytes, reserved_bytes=0
        )


# Fitted to vLLM 0.19 "torch peak memory increase" at max_num_batched_tokens=8192 on H100 (shared/reference/
# engine-logs-public.json): Llama-3.1-8B 1.89 GiB in total and 1.10 GiB on a pipeline stage without the
# lm_head, Qwen2.5-7B 2.21 GiB. Two unknowns, two stages: ~14 bytes per hidden unit (residual, norms, q/k/v,
# attention output in 16 bits) and ~6 bytes per MLP unit (gate+up output and the activated product) per token.
ACTIVATION_BYTES_PER_HIDDEN = 14
ACTIVATION_BYTES_PER_INTERMEDIATE = 6
# Logits for the sampler: fp32 rows of the whole vocabulary for max_num_seqs sequences, ~1.6 live copies
# (logits, probabilities, log-probabilities) — the same fit (0.79 GiB for 1024 x 128,256 fp32).
LOGITS_COPIES = 1.6
# vLLM 0.19 non-torch memory: 0.25 GiB on one GPU, 2.07 GiB with TP >= 2 (NCCL and custom all-reduce
# buffers; llm-d-planner PR #205 logs, vLLM PR #10511 1.79 -> 3.58 GiB).
NON_TORCH_SINGLE_BYTES = round(0.25 * GiB)
NON_TORCH_TP_BYTES = round(2.07 * GiB)


def activation_peak_bytes(
    model: ModelSpec, max_num_batched_tokens: int, max_num_seqs: int, tensor_parallel: int, with_logits: bool
) -> int:
    """Peak transient memory of one forward step on one GPU.

    ``tokens x (14 x hidden + 6 x intermediate / tp)`` for the layer activations of a step of
    ``max_num_batched_tokens`` (chunked prefill bounds a step, so the context length does not matter), plus
    ``max_num_seqs x vocab x 4 bytes x 1.6`` of sampler logits on the last pipeline stage. MoE layers use the
    width of the experts a token is routed to. Constants: fitted to vLLM V1 logs (module constants above).
    """
    hidden = model.hidden_size or 4096
    if model.moe is not None:
        width = model.moe.moe_intermediate_size * model.moe.num_experts_per_tok + model.moe.shared_width
        width = max(width, model.intermediate_size or 0)
    else:
        width = model.intermediate_size or 4 * hidden
    per_token = ACTIVATION_BYTES_PER_HIDDEN * hidden + ACTIVATION_BYTES_PER_INTERMEDIATE * width / tensor_parallel
    logits = max_num_seqs * (model.vocab_size or 32000) * 4 * LOGITS_COPIES if with_logits else 0
    return round(max_num_batched_tokens * per_token + logits)


class Estimate(BaseModel, frozen=True, extra="forbid"):
    """A serving engine in general: a memory fraction, activations per step, framework buffers.

    Defaults are vLLM's for an OpenAI-compatible server on a GPU of 70 GiB or more
    (``max_num_batched_tokens`` 8192, ``max_num_seqs`` 1024; ``EngineArgs._set_default_args``) with the
    ``gpu_memory_utilization`` default of 0.9.
    """

    kind: Literal["estimate"] = "estimate"
    gpu_memory_utilization: Annotated[float, Field(gt=0, le=1)] = 0.90
    max_num_batched_tokens: Annotated[int, Field(gt=0)] = 8192
    max_num_seqs: Annotated[int, Field(gt=0)] = 1024

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        """Reserved ``(1 - util) x memory``; framework = vLLM's non-torch memory; activations as
        :func:`activation_peak_bytes`."""
        return OverheadBytes(
            activation_bytes=activation_peak_bytes(
                ctx.model, self.max_num_batched_tokens, self.max_num_seqs, ctx.tensor_parallel, ctx.is_last_stage
            ),
            framework_bytes=NON_TORCH_TP_BYTES if ctx.tensor_parallel > 1 else NON_TORCH_SINGLE_BYTES,
            reserved_bytes=round((1 - self.gpu_memory_utilization) * ctx.gpu_memory_bytes),
        )


OverheadModel = Annotated[
    SimpleFraction
    | SimpleFixed
    | Estimate
    | VllmProfile
    | SglangProfile
    | TrtllmProfile
    | LlamacppProfile
    | Calibrated,
    Field(discriminator="kind"),
]
