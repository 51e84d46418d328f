"""What a plan depends on (:class:`PlanRequest`), and the serving defaults a request resolves once: the weight
precision and KV dtype a checkpoint is served in, and the tensor-parallel split of a GPU count."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

from planner.bounds.limits import MAX_CONTEXT, MAX_LAYERS, Context, GpuCount, GpuMemoryBytes
from planner.core.gpu import GpuSpec
from planner.core.kv_formats import KvDtype
from planner.core.model import ModelSpec, for_context
from planner.core.overhead import Estimate, OverheadModel
from planner.core.parallel import default_parallelism
from planner.core.precision import WeightPrecision, dense_counterpart, weight_format
from planner.core.serving import engine_kv_dtype, serving_weights
from planner.deploy.options import DeploymentOptions

FitStatus = Literal["fits", "weights-do-not-fit", "no-room-for-one-sequence"]


class PlanRequest(BaseModel, frozen=True, extra="forbid"):
    """Everything a plan depends on."""

    model: ModelSpec
    gpu_memory_bytes: GpuMemoryBytes
    gpu: GpuSpec | None = None  # for labels; the memory used is gpu_memory_bytes
    gpu_count: GpuCount = 1  # bounded (planner.bounds.limits): the default split tries every divisor of it
    tensor_parallel: GpuCount | None = None  # None: the largest legal TP for gpu_count
    pipeline_parallel: Annotated[int, Field(gt=0, le=MAX_LAYERS)] = 1
    weights: WeightPrecision | None = None  # None: the model's native precision
    kv_dtype: KvDtype | None = None  # None: the model's activation dtype (bf16, or fp16/fp32 natives)
    context_tokens: Context = 4096
    max_model_len: Context | None = None  # what a contiguous engine reserves; default context_tokens
    shared_prefix_tokens: Annotated[int, Field(ge=0, le=MAX_CONTEXT)] = 0
    block_size: Context = 16
    overhead: OverheadModel = Estimate()
    deployment: DeploymentOptions | None = None  # offload, LoRA, speculation, shared or mixed GPUs (planner.deploy)
    # One of this many data-parallel replicas, planned alone (the advisor's view: gpu_count = TP): the weights an
    # engine splits over every replica (planner.planning.data_parallel.spread_of) are split over them all.
    # None: the request's own replicas.
    replica_of: GpuCount | None = None

    @model_validator(mode="after")
    def _check(self) -> PlanRequest:
        if self.shared_prefix_tokens > self.context_tokens:
            raise ValueError("shared_prefix_tokens cannot exceed context_tokens")
        if self.weights is not None and self.model.moe is None and weight_format(self.weights).moe_only:
            raise ValueError(
                f"{self.model.name} has no routed experts, which {self.weights} alone quantizes (a mixture-of-experts "
                f"checkpoint's layout); a dense checkpoint with every linear layer quantized is "
                f"{dense_counterpart(self.weights)}"
            )
        if self.weights is not None and self.model.moe is not None and weight_format(self.weights).dense_only:
            raise ValueError(
                f"{self.weights} is a layout read from a dense checkpoint; which of {self.model.name}'s experts it "
                "would keep in its other format is in no source"
            )
        served = for_context(self.model, max(self.context_tokens, self.max_model_len or 0))
        if served is not self.model:  # a documented YaRN switched on (or off) for this context
            object.__setattr__(self, "model", served)
        return self

    @property
    def resolved_weights(self) -> str:
        """The weight precision: as asked, else :func:`serving_weights`."""
        return self.weights or serving_weights(self.model)

    @property
    def resolved_kv_dtype(self) -> str:
        """The KV-cache dtype: as asked, else :func:`engine_kv_dtype` (the engine's own default, else the model's)."""
        return self.kv_dtype or engine_kv_dtype(self.model, self.overhead, self.gpu.platform if self.gpu else None)

    def at_context(self, tokens: int) -> PlanRequest:
        """This request at another context length (an engine's ``max_model_len`` follows it when it did)."""
        follows = self.max_model_len is not None and self.max_model_len == self.context_tokens
        length = tokens if follows or self.max_model_len is None else max(tokens, self.max_model_len)
        return self.model_copy(
            update={
                "model": for_context(self.model, length),
                "context_tokens": tokens,
                "shared_prefix_tokens": min(self.shared_prefix_tokens, tokens),
                "max_model_len": tokens if follows else self.max_model_len,
            }
        )

    @property
    def resolved_parallelism(self) -> tuple[int, int]:
        if self.tensor_parallel is None:
            if self.pipeline_parallel == 1 and self.overhead.attends_per_gpu:
                return 1, 1  # data-parallel attention: one rank a GPU (planner.planning.data_parallel.check_ranks)
            if self.pipeline_parallel == 1 and self.deployment is not None and self.deployment.mig_profile:
                return 1, 1  # MIG slices: a replica each (a process sees one slice: planning.extras.check_deployment)
            if self.pipeline_parallel == 1 and self.gpu is not None and self.gpu.one_per_machine:
                return 1, 1  # one GPU a machine: a replica each (a split over the network is asked for, not assumed)
            if self.pipeline_parallel == 1:
                widest = default_parallelism(self.model, self.gpu_count)
                if self.overhead.splits_layers and widest[0] < self.gpu_count <= self.model.num_hidden_layers:
                    # llama.cpp splits whole layers over every GPU (--split-mode layer), whatever the heads allow:
                    # where no TP uses them all, one pipeline stage per GPU (else TP, which sizes it the same way)
                    return 1, self.gpu_count
                return widest
            return max(1, self.gpu_count // self.pipeline_parallel), self.pipeline_parallel
        return self.tensor_parallel, self.pipeline_parallel
