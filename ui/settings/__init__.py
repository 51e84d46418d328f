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

from collections.abc import Mapping, Sequence
from typing import Any

from ui.page_registry import ADVISOR as ADVISOR
from ui.page_registry import CATALOG as CATALOG
from ui.page_registry import COMPARE as COMPARE
from ui.page_registry import CUSTOM as CUSTOM
from ui.page_registry import MEMORY as MEMORY
from ui.page_registry import PAGE_PATHS as PAGE_PATHS
from ui.page_registry import WHAT_IF as WHAT_IF
from ui.settings.deployment import (
    COLOCATE as COLOCATE,
)
from ui.settings.deployment import (
    COLOCATE_UTIL as COLOCATE_UTIL,
)
from ui.settings.deployment import (
    CPU_MOE as CPU_MOE,
)
from ui.settings.deployment import (
    CPU_OFFLOAD as CPU_OFFLOAD,
)
from ui.settings.deployment import (
    DEPLOYMENT_SETTINGS as DEPLOYMENT_SETTINGS,
)
from ui.settings.deployment import (
    DRAFT_MODEL as DRAFT_MODEL,
)
from ui.settings.deployment import (
    GPU_LAYERS as GPU_LAYERS,
)
from ui.settings.deployment import (
    GPU_SHARE as GPU_SHARE,
)
from ui.settings.deployment import (
    HIT_RATE as HIT_RATE,
)
from ui.settings.deployment import (
    HOST as HOST,
)
from ui.settings.deployment import (
    HOST_BANDWIDTH as HOST_BANDWIDTH,
)
from ui.settings.deployment import (
    KV_OFFLOAD as KV_OFFLOAD,
)
from ui.settings.deployment import (
    LORA_RANK as LORA_RANK,
)
from ui.settings.deployment import (
    MAX_LORAS as MAX_LORAS,
)
from ui.settings.deployment import (
    MIG as MIG,
)
from ui.settings.deployment import (
    NONE as NONE,
)
from ui.settings.deployment import (
    PREFIX_TOKENS as PREFIX_TOKENS,
)
from ui.settings.deployment import (
    SPEC_METHOD as SPEC_METHOD,
)
from ui.settings.deployment import (
    SPEC_TOKENS as SPEC_TOKENS,
)
from ui.settings.deployment import (
    STAGE_GPUS as STAGE_GPUS,
)
from ui.settings.deployment import (
    USED_MEMORY as USED_MEMORY,
)
from ui.settings.deployment import (
    gpu_layers_choice as gpu_layers_choice,
)
from ui.settings.launch import LAUNCH_BY_NAME as LAUNCH_BY_NAME
from ui.settings.launch import LAUNCH_SETTINGS as LAUNCH_SETTINGS
from ui.settings.parsing import (
    MAX_LIST_ITEMS as MAX_LIST_ITEMS,
)
from ui.settings.parsing import (
    MAX_SPEC_CHARS as MAX_SPEC_CHARS,
)
from ui.settings.parsing import (
    MAX_TEXT_CHARS as MAX_TEXT_CHARS,
)
from ui.settings.parsing import (
    SIDEBAR as SIDEBAR,
)
from ui.settings.parsing import (
    Setting as Setting,
)
from ui.settings.parsing import (
    decimal as decimal,
)
from ui.settings.parsing import (
    flag as flag,
)
from ui.settings.parsing import (
    integer as integer,
)
from ui.settings.parsing import (
    one_of as one_of,
)
from ui.settings.parsing import (
    packed as packed,
)
from ui.settings.parsing import (
    show_flag as show_flag,
)
from ui.settings.parsing import (
    show_number as show_number,
)
from ui.settings.parsing import (
    show_tp as show_tp,
)
from ui.settings.parsing import (
    tp_choice as tp_choice,
)
from ui.settings.parsing import (
    word as word,
)
from ui.settings.sidebar import (
    CALIBRATION as CALIBRATION,
)
from ui.settings.sidebar import (
    CONTEXT as CONTEXT,
)
from ui.settings.sidebar import (
    CUSTOM_SPEC as CUSTOM_SPEC,
)
from ui.settings.sidebar import (
    ENGINE as ENGINE,
)
from ui.settings.sidebar import (
    ENGINE_VERSION as ENGINE_VERSION,
)
from ui.settings.sidebar import (
    GPU as GPU,
)
from ui.settings.sidebar import (
    GPUS as GPUS,
)
from ui.settings.sidebar import (
    HF as HF,
)
from ui.settings.sidebar import (
    KV as KV,
)
from ui.settings.sidebar import (
    MAX_CONTEXT as MAX_CONTEXT,
)
from ui.settings.sidebar import (
    MAX_USERS as MAX_USERS,
)
from ui.settings.sidebar import (
    MODEL as MODEL,
)
from ui.settings.sidebar import (
    PP as PP,
)
from ui.settings.sidebar import (
    SIDEBAR_SETTINGS as SIDEBAR_SETTINGS,
)
from ui.settings.sidebar import (
    TP as TP,
)
from ui.settings.sidebar import (
    UNIT as UNIT,
)
from ui.settings.sidebar import (
    USERS as USERS,
)
from ui.settings.sidebar import (
    UTIL as UTIL,
)
from ui.settings.sidebar import (
    WEIGHTS as WEIGHTS,
)
from ui.settings.views import (
    ALLOW_WEIGHTS as ALLOW_WEIGHTS,
)
from ui.settings.views import (
    BUDGET as BUDGET,
)
from ui.settings.views import (
    CLOUD_TIER as CLOUD_TIER,
)
from ui.settings.views import (
    COMBOS as COMBOS,
)
from ui.settings.views import (
    COMPARE_MODELS as COMPARE_MODELS,
)
from ui.settings.views import (
    CONTIGUOUS as CONTIGUOUS,
)
from ui.settings.views import (
    CTX_MEAN as CTX_MEAN,
)
from ui.settings.views import (
    CTX_P95 as CTX_P95,
)
from ui.settings.views import (
    CURVE_GPUS as CURVE_GPUS,
)
from ui.settings.views import (
    CURVES as CURVES,
)
from ui.settings.views import (
    ENGINES_ALLOWED as ENGINES_ALLOWED,
)
from ui.settings.views import (
    FORM_FACTORS_ALLOWED as FORM_FACTORS_ALLOWED,
)
from ui.settings.views import (
    GPU_FILTER as GPU_FILTER,
)
from ui.settings.views import KWH as KWH
from ui.settings.views import LIFE as LIFE
from ui.settings.views import (
    MIN_TPS as MIN_TPS,
)
from ui.settings.views import (
    PARETO as PARETO,
)
from ui.settings.views import PERSONAL as PERSONAL
from ui.settings.views import (
    PLAN_AT as PLAN_AT,
)
from ui.settings.views import (
    PREFIX as PREFIX,
)
from ui.settings.views import (
    PRESET as PRESET,
)
from ui.settings.views import (
    PRICING as PRICING,
)
from ui.settings.views import PUE as PUE
from ui.settings.views import RESTRICTED as RESTRICTED
from ui.settings.views import (
    RPS as RPS,
)
from ui.settings.views import (
    SEARCH as SEARCH,
)
from ui.settings.views import (
    TTFT as TTFT,
)
from ui.settings.views import (
    UNIFIED_SHARE as UNIFIED_SHARE,
)
from ui.settings.views import (
    VENDORS_ALLOWED as VENDORS_ALLOWED,
)

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
    CLOUD_TIER,
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
    KWH,
    PUE,
    LIFE,
    RESTRICTED,
    PERSONAL,
    SEARCH,
)
SETTINGS: tuple[Setting, ...] = SIDEBAR_SETTINGS + PAGE_SETTINGS
BY_URL: dict[str, Setting] = {s.url: s for s in SETTINGS}
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
