"""The advisor's workload widgets (:mod:`pages.advisor`): the preset, targets, the buyer's constraints and the
running costs, each a declared setting (:mod:`ui.settings`) bound to the link (:mod:`ui.binding`).

The settings' expanders are Streamlit's lazy ones (``on_change="rerun"``, ``.open``): closed, with every setting in
them at its default, their 18 widgets are not drawn (they are recorded on a stand-in that draws nothing,
:class:`ui.deferred.Deferred`), so a slider move does not rebuild them in the browser (``make bench``: about 70 ms of
each move on the advisor page). The values are the session's either way (:func:`ui.binding.ensure`), so the link
and the ranking are the same; a link that sets one opens its expander. Whether one is open is a view state.
"""

from __future__ import annotations

from typing import Any, get_args

import streamlit as st
from pydantic import ValidationError

from planner.advisor import ENGINE_PREFERENCE, FORM_FACTORS, PRESETS, VENDORS, ContextDistribution, Workload
from planner.bounds.errors import PlannerError, describe_validation_error
from planner.core.precision import WEIGHT_FORMATS
from planner.core.sale import DEFAULT_CLOUD_TIER, CloudTier
from ui import binding, settings, state
from ui.deferred import Deferred
from ui.guard import as_text
from ui.state import Selection

CUSTOM = "custom"
SIDEBAR = "sidebar"  # the sidebar's context and users, every conversation that long
BOX_KEYS = {"targets": "targets_open", "constraints": "constraints_open", "costs": "costs_open"}
# The page's lazy expanders of text (view states, not settings): the answer's "Why, the alternatives …" and
# "What the engine does when the pool is full".
WHY_OPEN_KEY, ENGINES_OPEN_KEY = "why_open", "engines_open"
# The page's tabs below the answer (Streamlit's lazy tabs: only the open one is drawn on a run, so a slider move
# rebuilds the chart, not the table, the risk, the other models, the rejected set-ups and the assumptions). Which
# one is open is a view state; a cold link opens the chart.
TAB_KEY = "advisor_tab"
CHART_TAB, TABLE_TAB, RISK_TAB = "Chart", "Ranking table", "Average or maximum?"
MODELS_TAB, REJECTED_TAB, ASSUMPTIONS_TAB = "Other models", "Rejected set-ups", "What the figures assume"
TABS = (CHART_TAB, TABLE_TAB, RISK_TAB, MODELS_TAB, REJECTED_TAB, ASSUMPTIONS_TAB)
S = settings
BOX_DEFAULTS: dict[str, dict[str, Any]] = {
    "targets": {S.RPS.url: 0.0, S.PREFIX.url: 0, S.BUDGET.url: 0, S.TTFT.url: 0.0, S.MIN_TPS.url: 10.0,
                S.GPU_FILTER.url: []},
    "constraints": {S.ALLOW_WEIGHTS.url: [], S.ENGINES_ALLOWED.url: [], S.VENDORS_ALLOWED.url: [],
                    S.FORM_FACTORS_ALLOWED.url: [], S.UNIFIED_SHARE.url: 0.0, S.RESTRICTED.url: False,
                    S.PERSONAL.url: False},
    "costs": {S.KWH.url: 0.0, S.PUE.url: 0.0, S.LIFE.url: 0.0},
}  # fmt: skip


def _box(name: str, label: str, icon: str) -> Any:
    """A settings expander: the container when it is open or one of its settings is set, else a stand-in."""
    active = any(binding.current(k, v) != v for k, v in BOX_DEFAULTS[name].items())
    box = st.expander(label, expanded=active, icon=icon, on_change="rerun", key=BOX_KEYS[name])
    return box if active or box.open else Deferred(lambda: None)


def _preset(sel: Selection) -> tuple[str, str, str, str]:
    row = st.container(horizontal=True)  # one element a run re-renders, not a row of three columns
    preset = binding.choose(row, S.PRESET, [SIDEBAR, *PRESETS, CUSTOM], SIDEBAR)
    plan_at = binding.choose(row, S.PLAN_AT, ["p95", "mean", "max"], "p95")
    pricing = binding.segmented(row, S.PRICING, ["purchase", "cloud"], "purchase")
    # the tier box beside "Buy or rent" only for a rental; a purchase keeps it in the link, drawn nowhere (a disabled
    # box is sent with "set this value" on every run, so a slider move rebuilt it: tests/app/test_widget_reuse.py)
    tier_row = row if pricing == "cloud" else Deferred(lambda: None)
    tier = binding.choose(tier_row, S.CLOUD_TIER, list(get_args(CloudTier)), DEFAULT_CLOUD_TIER)
    if preset == SIDEBAR:
        st.caption(
            f"From the sidebar: {sel.users:,} users, every conversation {sel.context_tokens:,} tokens long (prompts "
            "of three quarters of it); pick a workload above for a distribution of lengths."
        )
    elif preset != CUSTOM:
        chosen = PRESETS[preset]
        st.caption(
            f"**{chosen.label}**: mean {chosen.context.mean_tokens:,} tokens, 95th percentile "
            f"{chosen.context.p95_tokens:,}, cap {chosen.context.max_tokens or 0:,}; prompts of "
            f"{chosen.mean_prompt_tokens:,} and replies of {chosen.mean_output_tokens:,} tokens on average — "
            f"{chosen.justification}. This preset replaces the sidebar's context of {sel.context_tokens:,} tokens."
        )
    return preset, plan_at, pricing, tier


def _targets() -> dict[str, Any]:
    box, given = _box("targets", "Targets, budget and GPUs", ":material/tune:"), BOX_DEFAULTS["targets"]
    c1, c2, c3 = box.columns(3)
    rps = binding.number(c1, S.RPS, 0.0, 100_000.0, given[S.RPS.url], step=1.0)
    prefix = binding.number(c2, S.PREFIX, 0, 1_000_000, given[S.PREFIX.url])
    budget = binding.number(c3, S.BUDGET, 0, 1_000_000_000, given[S.BUDGET.url], step=1000)
    c1, c2 = box.columns(2)
    ttft = binding.number(c1, S.TTFT, 0.0, 600.0, given[S.TTFT.url], step=0.5)
    min_tps = binding.number(c2, S.MIN_TPS, 0.0, 10_000.0, given[S.MIN_TPS.url], step=1.0)
    gpu_filter = binding.choose_many(box, S.GPU_FILTER, state.gpu_options(), given[S.GPU_FILTER.url])
    return {
        "rps": float(rps),
        "shared_prefix_tokens": int(prefix),
        "budget_usd": float(budget) or None,
        "gpu_ids": tuple(gpu_filter) or None,
        "max_time_to_first_token_s": float(ttft) or None,
        "min_tokens_per_s_per_user": float(min_tps) or None,
    }


def _constraints() -> dict[str, Any]:
    """The buyer's constraints: weight precisions, engines, vendors, how GPUs are sold, a Mac's GPU share."""
    box, given = _box("constraints", "The buyer's constraints", ":material/rule:"), BOX_DEFAULTS["constraints"]
    c1, c2 = box.columns(2)
    weights = binding.choose_many(c1, S.ALLOW_WEIGHTS, list(WEIGHT_FORMATS), given[S.ALLOW_WEIGHTS.url])
    engines = binding.choose_many(c2, S.ENGINES_ALLOWED, list(ENGINE_PREFERENCE), given[S.ENGINES_ALLOWED.url])
    c1, c2, c3 = box.columns(3)
    vendors = binding.choose_many(c1, S.VENDORS_ALLOWED, list(VENDORS), given[S.VENDORS_ALLOWED.url])
    forms = binding.choose_many(c2, S.FORM_FACTORS_ALLOWED, list(FORM_FACTORS), given[S.FORM_FACTORS_ALLOWED.url])
    share = binding.number(c3, S.UNIFIED_SHARE, 0.0, 1.0, given[S.UNIFIED_SHARE.url], step=0.05)
    c1, c2 = box.columns(2)
    restricted = binding.toggle(c1, S.RESTRICTED, given[S.RESTRICTED.url])
    personal = binding.toggle(c2, S.PERSONAL, given[S.PERSONAL.url])
    return {
        "weights": tuple(weights) or None,
        "engines": tuple(engines) or None,
        "vendors": tuple(vendors) or None,
        "form_factors": tuple(forms) or None,
        "unified_memory_share": float(share) or None,
        "include_restricted": restricted,
        "include_personal": personal,
    }


def _running_costs() -> dict[str, Any]:
    """The running-cost assumptions (0: the catalog's, shown in "What the figures assume")."""
    box, given = _box("costs", "Power and life (total cost of ownership)", ":material/bolt:"), BOX_DEFAULTS["costs"]
    c1, c2, c3 = box.columns(3)
    kwh = binding.number(c1, S.KWH, 0.0, 10.0, given[S.KWH.url], step=0.01)
    pue = binding.number(c2, S.PUE, 0.0, 5.0, given[S.PUE.url], step=0.05)
    life = binding.number(c3, S.LIFE, 0.0, 20.0, given[S.LIFE.url], step=0.5)
    if pue and pue < 1:  # facility power includes the IT power: a PUE is at least 1
        box.caption("A PUE below 1 is not possible (facility power includes the IT power): the catalog's is used.")
    return {
        "usd_per_kwh": float(kwh) or None,
        "pue": float(pue) if pue and pue >= 1 else None,
        "life_years": float(life) or None,
    }


def workload_from_widgets(sel: Selection) -> Workload | None:
    """The workload the widgets describe, or None with the problem shown (as text)."""
    preset, plan_at, pricing, tier = _preset(sel)
    if preset == CUSTOM:
        c1, c2 = st.columns(2)
        mean = int(binding.number(c1, S.CTX_MEAN, 64, S.MAX_CONTEXT, 4000))
        p95 = int(binding.number(c2, S.CTX_P95, 64, S.MAX_CONTEXT, 12000))
    fields: dict[str, Any] = {
        "plan_at": plan_at,
        "pricing": pricing,
        "cloud_tier": tier,
        **_targets(),
        **_constraints(),
        **_running_costs(),
    }
    rps = fields.pop("rps")
    fields["requests_per_s" if rps else "concurrent_conversations"] = float(rps) if rps else sel.users
    try:
        if preset == SIDEBAR:
            return Workload.fixed_length(sel.context_tokens, **fields)
        if preset == CUSTOM:
            cap = max(p95, sel.spec.max_position_embeddings)
            context = ContextDistribution(mean_tokens=mean, p95_tokens=p95, max_tokens=cap)
            return Workload(context=context, **fields)
        return Workload.from_preset(preset, **fields)
    except (ValidationError, PlannerError) as exc:
        message = describe_validation_error(exc) if isinstance(exc, ValidationError) else str(exc)
        st.error(as_text(f"Workload: {message}"), icon=":material/error:")
        return None
