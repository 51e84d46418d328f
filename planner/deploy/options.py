"""How a model is deployed beyond "whole, on identical GPUs": the options a
:class:`planner.planning.request.PlanRequest`
may carry (``deployment``). Each option is read by one module of :mod:`planner.deploy`, which cites the engine
rule it follows:

- partial offload (:mod:`.offload`): llama.cpp ``-ngl`` / ``--n-cpu-moe``, vLLM ``--cpu-offload-gb``;
- KV offload tiers (:mod:`.kv_offload`): vLLM ``--kv-offloading-size`` (native or LMCache), a prefix working set;
- LoRA slots (:mod:`.lora`): vLLM ``--max-loras --max-lora-rank --max-cpu-loras``, SGLang equivalents;
- speculative decoding (:mod:`.speculative`): a draft model, EAGLE/EAGLE-3/Medusa heads, the checkpoint's MTP;
- memory already in use and MIG slices (:mod:`.sharing`), and the machine's host (:mod:`.host`: Linux, or Windows
  under WSL2 / Docker Desktop);
- mixed GPUs, one per pipeline stage (:mod:`.mixed`).

Bytes are ints; sizes given in GiB by an engine's flag (``--cpu-offload-gb``, ``--kv-offloading-size``) are
converted with ``2**30`` as the engine does.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

from planner.bounds.limits import MAX_CONTEXT
from planner.core.model import ModelSpec
from planner.deploy.host import HostOs

NonNegative = Annotated[int, Field(ge=0)]
Positive = Annotated[int, Field(gt=0)]
# Bounds: nothing real comes near them; they keep hostile values out of the arithmetic. They are the one
# declaration of each option's range: the dashboard's settings and the command line's flags read them
# (planner.bounds.limits.field_range), so neither accepts what validation here then refuses (issue 25).
MAX_BYTES = 2**50  # 1 PiB
MAX_COUNT = 100_000
# A link between memories: from 1 MB/s to 100 TB/s (real ones: PCIe 3.0 x1 ~1 GB/s to HBM3e ~8 TB/s per GPU).
MIN_RATE = 10**6
MAX_RATE = 10**14
Bytes = Annotated[int, Field(ge=0, le=MAX_BYTES)]
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
PositiveCount = Annotated[int, Field(gt=0, le=MAX_COUNT)]
Rate = Annotated[int, Field(ge=MIN_RATE, le=MAX_RATE)]  # bytes per second
Tokens = Annotated[int, Field(ge=0, le=MAX_CONTEXT)]  # a token count within one conversation

# Dual-channel DDR5-5600: 2 channels x 8 bytes x 5600 MT/s = 89.6 GB/s (JEDEC JESD79-5 transfer rate; a desktop).
DEFAULT_HOST_BANDWIDTH = 89_600_000_000
# PCIe 4.0 x16: 16 GT/s x 16 lanes x 128/130 encoding / 8 = 31.5 GB/s per direction (PCI-SIG base specification 4.0).
DEFAULT_PCIE_BANDWIDTH = 31_500_000_000

LoraModule = Literal["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "experts"]
LORA_MODULES: tuple[LoraModule, ...] = (
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "gate_proj",
    "up_proj",
    "down_proj",
    "experts",
)
SpeculativeMethod = Literal["draft", "eagle", "eagle3", "medusa", "mtp"]
KvOffloadBackend = Literal["native", "lmcache"]


class LoraOptions(BaseModel, frozen=True, extra="forbid"):
    """Adapter slots on the GPU (vLLM ``--max-loras``, SGLang ``--max-loras-per-batch``) and the host cache."""

    max_loras: PositiveCount = 1
    max_lora_rank: Annotated[int, Field(gt=0, le=4096)] = 16  # vLLM's default
    max_cpu_loras: PositiveCount | None = None  # None: max_loras (vLLM's default)
    target_modules: tuple[LoraModule, ...] = LORA_MODULES  # vLLM: every supported module unless told

    @model_validator(mode="after")
    def _check(self) -> LoraOptions:
        """vLLM: "max_cpu_loras must be >= max_loras" (0.34.0 ``config/lora.py`` :116-118); SGLang asserts
        ``max_loaded_loras >= max_loras_per_batch`` (0.5.4 ``srt/server_args.py`` :3516-3520)."""
        if self.max_cpu_loras is not None and self.max_cpu_loras < self.max_loras:
            raise ValueError(
                f"max_cpu_loras ({self.max_cpu_loras}) must be at least max_loras ({self.max_loras}): the host "
                "cache holds every adapter on the GPU"
            )
        return self

    @property
    def every_module(self) -> bool:
        """Whether every module is targeted (an engine's default: vLLM names none)."""
        return set(self.target_modules) >= set(LORA_MODULES)


class SpeculativeOptions(BaseModel, frozen=True, extra="forbid"):
    """What proposes the tokens, and how many per step."""

    method: SpeculativeMethod
    draft_model: ModelSpec | None = None  # method "draft": the small model
    num_speculative_tokens: Annotated[int, Field(gt=0, le=64)] = 1
    draft_vocab_size: Annotated[int, Field(gt=0, le=10_000_000)] = 32_000  # EAGLE-3 heads' own reduced vocabulary

    @model_validator(mode="after")
    def _check(self) -> SpeculativeOptions:
        if (self.method == "draft") != (self.draft_model is not None):
            raise ValueError("speculative: a draft model goes with method 'draft' (and only with it)")
        return self


class KvOffloadOptions(BaseModel, frozen=True, extra="forbid"):
    """A host-memory tier for KV blocks: a size (vLLM ``--kv-offloading-size``, GiB over all ranks) or a
    prefix working set (prompt tokens x users x hit rate) that sizes it."""

    size_bytes: Bytes = 0  # 0: sized from the working set
    backend: KvOffloadBackend = "native"
    prefix_tokens: Tokens = 0  # tokens of the prompt prefix each user comes back with
    users: Count = 0  # users whose prefixes are kept
    hit_rate: Annotated[float, Field(ge=0, le=1)] = 1.0  # share of those prefixes the tier must still hold


class StageGpu(BaseModel, frozen=True, extra="forbid"):
    """One GPU of a mixed set-up: a pipeline stage (vLLM) or a device of a layer split (llama.cpp)."""

    name: str = Field(min_length=1, max_length=100)
    memory_bytes: Annotated[int, Field(gt=0, le=MAX_BYTES)]
    bandwidth_bytes_per_s: Rate | None = None


class DeploymentOptions(BaseModel, frozen=True, extra="forbid"):
    """Every deployment option; the defaults plan the model whole on identical GPUs."""

    gpu_layers: Count | None = None  # llama.cpp -ngl; None: all layers on the GPU
    cpu_moe_layers: Count = 0  # llama.cpp --n-cpu-moe: routed experts of the first N layers in host RAM
    cpu_offload_bytes: Bytes = 0  # vLLM / SGLang --cpu-offload-gb, per GPU
    host_bandwidth_bytes_per_s: Rate = DEFAULT_HOST_BANDWIDTH  # host RAM, for llama.cpp's CPU layers
    pcie_bandwidth_bytes_per_s: Rate = DEFAULT_PCIE_BANDWIDTH  # host to GPU, for vLLM's offloaded weights
    kv_offload: KvOffloadOptions | None = None
    lora: LoraOptions | None = None
    speculative: SpeculativeOptions | None = None
    used_memory_bytes: Bytes = 0  # held on each GPU by other processes before the engine starts
    host: HostOs = "linux"  # the machine (planner.deploy.host): the device total, the desktop's memory and share
    # A unified-memory machine's GPU share of its memory (planner.deploy.gpu_share); None: the OS default
    unified_share: Annotated[float, Field(gt=0, le=1)] | None = None
    mig_profile: str | None = Field(default=None, max_length=40)  # for labels; the slice's memory is the request's
    stage_gpus: tuple[StageGpu, ...] = Field(default=(), max_length=64)  # mixed GPUs, one per pipeline stage
    layer_split: tuple[Positive, ...] | None = Field(default=None, max_length=64)  # decoder layers per stage

    @model_validator(mode="after")
    def _check(self) -> DeploymentOptions:
        if self.layer_split is not None and self.stage_gpus and len(self.layer_split) != len(self.stage_gpus):
            raise ValueError("deployment: the layer split needs one count per stage GPU")
        return self

    @property
    def active(self) -> bool:
        """Whether any option departs from the default plan."""
        return self != DeploymentOptions()
