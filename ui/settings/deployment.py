"""The Memory page's Deployment section (:mod:`planner.deploy`): partial offload, KV offload, LoRA, speculative
decoding, memory in use, MIG, another engine beside this one, mixed GPUs."""

from __future__ import annotations

from model_catalog import load_models
from planner.core.units import GB, GiB
from planner.deploy.host import HOST_LABELS, HOSTS
from planner.deploy.options import DeploymentOptions, KvOffloadOptions, LoraOptions, SpeculativeOptions
from planner.engines.registry import default_engine, get_engine
from ui.page_registry import MEMORY
from ui.settings.parsing import Setting, decimal, declared, integer, one_of, word
from ui.settings.sidebar import _gpus

# -- the Memory page's Deployment section (planner.deploy) ------------------------------------------------------
# Each setting's range is the one the planner validates its option against (planner.deploy.options, read by
# ui.settings.parsing.declared), in the setting's unit: a link can ask for nothing the planner then refuses.
NONE = "none"
_LAYERS = declared(DeploymentOptions, "gpu_layers")
_LORA_SLOTS = declared(LoraOptions, "max_loras")


def gpu_layers_choice(text: str) -> str:
    """``all`` (every layer on the GPU, llama.cpp ``-ngl 99``) or a layer count, as the select box offers them.

    >>> gpu_layers_choice("all"), gpu_layers_choice("020")
    ('all', '20')
    """
    return "all" if text.strip() == "all" else str(_LAYERS(text))


def _models_or_none() -> list[str]:
    return [NONE, *load_models()]


GPU_LAYERS = Setting(
    "ngl",
    "gpu_layers",
    "GPU layers (llama.cpp -ngl)",
    "Layers kept on the GPU, the output layer counting as one; the rest (and their KV cache) stay in host RAM. "
    "all: every layer.",
    gpu_layers_choice,
    show=str,
    scope=MEMORY,
    numbers=_LAYERS,
)
CPU_MOE = Setting(
    "cpu_moe",
    "cpu_moe_layers",
    "Experts on the CPU (--n-cpu-moe)",
    "llama.cpp keeps the routed experts of the first N layers in host RAM.",
    declared(DeploymentOptions, "cpu_moe_layers"),
    scope=MEMORY,
)
CPU_OFFLOAD = Setting(
    "cpu_offload",
    "cpu_offload_gib",
    "Weights offloaded per GPU (GiB, --cpu-offload-gb)",
    "vLLM / SGLang move this many GiB of each GPU's decoder weights to pinned host memory, read over PCIe every step.",
    declared(DeploymentOptions, "cpu_offload_bytes", GiB),
    scope=MEMORY,
)
HOST_BANDWIDTH = Setting(
    "host_bw",
    "host_bandwidth_gbs",
    "Host RAM bandwidth (GB/s)",
    "For the decode-speed bound of layers on the CPU (dual-channel DDR5-5600: 89.6).",
    declared(DeploymentOptions, "host_bandwidth_bytes_per_s", GB),
    scope=MEMORY,
)
KV_OFFLOAD = Setting(
    "kv_offload",
    "kv_offload_gib",
    "KV offload tier (GiB, --kv-offloading-size)",
    "Host memory for KV blocks, all ranks (vLLM native offloading; 0: sized by the working set below).",
    declared(KvOffloadOptions, "size_bytes", GiB),
    scope=MEMORY,
)
PREFIX_TOKENS = Setting(
    "prefix_tokens",
    "prefix_tokens",
    "Prefix kept per user (tokens)",
    "The working set of the tier: these tokens x the target users x the hit rate.",
    declared(KvOffloadOptions, "prefix_tokens"),
    scope=MEMORY,
)
HIT_RATE = Setting(
    "hit_rate",
    "hit_rate",
    "Prefix hit rate",
    "Share of users whose prefix the tier must still hold.",
    declared(KvOffloadOptions, "hit_rate"),
    scope=MEMORY,
)
MAX_LORAS = Setting(
    "loras",
    "max_loras",
    "LoRA slots (--max-loras; 0: off)",
    "Adapters served in one batch: vLLM --max-loras, SGLang --max-loras-per-batch.",
    integer(0, int(_LORA_SLOTS.high)),  # 0: no LoRA
    scope=MEMORY,
)
LORA_RANK = Setting(
    "lora_rank",
    "max_lora_rank",
    "Largest LoRA rank",
    "vLLM --max-lora-rank: every slot is sized for it.",
    declared(LoraOptions, "max_lora_rank"),
    scope=MEMORY,
)
SPEC_METHOD = Setting(
    "spec_method",
    "speculative_method",
    "Speculative decoding",
    "none, a draft model, EAGLE / EAGLE-3 / Medusa heads, or the checkpoint's MTP layers.",
    one_of(lambda: [NONE, "draft", "eagle", "eagle3", "medusa", "mtp"]),
    show=str,
    scope=MEMORY,
)
DRAFT_MODEL = Setting(
    "draft",
    "draft_model",
    "Draft model",
    "The small model proposing tokens (method draft).",
    one_of(_models_or_none),
    show=str,
    scope=MEMORY,
)
SPEC_TOKENS = Setting(
    "spec_tokens",
    "num_speculative_tokens",
    "Speculative tokens per step",
    "num_speculative_tokens.",
    declared(SpeculativeOptions, "num_speculative_tokens"),
    scope=MEMORY,
)
USED_MEMORY = Setting(
    "used_mem",
    "used_memory_gib",
    "Already in use per GPU (GiB)",
    "Held by other processes before the engine starts (paste nvidia-smi below to read it). On the Windows machine "
    "give everything in use, the desktop's included (nvidia-smi under WSL2 counts it); 0 takes the desktop's usual "
    "amount.",
    declared(DeploymentOptions, "used_memory_bytes", GiB),
    scope=MEMORY,
)
HOST = Setting(
    "host",
    "host",
    "Machine",
    "Linux (default), or Windows (WSL2, Docker Desktop): there CUDA reports the whole card, the desktop holds about "
    "1.1 GiB of it when the memory in use is not given, and vLLM holds none of the share fitted on Linux desktop "
    "cards.",
    one_of(lambda: list(HOSTS)),
    show=str,
    scope=MEMORY,
    words=tuple(HOST_LABELS.items()),
)
GPU_SHARE = Setting(
    "gpu_share",
    "unified_share",
    "GPU share of a Mac's memory (0: the OS default)",
    "A Mac wires at most iogpu.wired_limit_mb of its memory for the GPU (macOS 75 % by default; Strix Halo: the "
    "amdgpu GTT size, half). Plan a raised share here; the Memory page offers the smallest raise that fits, with "
    "its command.",
    declared(DeploymentOptions, "unified_share"),
    scope=MEMORY,
)
MIG = Setting(
    "mig",
    "mig_profile",
    "MIG slice",
    "Plan on a MIG GPU instance of the sidebar's GPU (NVIDIA's profiles).",
    word,
    show=str,
    scope=MEMORY,
)
_OTHER = get_engine(default_engine())  # the engine another instance on the GPUs is planned as (fit --colocate)
COLOCATE = Setting(
    "colocate",
    "colocate_model",
    f"Another {_OTHER.label} on the same GPUs",
    f"Started first with its own memory fraction; this engine then meets {_OTHER.label}'s free-memory check.",
    one_of(_models_or_none),
    show=str,
    scope=MEMORY,
)
COLOCATE_UTIL = Setting(
    "colocate_util",
    "colocate_util",
    "Its memory fraction",
    f"The other engine's {_OTHER.fraction_flag}.",
    decimal(0.05, 0.95),  # within the planner's (0, 1] (EngineProfile.gpu_memory_utilization): a usable share
    scope=MEMORY,
)
STAGE_GPUS = Setting(
    "stage_gpus",
    "stage_gpus",
    "More GPUs, one pipeline stage each",
    "Mixed GPUs: the sidebar's GPU is stage 0, these follow; the layer split that holds the most conversations "
    "is used.",
    one_of(_gpus),
    many=True,
    scope=MEMORY,
)
DEPLOYMENT_SETTINGS = (
    GPU_LAYERS, CPU_MOE, CPU_OFFLOAD, HOST_BANDWIDTH, KV_OFFLOAD, PREFIX_TOKENS, HIT_RATE, MAX_LORAS, LORA_RANK,
    SPEC_METHOD, DRAFT_MODEL, SPEC_TOKENS, USED_MEMORY, HOST, GPU_SHARE, MIG, COLOCATE, COLOCATE_UTIL, STAGE_GPUS,
)  # fmt: skip
