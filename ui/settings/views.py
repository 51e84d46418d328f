"""The settings of the pages other than the Memory page: the context what-if, compare, the advisor and the catalog."""

from __future__ import annotations

from typing import get_args

from planner.advisor.suitability import FEW_USERS
from planner.core.precision import WEIGHT_FORMATS
from planner.core.sale import CloudTier
from ui.page_registry import ADVISOR, CATALOG, COMPARE, WHAT_IF
from ui.settings.parsing import Setting, decimal, default_or, flag, integer, one_of, show_flag, tokens, word
from ui.settings.sidebar import MAX_CONTEXT, _form_factors, _gpus, _model, _pair, _support_engines, _vendors

# -- page settings ------------------------------------------------------------------------------------------
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
    words=(("sidebar", "the sidebar's context and users"), ("custom", "your own distribution")),
)
CTX_MEAN = Setting(
    "ctx_mean",
    "ctx_mean",
    "Mean conversation length (tokens)",
    "Tokens a conversation holds on average.",
    tokens(64, MAX_CONTEXT),
    scope=ADVISOR,
)
CTX_P95 = Setting(
    "ctx_p95",
    "ctx_p95",
    "95th percentile (tokens)",
    "Nineteen conversations in twenty are at most this long.",
    tokens(64, MAX_CONTEXT),
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
    tokens(0, 1_000_000),
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
    "Purchase price, or cloud dollars per GPU-hour in the cloud tier (on-demand by default).",
    one_of(lambda: ["purchase", "cloud"]),
    show=str,
    scope=ADVISOR,
)
CLOUD_TIER = Setting(
    "cloud_tier",
    "cloud_tier",
    "Cloud tier",
    "The tier rentals are priced in, offers compared only within it: on-demand (a provider's own hourly rate), "
    "community (a marketplace of third-party hosts), spot (interruptible) or reserved (capacity booked ahead).",
    one_of(lambda: list(get_args(CloudTier))),
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
    "For a typical prompt, alone. Set: slower set-ups are left out. None: a set-up slower than 6 s (MLPerf "
    "Inference's server bound for its ~9,500-token prompts), or 6 s per 9,500 tokens of a longer prompt, is kept "
    "with a caveat that keeps the verdict from green.",
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
    _model,
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
KWH = Setting(
    "kwh",
    "kwh",
    "Electricity (USD per kWh; 0: the catalog's)",
    "Power over the life at this price; the default is the 2022 US commercial average (EIA, $0.1241).",
    decimal(0, 10),
    scope=ADVISOR,
)
PUE = Setting(
    "pue",
    "pue",
    "Data-centre PUE (0: the catalog's)",
    "Facility power / IT power for rack-mounted servers (Uptime Institute 2023 average 1.58; new sites ~1.3); "
    "0 or at least 1.",
    default_or(1, 5),
    scope=ADVISOR,
)
LIFE = Setting(
    "life",
    "life",
    "Years of use (0: 3)",
    "The purchase and its power are counted over this many years.",
    decimal(0, 20),
    scope=ADVISOR,
)
RESTRICTED = Setting(
    "restricted",
    "restricted",
    "Offer China-only parts",
    "H20, L20, H800, A800: sold in one market only.",
    flag,
    show=show_flag,
    scope=ADVISOR,
)
PERSONAL = Setting(
    "personal",
    "personal",
    "Offer desktops and laptops",
    f"Macs, DGX Spark, Strix Halo machines, and hosts that are not rack-mounted beyond {FEW_USERS} users (up to "
    f"{FEW_USERS} a workstation or an open frame is offered anyway).",
    flag,
    show=show_flag,
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
