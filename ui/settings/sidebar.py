"""The settings every page shares, drawn in the sidebar: the model, the GPUs, precisions, the engine, context and
users, the unit."""

from __future__ import annotations

from model_catalog import CatalogError, load_gpus, resolve_model_id
from planner.advisor import ENGINE_PREFERENCE, FORM_FACTORS, VENDORS
from planner.core.kv_formats import KV_FORMATS
from planner.core.precision import WEIGHT_FORMATS
from planner.engines.registry import engines, profile_names
from ui.settings.launch import LAUNCH_SETTINGS
from ui.settings.parsing import (
    MAX_SPEC_CHARS,
    MAX_TEXT_CHARS,
    TP_SIZES,
    Setting,
    decimal,
    integer,
    one_of,
    packed,
    show_tp,
    tokens,
    tp_choice,
    word,
)


def _model(text: str) -> str:
    """A catalog model id or alias in any letter case, as the catalog spells its entry (an alias opens the entry it
    is planned as: :func:`model_catalog.resolve_model_id`, the one resolution the CLI uses too).

    >>> _model("meta-llama/llama-3.1-70b-instruct"), _model("google/gemma-4-31b-it")
    ('meta-llama/Llama-3.1-70B', 'google/gemma-4-31B-it')
    """
    try:
        return resolve_model_id(text)
    except CatalogError:
        raise ValueError("not one of the offered values") from None


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
MODEL = Setting("model", "model_id", "Model", "A Hugging Face repo id from the catalog; type to search.", _model)
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
    numbers=TP_SIZES,
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
    "; ".join(
        f"{e.label} {e.fraction_flag}"
        + (" (empty: its own heuristic, which the engine section states)" if e.default_fraction is None else "")
        for e in engines()
        if e.fraction_flag
    )
    + "; or the generic estimate's share.",
    decimal(0.05, 1.0),  # as low as the nearest set-ups go when memory is already in use; vLLM 0.34's default 1.0
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
    tokens(1, MAX_CONTEXT),
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
    *LAUNCH_SETTINGS,
    CALIBRATION,
    CONTEXT,
    USERS,
    UNIT,
)
