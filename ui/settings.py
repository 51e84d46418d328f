"""Every setting a view depends on, declared once (pure Python, tested without a browser).

A :class:`Setting` carries its URL name (which is also the widget key and the session key), the field of the
model it fills, its label and help, and how it is parsed from and written to the address bar. Links, the
list of known URL parameters and the widget keys are all derived from :data:`SETTINGS`; pages never spell a
key. The address bar always carries every setting of the view explicitly (never "the default"), so a link
opens the identical view even after defaults change.

Parsing is strict and bounded: ASCII digits only, a fixed number of digits, finite numbers within the
widget's range, known names; anything else is refused with a reason the page shows.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from model_catalog import load_gpus, load_models
from planner.advisor import ENGINE_PREFERENCE, FORM_FACTORS, VENDORS
from planner.core.kv_formats import KV_FORMATS
from planner.core.precision import WEIGHT_FORMATS
from planner.engines.registry import profile_names

SIDEBAR = "sidebar"  # the scope of settings every page shares
MAX_LIST_ITEMS = 16  # at most this many values for a repeated parameter
MAX_TEXT_CHARS = 200
MAX_SPEC_CHARS = 6000  # ui.custom_spec.MAX_TOKEN_CHARS: a packed model description

_DIGITS = re.compile(r"[0-9]{1,12}")
_DECIMAL = re.compile(r"[0-9]{1,12}(?:\.[0-9]{1,9})?")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~/:@-]{0,199}")
_PACKED = re.compile(r"[A-Za-z0-9._~-]+")


def integer(low: int, high: int) -> Callable[[str], int]:
    """A parser of whole numbers in ``[low, high]`` written with ASCII digits.

    >>> integer(1, 16)("4")
    4
    >>> integer(1, 16)("²")
    Traceback (most recent call last):
    ...
    ValueError: not a whole number
    """

    def parse(text: str) -> int:
        text = text.strip()
        if not _DIGITS.fullmatch(text):
            raise ValueError("not a whole number")
        value = int(text)
        if not low <= value <= high:
            raise ValueError(f"outside {low:,}–{high:,}")
        return value

    return parse


def decimal(low: float, high: float) -> Callable[[str], float]:
    """A parser of plain decimal numbers in ``[low, high]`` (no exponent, no NaN, no infinity).

    >>> decimal(0.3, 0.99)("0.95")
    0.95
    >>> decimal(0.3, 0.99)("nan")
    Traceback (most recent call last):
    ...
    ValueError: not a number
    """

    def parse(text: str) -> float:
        text = text.strip()
        if not _DECIMAL.fullmatch(text):
            raise ValueError("not a number")
        value = float(text)
        if not (math.isfinite(value) and low <= value <= high):
            raise ValueError(f"outside {low:g}–{high:g}")
        return value

    return parse


def one_of(options: Callable[[], Sequence[str]]) -> Callable[[str], str]:
    """A parser of one name among ``options()`` (called at parse time: the catalog and the engine registry).

    >>> one_of(lambda: ["GiB", "GB"])("GB")
    'GB'
    """

    def parse(text: str) -> str:
        text = text.strip()
        if text not in options():
            raise ValueError("not one of the offered values")
        return text

    return parse


def flag(text: str) -> bool:
    """``true``/``false`` (also ``1``/``0``).

    >>> flag("true"), flag("0")
    (True, False)
    """
    lowered = text.strip().lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise ValueError("not true or false")


def word(text: str) -> str:
    """A short printable token (ids, references); anything with spaces, markup or over 200 characters is refused.

    >>> word("owner/name@main")
    'owner/name@main'
    """
    text = text.strip()
    if not _WORD.fullmatch(text):
        raise ValueError("not a plain identifier")
    return text


def packed(max_chars: int) -> Callable[[str], str]:
    """A parser of a URL-safe packed token (a model description, a calibration) of at most ``max_chars``.

    >>> packed(20)("cal1~vllm~0.19.0")
    'cal1~vllm~0.19.0'
    """

    def parse(text: str) -> str:
        text = text.strip()
        if len(text) > max_chars:
            raise ValueError(f"longer than {max_chars:,} characters")
        if not _PACKED.fullmatch(text):
            raise ValueError("not a packed Headroom token")
        return text

    return parse


def tp_choice(text: str) -> int | None:
    """``auto`` (the largest legal split, resolved by the planner) or a tensor-parallel size.

    >>> tp_choice("auto") is None, tp_choice("2")
    (True, 2)
    """
    return None if text.strip() == "auto" else integer(1, 64)(text)


def show_tp(value: object) -> str:
    return "auto" if value is None else str(value)


def show_number(value: object) -> str:
    """Numbers as the address bar shows them: ``0.95``, ``8192``."""
    if isinstance(value, float):
        return f"{value:g}" if not value.is_integer() else str(int(value))
    return str(value)


def show_flag(value: object) -> str:
    return "true" if value else "false"


@dataclass(frozen=True)
class Setting:
    """One piece of a view: ``url`` is its URL parameter, widget key and session key."""

    url: str
    field: str  # the Selection / page-model field it fills
    label: str
    help: str
    parse: Callable[[str], Any]
    show: Callable[[Any], str] = show_number
    many: bool = False  # a repeated parameter (``?curves=a&curves=b``)
    scope: str = SIDEBAR  # SIDEBAR, or the path of the page it belongs to
    views: tuple[str, ...] = ()  # other widgets editing it (the context slider and box)
    optional: bool = False  # absent from the link when unset (a Hub import, a custom model, a calibration)

    def parse_values(self, raw: Sequence[str]) -> Any:
        """The value of ``raw`` (every occurrence of the parameter); raises ``ValueError`` with the reason."""
        if self.many:
            if len(raw) > MAX_LIST_ITEMS:
                raise ValueError(f"more than {MAX_LIST_ITEMS} values")
            values = [self.parse(item) for item in raw if item.strip()]
            return list(dict.fromkeys(values))  # once each, in order
        if not raw:
            raise ValueError("empty")
        return self.parse(raw[-1])

    def to_url(self, value: Any) -> str | list[str]:
        """The URL text of ``value``; an empty list is one empty value (``?combos=``), so that "none chosen" is
        said explicitly rather than left to a default."""
        if self.many:
            return [self.show(v) for v in value] or [""]
        return self.show(value)

    @property
    def widget_keys(self) -> tuple[str, ...]:
        return (self.url, *self.views)


def _models() -> list[str]:
    return list(load_models())


def _gpus() -> list[str]:
    return list(load_gpus())


def _support_engines() -> list[str]:
    return list(ENGINE_PREFERENCE)


def _vendors() -> list[str]:
    return list(VENDORS)


def _form_factors() -> list[str]:
    return list(FORM_FACTORS)


def _pair(text: str) -> str:
    """A ``weights/kv`` pair (what-if curves, compared combinations)."""
    weights, _, kv = text.strip().partition("/")
    if weights not in WEIGHT_FORMATS or kv not in KV_FORMATS:
        raise ValueError("not a weights/KV pair")
    return f"{weights}/{kv}"


MAX_USERS = 100_000
MAX_CONTEXT = 10_485_760  # the longest max_position_embeddings in the catalog (Llama 4 Scout)
MODEL = Setting(
    "model", "model_id", "Model", "A Hugging Face repo id from the catalog; type to search.", one_of(_models)
)
HF = Setting(
    "hf",
    "hub_reference",
    "…or import from the Hugging Face Hub",
    "A repo id (owner/name, owner/name@revision) or its https://huggingface.co/… address: the plan then uses the "
    "repository's own config.json and checkpoint sizes.",
    word,
    show=str,
    optional=True,
)
CUSTOM_SPEC = Setting(
    "spec",
    "custom_spec",
    "Custom model",
    "A model described by hand, packed into the link.",
    packed(MAX_SPEC_CHARS),
    show=str,
    optional=True,
)
GPU = Setting("gpu", "gpu_id", "GPU", "The accelerator; memory is what the device reports (nvidia-smi).", one_of(_gpus))
GPUS = Setting("gpus", "gpu_count", "GPUs", "How many GPUs of this kind.", integer(1, 64))
TP = Setting(
    "tp",
    "tensor_parallel",
    "TP",
    "Tensor parallel: GPUs that split every layer. auto: the largest legal split of the GPUs.",
    tp_choice,
    show=show_tp,
)
PP = Setting(
    "pp", "pipeline_parallel", "PP", "Pipeline parallel: GPUs that split the layers into stages.", integer(1, 64)
)
WEIGHTS = Setting(
    "weights",
    "weights",
    "Weight precision",
    "How the weights are stored; scales and zero points included.",
    one_of(lambda: list(WEIGHT_FORMATS)),
)
KV = Setting(
    "kv", "kv_dtype", "KV cache dtype", "How the cached keys and values are stored.", one_of(lambda: list(KV_FORMATS))
)
ENGINE = Setting(
    "engine",
    "engine",
    "Engine / overhead profile",
    "How working memory and reserve are estimated.",
    one_of(profile_names),
)
ENGINE_VERSION = Setting(
    "engine_version",
    "engine_version",
    "Engine release",
    "The release whose memory rules are planned; the number of public start-up logs behind each is shown, and a "
    "release without one is extrapolated from the engine's source.",
    word,
    show=str,
    optional=True,  # a generic profile has no release
)
UTIL = Setting(
    "util",
    "util",
    "Engine memory fraction",
    "vLLM gpu_memory_utilization, TensorRT-LLM kv_cache_free_gpu_mem_fraction, or the generic estimate's share.",
    decimal(0.3, 0.99),
    optional=True,  # a profile without a memory fraction (llama.cpp, the simple ones) leaves it out
)
CALIBRATION = Setting(
    "calib",
    "calibration",
    "Calibration",
    "Figures measured from a pasted start-up log.",
    packed(MAX_TEXT_CHARS),
    show=str,
    optional=True,
)
CONTEXT = Setting(
    "context",
    "context_tokens",
    "Context length (tokens)",
    "Tokens per conversation: prompt plus reply. The slider snaps to common lengths; type any number below it.",
    integer(1, MAX_CONTEXT),
    views=("context_pick", "context_exact"),
)
USERS = Setting(
    "users", "users", "Target concurrent users", "Conversations you want to serve at once.", integer(1, MAX_USERS)
)
UNIT = Setting(
    "unit",
    "unit",
    "Memory unit",
    "GiB (2^30 bytes) as nvidia-smi and engines print, or GB (10^9).",
    one_of(lambda: ["GiB", "GB"]),
    show=str,
)
SIDEBAR_SETTINGS = (
    MODEL,
    HF,
    CUSTOM_SPEC,
    GPU,
    GPUS,
    TP,
    PP,
    WEIGHTS,
    KV,
    ENGINE,
    ENGINE_VERSION,
    UTIL,
    CALIBRATION,
    CONTEXT,
    USERS,
    UNIT,
)

# -- page settings ------------------------------------------------------------------------------------------
WHAT_IF, COMPARE, ADVISOR, CATALOG, CUSTOM = "what_if", "compare", "advisor", "catalog", "custom"
CURVES = Setting(
    "curves", "curves", "Precisions to compare", "Weight / KV pairs, one colour each.", _pair, many=True, scope=WHAT_IF
)
CURVE_GPUS = Setting(
    "curve_gpus", "curve_gpus", "Other GPUs", "A panel for each of these GPUs.", one_of(_gpus), many=True, scope=WHAT_IF
)
CONTIGUOUS = Setting(
    "contiguous",
    "contiguous",
    "Contiguous reservation",
    "Draw engines that reserve the full length per conversation (llama.cpp slots) as dashed lines.",
    flag,
    show=show_flag,
    scope=WHAT_IF,
)
COMBOS = Setting(
    "combos", "combos", "Combinations side by side", "Two to four weight / KV pairs.", _pair, many=True, scope=COMPARE
)
PRESET = Setting(
    "preset",
    "preset",
    "Workload",
    "A context-length distribution with its figures stated, or your own.",
    word,
    show=str,
    scope=ADVISOR,
)
CTX_MEAN = Setting(
    "ctx_mean",
    "ctx_mean",
    "Mean conversation length (tokens)",
    "Tokens a conversation holds on average.",
    integer(64, MAX_CONTEXT),
    scope=ADVISOR,
)
CTX_P95 = Setting(
    "ctx_p95",
    "ctx_p95",
    "95th percentile (tokens)",
    "Nineteen conversations in twenty are at most this long.",
    integer(64, MAX_CONTEXT),
    scope=ADVISOR,
)
PLAN_AT = Setting(
    "plan_at",
    "plan_at",
    "Size each conversation at",
    "The mean, the 95th percentile or the maximum length.",
    one_of(lambda: ["p95", "mean", "max"]),
    show=str,
    scope=ADVISOR,
)
PREFIX = Setting(
    "prefix",
    "prefix",
    "Shared system prompt (tokens)",
    "Stored once per replica (prefix caching).",
    integer(0, 1_000_000),
    scope=ADVISOR,
)
RPS = Setting(
    "rps",
    "rps",
    "…or requests per second",
    "0: plan for the target concurrent users in the sidebar.",
    decimal(0, 100_000),
    scope=ADVISOR,
)
PRICING = Setting(
    "pricing",
    "pricing",
    "Buy or rent",
    "Purchase price, or on-demand cloud dollars per GPU-hour.",
    one_of(lambda: ["purchase", "cloud"]),
    show=str,
    scope=ADVISOR,
)
BUDGET = Setting(
    "budget",
    "budget",
    "Budget (USD; 0: none)",
    "Purchase: total. Cloud: per month (730 hours).",
    integer(0, 1_000_000_000),
    scope=ADVISOR,
)
GPU_FILTER = Setting(
    "gpu_filter", "gpu_filter", "Only these GPUs", "Empty: the whole catalog.", one_of(_gpus), many=True, scope=ADVISOR
)
TTFT = Setting(
    "ttft",
    "ttft",
    "Max time to first token (s; 0: none)",
    "For a typical prompt, alone.",
    decimal(0, 600),
    scope=ADVISOR,
)
MIN_TPS = Setting(
    "min_tps",
    "min_tps",
    "Min tokens/s per user (0: none)",
    "Reading speed is about 10 tokens per second.",
    decimal(0, 10_000),
    scope=ADVISOR,
)
PARETO = Setting(
    "pareto",
    "pareto",
    "Chart cost against",
    "Capacity (conversations) or throughput (tokens/s).",
    one_of(lambda: ["capacity", "throughput"]),
    show=str,
    scope=ADVISOR,
)
COMPARE_MODELS = Setting(
    "compare_models",
    "compare_models",
    "Compare with other models",
    "The best set-up for each, side by side.",
    one_of(_models),
    many=True,
    scope=ADVISOR,
)
ALLOW_WEIGHTS = Setting(
    "allow_weights",
    "allow_weights",
    "Weight precisions allowed",
    "Empty: every precision the advisor tries (drop 4-bit here).",
    one_of(lambda: list(WEIGHT_FORMATS)),
    many=True,
    scope=ADVISOR,
)
ENGINES_ALLOWED = Setting(
    "engines",
    "engines",
    "Serving engines allowed",
    "Empty: the first engine of the support table that runs each set-up.",
    one_of(_support_engines),
    many=True,
    scope=ADVISOR,
)
VENDORS_ALLOWED = Setting(
    "vendors", "vendors", "GPU vendors", "Empty: every vendor.", one_of(_vendors), many=True, scope=ADVISOR
)
FORM_FACTORS_ALLOWED = Setting(
    "form_factors",
    "form_factors",
    "Sold as",
    "card: PCIe cards one at a time; pair: NVLink pairs; baseboard: 4- or 8-GPU SXM/OAM boards in a server; "
    "machine: a Mac or a workstation; rack. Empty: all.",
    one_of(_form_factors),
    many=True,
    scope=ADVISOR,
)
UNIFIED_SHARE = Setting(
    "unified_share",
    "unified_share",
    "Mac GPU memory share (0: the macOS default)",
    "The share of a Mac's memory the GPU may wire (macOS default about 75 %); raise it with "
    "sudo sysctl iogpu.wired_limit_mb=<MB>.",
    decimal(0, 1),
    scope=ADVISOR,
)
SEARCH = Setting(
    "q",
    "search",
    "Search models and GPUs",
    "Words that every listed row contains.",
    lambda text: text.strip()[:100],
    show=str,
    scope=CATALOG,
)
# -- the Memory page's Deployment section (planner.deploy) ------------------------------------------------------
MEMORY = "memory"
PAGE_PATHS = (MEMORY, WHAT_IF, COMPARE, ADVISOR, CATALOG, CUSTOM)  # every page's URL path (app.py)
NONE = "none"
MAX_GIB = 100_000.0


def gpu_layers_choice(text: str) -> str:
    """``all`` (every layer on the GPU, llama.cpp ``-ngl 99``) or a layer count, as the select box offers them.

    >>> gpu_layers_choice("all"), gpu_layers_choice("020")
    ('all', '20')
    """
    return "all" if text.strip() == "all" else str(integer(0, 100_000)(text))


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
)
CPU_MOE = Setting(
    "cpu_moe",
    "cpu_moe_layers",
    "Experts on the CPU (--n-cpu-moe)",
    "llama.cpp keeps the routed experts of the first N layers in host RAM.",
    integer(0, 100_000),
    scope=MEMORY,
)
CPU_OFFLOAD = Setting(
    "cpu_offload",
    "cpu_offload_gib",
    "Weights offloaded per GPU (GiB, --cpu-offload-gb)",
    "vLLM / SGLang move this many GiB of each GPU's decoder weights to pinned host memory, read over PCIe every step.",
    decimal(0, MAX_GIB),
    scope=MEMORY,
)
HOST_BANDWIDTH = Setting(
    "host_bw",
    "host_bandwidth_gbs",
    "Host RAM bandwidth (GB/s)",
    "For the decode-speed bound of layers on the CPU (dual-channel DDR5-5600: 89.6).",
    decimal(1, 10_000),
    scope=MEMORY,
)
KV_OFFLOAD = Setting(
    "kv_offload",
    "kv_offload_gib",
    "KV offload tier (GiB, --kv-offloading-size)",
    "Host memory for KV blocks, all ranks (vLLM native offloading; 0: sized by the working set below).",
    decimal(0, MAX_GIB),
    scope=MEMORY,
)
PREFIX_TOKENS = Setting(
    "prefix_tokens",
    "prefix_tokens",
    "Prefix kept per user (tokens)",
    "The working set of the tier: these tokens x the target users x the hit rate.",
    integer(0, MAX_CONTEXT),
    scope=MEMORY,
)
HIT_RATE = Setting(
    "hit_rate",
    "hit_rate",
    "Prefix hit rate",
    "Share of users whose prefix the tier must still hold.",
    decimal(0, 1),
    scope=MEMORY,
)
MAX_LORAS = Setting(
    "loras",
    "max_loras",
    "LoRA slots (--max-loras; 0: off)",
    "Adapters served in one batch: vLLM --max-loras, SGLang --max-loras-per-batch.",
    integer(0, 1024),
    scope=MEMORY,
)
LORA_RANK = Setting(
    "lora_rank",
    "max_lora_rank",
    "Largest LoRA rank",
    "vLLM --max-lora-rank: every slot is sized for it.",
    integer(1, 4096),
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
    integer(1, 64),
    scope=MEMORY,
)
USED_MEMORY = Setting(
    "used_mem",
    "used_memory_gib",
    "Already in use per GPU (GiB)",
    "Held by other processes before the engine starts (paste nvidia-smi below to read it).",
    decimal(0, MAX_GIB),
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
COLOCATE = Setting(
    "colocate",
    "colocate_model",
    "Another vLLM on the same GPUs",
    "Started first with its own memory fraction; this engine then meets vLLM's free-memory check.",
    one_of(_models_or_none),
    show=str,
    scope=MEMORY,
)
COLOCATE_UTIL = Setting(
    "colocate_util",
    "colocate_util",
    "Its memory fraction",
    "The other engine's --gpu-memory-utilization.",
    decimal(0.05, 0.95),
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
    SPEC_METHOD, DRAFT_MODEL, SPEC_TOKENS, USED_MEMORY, MIG, COLOCATE, COLOCATE_UTIL, STAGE_GPUS,
)  # fmt: skip
PAGE_SETTINGS = (
    *DEPLOYMENT_SETTINGS,
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
    SEARCH,
)
SETTINGS: tuple[Setting, ...] = SIDEBAR_SETTINGS + PAGE_SETTINGS
BY_URL: dict[str, Setting] = {s.url: s for s in SETTINGS}
KNOWN_PARAMETERS = frozenset(BY_URL)
# Parameters Streamlit itself reads from a link.
STREAMLIT_PARAMETERS = frozenset({"embed", "embed_options"})


def page_settings(page: str) -> tuple[Setting, ...]:
    """The settings of one page (its path: ``what_if``, ``advisor``, …)."""
    return tuple(s for s in PAGE_SETTINGS if s.scope == page)


def params_of(settings: Sequence[Setting], values: Mapping[str, Any]) -> dict[str, str | list[str]]:
    """URL parameters of the settings present in ``values`` (keyed by URL name); an optional setting that is unset
    (``None``) is left out."""
    params: dict[str, str | list[str]] = {}
    for setting in settings:
        if setting.url not in values:
            continue
        value = values[setting.url]
        if value is None and (setting.optional or setting.many):
            continue
        params[setting.url] = setting.to_url(value)
    return params


def _check_unique() -> None:
    keys = [key for s in SETTINGS for key in s.widget_keys]
    fields = [(s.scope, s.field) for s in SETTINGS]
    if len(keys) != len(set(keys)) or len(fields) != len(set(fields)):
        raise AssertionError("ui.settings: URL names, widget keys and fields must be unique")


_check_unique()
