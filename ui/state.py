"""The dashboard's settings, declared once: each name is the widget key, the URL query parameter and the
session-state key. Pure Python (no Streamlit) so it is tested without a browser.

A shared link carries every setting that differs from its default; opening it reproduces the view.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from model_catalog import CatalogModel, get_gpu, get_model, load_gpus, load_models
from planner.engine_profiles import ENGINE_NAMES, Calibrated, engine_profile
from planner.gpu import GpuSpec
from planner.model import ModelSpec
from planner.overhead import Estimate, OverheadModel, SimpleFixed, SimpleFraction
from planner.parallel import default_parallelism, parallel_problem
from planner.plan import PlanRequest
from planner.precision import KV_FORMATS, WEIGHT_FORMATS


@dataclass(frozen=True)
class Setting:
    """One piece of state: ``key`` is its widget key, URL parameter and session key."""

    key: str
    label: str
    help: str

    def bound(self) -> dict[str, str]:
        """Widget keyword arguments: the key (= URL parameter = session key), bound to the URL, with its help."""
        return {"key": self.key, "bind": "query-params", "help": self.help}


MODEL = Setting("model", "Model", "A Hugging Face repo id from the catalog; type to search.")
GPU = Setting("gpu", "GPU", "The accelerator; memory is what the device reports (nvidia-smi).")
GPUS = Setting("gpus", "GPUs", "How many GPUs of this kind.")
TP = Setting("tp", "Tensor parallel", "GPUs that split every layer; only legal splits are offered.")
PP = Setting("pp", "Pipeline parallel", "GPUs that split the layers into stages.")
WEIGHTS = Setting("weights", "Weight precision", "How the weights are stored; scales and zero points included.")
KV = Setting("kv", "KV cache dtype", "How the cached keys and values are stored.")
ENGINE = Setting("engine", "Engine / overhead profile", "How working memory and reserve are estimated.")
UTIL = Setting(
    "util",
    "Engine memory fraction",
    "vLLM gpu_memory_utilization, TensorRT-LLM kv_cache_free_gpu_mem_fraction, or the generic estimate's share; "
    "SGLang keeps its own mem_fraction_static heuristic.",
)
CALIBRATION = Setting("calib", "Calibration", "Figures measured from a pasted start-up log.")
HF = Setting(
    "hf",
    "…or import from the Hugging Face Hub",
    "A repo id (owner/name, owner/name@revision) or its https://huggingface.co/… address: the plan then uses "
    "the repository's own config.json and checkpoint sizes.",
)
CUSTOM_SPEC = Setting("spec", "Custom model", "A model described by hand, packed into the link.")
CONTEXT = Setting("context", "Context length (tokens)", "Tokens per conversation: prompt plus reply.")
USERS = Setting("users", "Target concurrent users", "Conversations you want to serve at once.")
UNIT = Setting("unit", "Memory unit", "GiB (2^30 bytes) as nvidia-smi and engines print, or GB (10^9).")
# Page settings
CURVES = Setting("curves", "Precisions to compare", "Weight precision / KV dtype pairs, one curve each.")
CURVE_GPUS = Setting("curve_gpus", "Other GPUs", "Add a curve for each of these GPUs.")
CONTIGUOUS = Setting("contiguous", "Show contiguous reservation", "Also plot engines that reserve the full length.")
COMBOS = Setting("combos", "Combinations side by side", "Two to four weight / KV pairs.")

SIDEBAR_SETTINGS = (MODEL, HF, GPU, GPUS, TP, PP, WEIGHTS, KV, ENGINE, UTIL, CONTEXT, USERS, UNIT)
# Advisor page
PRESET = Setting("preset", "Workload", "A context-length distribution with its figures stated, or your own.")
CTX_MEAN = Setting("ctx_mean", "Mean conversation length (tokens)", "Tokens a conversation holds on average.")
CTX_P95 = Setting("ctx_p95", "95th percentile (tokens)", "Nineteen conversations in twenty are at most this long.")
PLAN_AT = Setting("plan_at", "Size each conversation at", "The mean, the 95th percentile or the maximum length.")
PREFIX = Setting("prefix", "Shared system prompt (tokens)", "Stored once per replica (prefix caching).")
RPS = Setting("rps", "…or requests per second", "0: plan for the target concurrent users in the sidebar.")
PRICING = Setting("pricing", "Buy or rent", "Purchase price, or on-demand cloud dollars per GPU-hour.")
BUDGET = Setting("budget", "Budget (USD; 0: none)", "Purchase: total. Cloud: per month (730 hours).")
GPU_FILTER = Setting("gpu_filter", "Only these GPUs", "Empty: the whole catalog.")
TTFT = Setting("ttft", "Max time to first token (s; 0: none)", "For a typical prompt, alone.")
MIN_TPS = Setting("min_tps", "Min tokens/s per user (0: none)", "Reading speed is about 10 tokens per second.")
PARETO = Setting("pareto", "Chart cost against", "Capacity (conversations) or throughput (tokens/s).")
COMPARE_MODELS = Setting("compare_models", "Compare with other models", "The best set-up for each, side by side.")
ALLOW_WEIGHTS = Setting(
    "allow_weights", "Weight precisions allowed", "Empty: every precision the advisor tries (drop 4-bit here)."
)
ENGINES_ALLOWED = Setting(
    "engines", "Serving engines allowed", "Empty: the first engine of the support table that runs each set-up."
)
VENDORS_ALLOWED = Setting("vendors", "GPU vendors", "Empty: every vendor.")
FORM_FACTORS_ALLOWED = Setting(
    "form_factors",
    "Sold as",
    "card: PCIe cards one at a time; pair: NVLink pairs; baseboard: 4- or 8-GPU SXM/OAM boards in a server; "
    "machine: a Mac; rack. Empty: all.",
)
UNIFIED_SHARE = Setting(
    "unified_share",
    "Mac GPU memory share (0: the macOS default)",
    "The share of a Mac's memory the GPU may wire (macOS default about 75 %); raise it with "
    "sudo sysctl iogpu.wired_limit_mb=<MB>.",
)
PAGE_SETTINGS = (
    CURVES,
    CURVE_GPUS,
    CONTIGUOUS,
    COMBOS,
    PRESET,
    CTX_MEAN,
    CTX_P95,
    PLAN_AT,
    PREFIX,
    RPS,
    PRICING,
    BUDGET,
    GPU_FILTER,
    TTFT,
    MIN_TPS,
    PARETO,
    COMPARE_MODELS,
    ALLOW_WEIGHTS,
    ENGINES_ALLOWED,
    VENDORS_ALLOWED,
    FORM_FACTORS_ALLOWED,
    UNIFIED_SHARE,
)
ALL_KEYS = frozenset(s.key for s in SIDEBAR_SETTINGS + PAGE_SETTINGS)
# Parameters read outside widgets (imports and calibrations) join this set when they exist.
EXTRA_KEYS: frozenset[str] = frozenset({CALIBRATION.key, CUSTOM_SPEC.key})

DEFAULT_MODEL = "meta-llama/Llama-3.1-8B"
DEFAULT_GPU = "h100-sxm-80gb"
GPU_COUNT_OPTIONS = (1, 2, 4, 8, 16)
MIN_CONTEXT = 512
DEFAULT_CONTEXT = 8192
DEFAULT_USERS = 32
MAX_USERS = 100_000
UNITS = ("GiB", "GB")

ENGINE_PROFILES: dict[str, str] = {
    "vllm": "vLLM V1 (0.19): profiled activations, non-torch memory, blocks of 16 tokens",
    "sglang": "SGLang: mem_fraction_static of memory for weights + KV pool",
    "trtllm": "TensorRT-LLM: a fraction of the memory free after the engine loads",
    "llamacpp": "llama.cpp: contiguous KV for the whole context, compute buffers",
    "generic": "Generic serving-engine estimate (vLLM-like)",
    "simple": "Simple: 10 % of memory for overhead (seed text 001)",
    "simple-fixed": "Simple: 1.5 GB framework + 1 GB activations (seed text 000)",
}
ENGINES = ENGINE_NAMES
DEFAULT_ENGINE = "vllm"
DEFAULT_UTIL = 0.90


def overhead_for(engine: str, util: float = DEFAULT_UTIL, calibration: str | None = None) -> OverheadModel:
    """The overhead model behind an engine-profile name (a calibration token wins when given)."""
    if calibration:
        return Calibrated.from_token(calibration)
    if engine in ENGINES:  # SGLang keeps its own mem_fraction_static heuristic (the field's help says so)
        return engine_profile(engine, fraction=None if engine == "sglang" else util)
    if engine == "simple":
        return SimpleFraction()
    if engine == "simple-fixed":
        return SimpleFixed()
    return Estimate(gpu_memory_utilization=util)


class Selection(BaseModel, frozen=True, extra="forbid"):
    """Every shared setting, validated: what a page plans with."""

    model_id: str = DEFAULT_MODEL
    gpu_id: str = DEFAULT_GPU
    gpu_count: int = Field(default=1, ge=1)
    tensor_parallel: int = Field(default=1, ge=1)
    pipeline_parallel: int = Field(default=1, ge=1)
    weights: str = "bf16"
    kv_dtype: str = "bf16"
    engine: str = DEFAULT_ENGINE
    util: float = Field(default=DEFAULT_UTIL, gt=0, le=1)
    calibration: str | None = None
    context_tokens: int = Field(default=DEFAULT_CONTEXT, ge=1)
    users: int = Field(default=DEFAULT_USERS, ge=1)
    unit: Literal["GiB", "GB"] = "GiB"
    imported: ModelSpec | None = None  # a model imported from the Hub or described by hand
    imported_source: str | None = None
    hf: str = ""  # the Hub reference as typed (travels in the link)
    custom_spec: str | None = None  # the hand-described model's link token

    @property
    def catalog_model(self) -> CatalogModel:
        return get_model(self.model_id)

    @property
    def spec(self) -> ModelSpec:
        """The model planned: the imported one when there is one, else the catalog entry."""
        return self.imported if self.imported is not None else self.catalog_model.spec

    @property
    def model_source(self) -> str:
        """Where the architecture and parameter figures come from, for the page."""
        if self.imported is not None:
            return self.imported_source or "imported"
        entry = self.catalog_model
        return f"catalog entry; parameters checked against: {entry.reference.source}"

    @property
    def is_engine(self) -> bool:
        """An engine profile (or a calibration): plans with the engine-visible memory and max model length."""
        return self.engine in ENGINES or self.calibration is not None

    @property
    def gpu(self) -> GpuSpec:
        return get_gpu(self.gpu_id)

    def request(
        self,
        *,
        weights: str | None = None,
        kv_dtype: str | None = None,
        gpu_id: str | None = None,
        context_tokens: int | None = None,
    ) -> PlanRequest:
        """The :class:`PlanRequest` of this selection, with optional what-if overrides."""
        gpu = get_gpu(gpu_id) if gpu_id else self.gpu
        context = context_tokens or self.context_tokens
        return PlanRequest(
            model=self.spec,
            gpu=gpu,
            gpu_memory_bytes=gpu.memory_bytes_for(self.is_engine),
            gpu_count=self.gpu_count,
            tensor_parallel=self.tensor_parallel,
            pipeline_parallel=self.pipeline_parallel,
            weights=weights or self.weights,  # type: ignore[arg-type]
            kv_dtype=kv_dtype or self.kv_dtype,  # type: ignore[arg-type]
            context_tokens=context,
            max_model_len=context if self.is_engine else None,
            overhead=overhead_for(self.engine, self.util, self.calibration),
        )


# -- options offered for each setting (they depend on the model and the GPU count) ------------------------


def model_options() -> list[str]:
    return sorted(load_models(), key=str.lower)


def gpu_options() -> list[str]:
    return sorted(load_gpus())


def weight_options() -> list[str]:
    return list(WEIGHT_FORMATS)


def kv_options() -> list[str]:
    return list(KV_FORMATS)


def tp_options(spec: ModelSpec, gpu_count: int) -> list[int]:
    """Legal tensor-parallel sizes for this model on ``gpu_count`` GPUs (PP 1)."""
    return [
        tp for tp in range(1, gpu_count + 1) if gpu_count % tp == 0 and not parallel_problem(spec, tp, 1, gpu_count)
    ]


def pp_options(spec: ModelSpec, gpu_count: int, tensor_parallel: int) -> list[int]:
    return [
        pp
        for pp in range(1, gpu_count // tensor_parallel + 1)
        if not parallel_problem(spec, tensor_parallel, pp, gpu_count)
    ]


def default_tp(spec: ModelSpec, gpu_count: int) -> int:
    return default_parallelism(spec, gpu_count)[0]


def context_range(spec: ModelSpec) -> tuple[int, int]:
    """(min, max) context tokens offered: 512 to the model's maximum position."""
    return MIN_CONTEXT, max(MIN_CONTEXT * 2, spec.max_position_embeddings)


def default_context(spec: ModelSpec) -> int:
    return min(DEFAULT_CONTEXT, context_range(spec)[1])


def log_contexts(low: int, high: int, points: int = 64) -> list[int]:
    """``points`` context lengths spaced evenly on a log axis from ``low`` to ``high`` (whole tokens)."""
    if high <= low:
        return [low]
    ratio = math.log(high / low) / (points - 1)
    values = sorted({round(low * math.exp(ratio * i)) for i in range(points)})
    values[-1] = high
    return values


# -- which URL parameters were ignored -------------------------------------------------------------------


def _same(raw: str, value: object) -> bool:
    """Whether a raw URL value is what the widget ended up holding."""
    if isinstance(value, bool):
        return raw.lower() in (("true", "1") if value else ("false", "0"))
    if isinstance(value, int | float):
        try:
            number = float(raw)
        except ValueError:
            return False
        return math.isfinite(number) and number == float(value)
    if isinstance(value, list | tuple):
        return raw in {str(v) for v in value}
    return raw == str(value)


def ignored_parameters(
    initial: Mapping[str, str | list[str]], rendered: Mapping[str, object], known: frozenset[str]
) -> list[str]:
    """Names of the URL parameters the view did not use: unknown names, and known ones whose value the
    widget rejected (the widget then shows its default)."""
    ignored = []
    for name, raw in initial.items():
        if name not in known:
            ignored.append(name)
        elif name in rendered:
            values = raw if isinstance(raw, list) else [raw]
            value = rendered[name]
            if isinstance(value, list | tuple):
                bad = any(not _same(str(v), value) for v in values)  # every entry must have been kept
            else:
                bad = not any(_same(str(v), value) for v in values)
            if bad:
                ignored.append(name)
    return ignored
