"""What a plan returns: the memory of each GPU of each stage (:class:`StageMemory`), the capacity at a context
(:class:`CapacityAt`) and the plan (:class:`PlanResult`). ``fits`` and the signed headroom are data."""

from __future__ import annotations

import math

from pydantic import BaseModel

from planner.planning.extras import StageExtras
from planner.planning.request import FitStatus


class StageMemory(BaseModel, frozen=True, extra="forbid"):
    """One GPU of one pipeline stage, in bytes. ``headroom_bytes`` is signed: the KV pool when positive,
    the shortfall when negative."""

    stage: int
    layers: tuple[int, int]  # first and last+1 decoder layer
    gpu_memory_bytes: int
    weights_bytes: int
    activation_bytes: int
    framework_bytes: int  # CUDA context, library workspaces, NCCL buffers (the overhead model's framework term)
    reserved_bytes: int
    kv_cache_bytes: int
    headroom_bytes: int
    kv_bytes_per_token: int  # this GPU's share of one token, all its attention layers (and a drafter's)
    lora_bytes: int = 0  # LoRA adapter slots (planner.deploy.lora)
    draft_bytes: int = 0  # a draft model, EAGLE/Medusa heads or MTP layers (planner.deploy.speculative)
    other_bytes: int = 0  # held by other processes or engines before this one starts (planner.deploy.sharing)

    @property
    def free_bytes(self) -> int:
        """Memory left after everything, the KV pool included (0 when the pool takes the rest)."""
        return max(0, self.gpu_memory_bytes - self.used_bytes)

    @property
    def used_bytes(self) -> int:
        return (
            self.weights_bytes
            + self.activation_bytes
            + self.framework_bytes
            + self.reserved_bytes
            + self.kv_cache_bytes
        ) + (self.lora_bytes + self.draft_bytes + self.other_bytes)


class CapacityAt(BaseModel, frozen=True, extra="forbid"):
    """How many sequences of ``context_tokens`` the deployment holds at once.

    Totals are per replica times the replicas: a sequence lives in one replica's pool, so two replicas with
    half a sequence of room each hold no conversation (``conversations`` counts whole ones per replica).
    """

    context_tokens: int
    kv_bytes_per_sequence: int  # one sequence, whole model (window caps and fixed states included)
    replicas: int
    sequences: float  # exact token accounting (the seeds' formula), all replicas
    sequences_paged: float  # blocks of block_size tokens, rounded up per sequence (vLLM, SGLang, TRT-LLM)
    sequences_contiguous: int  # each sequence reserves max_model_len up front (naive allocation)
    sequences_with_shared_prefix: float  # paged, the shared prefix's full blocks stored once per replica

    @property
    def sequences_per_replica(self) -> float:
        """Paged sequences one replica's pool holds."""
        return self.sequences_paged / self.replicas if self.replicas else 0.0

    @property
    def conversations(self) -> int:
        """Whole conversations held at once: whole paged sequences per replica, times the replicas."""
        return math.floor(self.sequences_per_replica + 1e-9) * self.replicas


class PlanResult(BaseModel, frozen=True, extra="forbid"):
    """A plan: ``fits`` and the signed headroom are data, never exceptions."""

    model_id: str
    weights: str
    kv_dtype: str
    gpu_count: int
    tensor_parallel: int
    pipeline_parallel: int
    replicas: int
    context_tokens: int
    max_model_len: int
    block_size: int
    fits: bool
    fit_status: FitStatus
    parameters_total: int
    parameters_active: int
    parameters_served: int
    weights_bytes_total: int  # one copy of the served model
    per_gpu: StageMemory  # the limiting GPU
    stages: tuple[StageMemory, ...]
    kv_bytes_per_token: int  # whole model, all GPUs of a replica, ignoring window caps
    kv_budget_tokens: int  # whole deployment: tokens the KV pools hold (0 when it does not fit)
    kv_budget_tokens_per_replica: int
    gpu_blocks: int  # per replica: blocks of block_size tokens on the limiting GPU
    capacity: CapacityAt
    max_concurrency: float  # paged sequences of context_tokens, whole deployment
    warnings: tuple[str, ...] = ()
    deployment_stages: tuple[StageExtras, ...] | None = None  # what request.deployment changed, per stage

    @property
    def headroom_bytes(self) -> int:
        return self.per_gpu.headroom_bytes

    @property
    def gpu_weights_bytes_per_replica(self) -> int:
        """The weights a replica's GPUs hold together: each stage's per GPU, times its GPUs."""
        return sum(stage.weights_bytes for stage in self.stages) * self.tensor_parallel

    @property
    def host_weights_bytes_per_replica(self) -> int:
        """Checkpoint weights no GPU of a replica holds (llama.cpp's token_embd and CPU layers; 0 when the GPUs
        hold them all, or more: a tied model's duplicated output, an engine's padding)."""
        return max(0, self.weights_bytes_total - self.gpu_weights_bytes_per_replica)
