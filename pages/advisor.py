"""Which GPU to buy: every catalog set-up that serves the workload, ranked, with speed, cost and the risk
of a full KV pool."""

from __future__ import annotations

from typing import Any

import streamlit as st
from pydantic import ValidationError

from model_catalog import load_gpus
from planner.advisor import (
    ENGINE_LABELS,
    ENGINE_PREFERENCE,
    FORM_FACTORS,
    PRESETS,
    VENDORS,
    ContextDistribution,
    Option,
    OverflowReport,
    Ranking,
    Workload,
    overflow_for,
    rank,
    recommendation,
    validation_rows,
    verdict,
)
from planner.errors import PlannerError
from planner.hf_config import describe_validation_error
from planner.model import ModelSpec
from planner.overhead import OverheadModel
from planner.precision import WEIGHT_FORMATS
from ui import figures, links, state
from ui.common import share_and_export
from ui.state import Selection

PATH = "advisor"
CUSTOM = "custom"
SIDEBAR = "sidebar"  # the sidebar's context and users, every conversation that long


@st.cache_data(ttl=3600, max_entries=64, show_spinner="Ranking every set-up in the catalog…")
def _ranking(
    spec: ModelSpec, workload: Workload, gpu_ids: tuple[str, ...], _overhead: OverheadModel, overhead_key: str
) -> Ranking:
    gpus = [g for i, g in load_gpus().items() if not gpu_ids or i in gpu_ids]
    return rank(spec, workload, gpus=gpus, overhead=_overhead)


def _workload(sel: Selection) -> tuple[Workload | None, dict[str, Any]]:
    """The workload widgets (all bound to the URL); returns the workload, or None with the problem shown."""
    presets = [SIDEBAR, *PRESETS, CUSTOM]
    c1, c2, c3 = st.columns(3)
    preset = c1.selectbox(state.PRESET.label, presets, **state.PRESET.bound())
    plan_at = c2.selectbox(state.PLAN_AT.label, ["p95", "mean", "max"], **state.PLAN_AT.bound())
    pricing = (
        c3.segmented_control(
            state.PRICING.label,
            ["purchase", "cloud"],
            default="purchase",
            **state.PRICING.bound(),
        )
        or "purchase"
    )
    if preset == CUSTOM:
        c1, c2 = st.columns(2)
        mean = c1.number_input(
            state.CTX_MEAN.label,
            64,
            10_000_000,
            4000,
            **state.CTX_MEAN.bound(),
        )
        p95 = c2.number_input(
            state.CTX_P95.label,
            64,
            10_000_000,
            12000,
            **state.CTX_P95.bound(),
        )
    elif preset == SIDEBAR:
        st.caption(
            f"From the sidebar: {sel.users:,} users, every conversation {sel.context_tokens:,} tokens long (prompts "
            "of three quarters of it); pick a workload above for a distribution of lengths."
        )
    else:
        chosen = PRESETS[preset]
        st.caption(
            f"**{chosen.label}**: mean {chosen.context.mean_tokens:,} tokens, 95th percentile "
            f"{chosen.context.p95_tokens:,}, cap {chosen.context.max_tokens or 0:,}; prompts of "
            f"{chosen.mean_prompt_tokens:,} and replies of {chosen.mean_output_tokens:,} tokens on average — "
            f"{chosen.justification}. This preset replaces the sidebar's context of {sel.context_tokens:,} tokens."
        )
    with st.expander("Targets, budget and GPUs", icon=":material/tune:"):
        c1, c2, c3 = st.columns(3)
        rps = c1.number_input(state.RPS.label, 0.0, 100_000.0, 0.0, step=1.0, **state.RPS.bound())
        prefix = c2.number_input(state.PREFIX.label, 0, 1_000_000, 0, **state.PREFIX.bound())
        budget = c3.number_input(
            state.BUDGET.label,
            0,
            1_000_000_000,
            0,
            step=1000,
            **state.BUDGET.bound(),
        )
        c1, c2 = st.columns(2)
        ttft = c1.number_input(state.TTFT.label, 0.0, 600.0, 0.0, step=0.5, **state.TTFT.bound())
        min_tps = c2.number_input(
            state.MIN_TPS.label,
            0.0,
            10_000.0,
            10.0,
            step=1.0,
            **state.MIN_TPS.bound(),
        )
        gpu_filter = st.multiselect(
            state.GPU_FILTER.label,
            state.gpu_options(),
            **state.GPU_FILTER.bound(),
        )
    constraints = _constraints()
    fields: dict[str, Any] = {
        "plan_at": plan_at,
        "pricing": pricing,
        "shared_prefix_tokens": int(prefix),
        "budget_usd": float(budget) or None,
        "gpu_ids": tuple(gpu_filter) or None,
        "max_time_to_first_token_s": float(ttft) or None,
        "min_tokens_per_s_per_user": float(min_tps) or None,
        **constraints,
    }
    if rps:
        fields["requests_per_s"] = float(rps)
    else:
        fields["concurrent_conversations"] = sel.users
    extra = {k: str(v) for k, v in {"preset": preset, "plan_at": plan_at, "pricing": pricing}.items()}
    try:
        if preset == SIDEBAR:
            return Workload.fixed_length(sel.context_tokens, **fields), extra
        if preset == CUSTOM:
            context = ContextDistribution(
                mean_tokens=int(mean), p95_tokens=int(p95), max_tokens=max(int(p95), sel.spec.max_position_embeddings)
            )
            return Workload(context=context, **fields), extra
        return Workload.from_preset(preset, **fields), extra
    except (ValidationError, PlannerError) as exc:
        message = describe_validation_error(exc) if isinstance(exc, ValidationError) else str(exc)
        st.error(f"Workload: {message}", icon=":material/error:")
        return None, extra


def _constraints() -> dict[str, Any]:
    """The buyer's constraints (all bound to the URL): weight precisions, engines, vendors, how GPUs are sold,
    and a Mac's GPU memory share."""
    with st.expander("The buyer's constraints", icon=":material/rule:"):
        c1, c2 = st.columns(2)
        weights = c1.multiselect(state.ALLOW_WEIGHTS.label, list(WEIGHT_FORMATS), **state.ALLOW_WEIGHTS.bound())
        engines = c2.multiselect(state.ENGINES_ALLOWED.label, list(ENGINE_PREFERENCE), **state.ENGINES_ALLOWED.bound())
        c1, c2, c3 = st.columns(3)
        vendors = c1.multiselect(state.VENDORS_ALLOWED.label, list(VENDORS), **state.VENDORS_ALLOWED.bound())
        forms = c2.multiselect(
            state.FORM_FACTORS_ALLOWED.label, list(FORM_FACTORS), **state.FORM_FACTORS_ALLOWED.bound()
        )
        share = c3.number_input(state.UNIFIED_SHARE.label, 0.0, 1.0, 0.0, step=0.05, **state.UNIFIED_SHARE.bound())
    return {
        "weights": tuple(weights) or None,
        "engines": tuple(engines) or None,
        "vendors": tuple(vendors) or None,
        "form_factors": tuple(forms) or None,
        "unified_memory_share": float(share) or None,
    }


@st.cache_data(ttl=3600, max_entries=64, show_spinner=False)
def _overflow_report(option: Option, workload: Workload) -> OverflowReport:
    return overflow_for(option, workload)


def _option_link(sel: Selection, option: Option) -> str:
    """The Memory page with this option's set-up, every other setting carried over."""
    return "/" + links.query_string(
        sel,
        gpu=option.gpu_id,
        gpus=str(option.gpu_count),
        tp=str(option.tensor_parallel),
        pp="1",
        weights=option.weights,
        kv=option.kv_dtype,
        context=str(option.context_tokens),
    )


def _options_table(sel: Selection, ranking: Ranking, limit: int = 40) -> list[dict[str, object]]:
    rows = []
    for position, o in enumerate(ranking.options[:limit], start=1):
        rows.append(
            {
                "#": position,
                "set-up": o.label,
                "buy" if ranking.workload.pricing == "purchase" else "rent": o.purchase_unit
                if ranking.workload.pricing == "purchase"
                else f"{o.gpu_count} x {o.gpu_name}, per GPU-hour",
                "engine": ENGINE_LABELS.get(o.engine, o.engine),
                "GPUs": o.gpu_count,
                "conversations": round(o.concurrency, 1),
                "headroom": f"{o.headroom:+.0%}",
                "tokens/s per user": None
                if o.decode_tokens_per_s_per_user is None
                else round(o.decode_tokens_per_s_per_user),
                "bound": o.decode_bound or "?",
                "tokens/s total": None if o.decode_tokens_per_s_total is None else round(o.decode_tokens_per_s_total),
                "first token (s)": None if o.prefill_seconds is None else round(o.prefill_seconds, 2),
                "purchase (USD)": None if o.purchase_usd is None else round(o.purchase_usd),
                "USD / hour": None if o.usd_per_hour is None else round(o.usd_per_hour, 2),
                "USD per conversation": None if o.usd_per_conversation is None else round(o.usd_per_conversation, 2),
                "USD per M output tokens": None
                if o.usd_per_million_output_tokens is None
                else round(o.usd_per_million_output_tokens, 3),
                "quality": o.quality_caveat or "",
                "price basis": o.price_basis,
                "open": _option_link(sel, o),
            }
        )
    return rows


def _compare_models(
    sel: Selection, workload: Workload, overhead: OverheadModel, ranking: Ranking
) -> list[dict[str, object]]:
    """The best set-up for each model of a short list, for the same workload."""
    choices = [m for m in state.model_options() if m != sel.model_id]
    others = st.multiselect(
        state.COMPARE_MODELS.label,
        choices,
        max_selections=4,
        **state.COMPARE_MODELS.bound(),
    )
    if not others:
        return []
    cost_column = "cost (USD)" if workload.pricing == "purchase" else "USD / hour"
    results = [(sel.spec.id, ranking)] + [
        (m, _ranking(state.get_model(m).spec, workload, workload.gpu_ids or (), overhead, overhead.model_dump_json()))
        for m in others
    ]
    rows: list[dict[str, object]] = []
    for model_id, result in results:
        best = result.best
        rows.append(
            {
                "model": model_id,
                "best set-up": best.label if best else "nothing fits",
                "conversations": round(best.concurrency, 1) if best else None,
                "tokens/s per user": round(best.decode_tokens_per_s_per_user)
                if best and best.decode_tokens_per_s_per_user
                else None,
                cost_column: round(best.cost, 2) if best and best.cost is not None else None,
                "feasible set-ups": len(result.options),
            }
        )
    st.dataframe(rows, hide_index=True, width="stretch")
    return rows


def _overflow(ranking: Ranking, option: Option) -> None:
    report = _overflow_report(option, ranking.workload)
    st.subheader("Average or maximum?")
    c1, c2, c3 = st.columns(3)
    c1.metric(f"Chance the KV pool runs out at {report.conversations:,}", f"{report.probability:.1%}")
    c2.metric("Conversations at 1 % risk", f"{report.conversations_at_1pct:,}")
    c3.metric("Conversations at 5 % risk", f"{report.conversations_at_5pct:,}")
    st.markdown(report.explanation)
    st.caption(
        f"Planned at the mean: {report.planned_at_mean:,} conversations; at the 95th percentile: "
        f"{report.planned_at_p95:,}; at the maximum: "
        + (f"{report.planned_at_max:,}" if report.planned_at_max is not None else "unbounded")
        + f". Lengths: {report.distribution}. Method: {report.method}."
    )
    with st.expander("What the engine does when the pool is full"):
        for engine, behaviour in report.engine_behaviour.items():
            st.markdown(f"- **{engine}**: {behaviour}")


def render_advisor_page(sel: Selection) -> None:
    name = sel.spec.display_name
    st.title(f"Which GPU to buy for {name}?")
    workload, extra = _workload(sel)
    if workload is None:
        return
    overhead = sel.request().overhead
    ranking = _ranking(sel.spec, workload, workload.gpu_ids or (), overhead, overhead.model_dump_json())
    text = recommendation(ranking)
    outcome = verdict(ranking)  # green only when the target is met on hardware an engine runs, speed estimated
    show = {"met": st.success, "unverified": st.warning, "none": st.error}[outcome]
    show(text, icon=":material/recommend:")
    st.caption(ranking.target_note)
    for warning in ranking.warnings:
        st.warning(warning, icon=":material/warning:")
    figure = None
    if ranking.options:
        against = (
            st.segmented_control(
                state.PARETO.label,
                ["capacity", "throughput"],
                default="capacity",
                **state.PARETO.bound(),
            )
            or "capacity"
        )
        front = ranking.pareto_cost_capacity if against == "capacity" else ranking.pareto_cost_throughput
        cost_label = (
            "Cloud cost (USD per hour, log scale)"
            if workload.pricing == "cloud"
            else ("Purchase price of the GPUs (USD, log scale)")
        )
        figure = figures.pareto_figure(ranking.options, front, against, cost_label, chosen=ranking.options[0])
        event = st.plotly_chart(
            figure,
            width="stretch",
            on_select="rerun",
            selection_mode="points",
            key="pareto_chart",
            config={"displaylogo": False},
        )
        points = getattr(getattr(event, "selection", None), "points", None) or []
        # The topmost trace wins where points overlap (the recommended diamond over the front over the rest).
        points = sorted(points, key=lambda p: -int(p.get("curve_number", 0)))
        picked = [p.get("customdata") for p in points if isinstance(p.get("customdata"), int)]
        if picked:
            option = ranking.options[picked[0]]
            st.info(
                f"Selected: **{option.label}** — {option.concurrency:,.1f} conversations.", icon=":material/ads_click:"
            )
            st.link_button("Open it on the Memory page", _option_link(sel, option), icon=":material/open_in_new:")
        rows = _options_table(sel, ranking)
        st.dataframe(
            rows,
            hide_index=True,
            width="stretch",
            column_config={"open": st.column_config.LinkColumn("open", display_text="Memory page")},
        )
        _overflow(ranking, ranking.options[0])
    else:
        rows = []
    st.subheader("Other models for the same workload")
    compared = _compare_models(sel, workload, overhead, ranking)
    counts = ranking.rejection_counts()
    st.subheader(f"Rejected set-ups ({len(ranking.rejected):,})")
    st.markdown(", ".join(f"{n:,} {reason.replace('-', ' ')}" for reason, n in counts.items()) or "none")
    rejected = [
        {
            "GPU": r.gpu_id,
            "GPUs": r.gpu_count,
            "TP": r.tensor_parallel,
            "weights": r.weights,
            "KV": r.kv_dtype,
            "reason": r.reason,
            "detail": r.detail,
        }
        for r in ranking.rejected[:500]
    ]
    with st.expander("Every rejected set-up and why"):
        st.dataframe(rejected, hide_index=True, width="stretch")
    with st.expander("What the figures assume"):
        for key, value in ranking.assumptions.items():
            st.markdown(f"- **{key}**: {value}")
        st.markdown("**Throughput estimates against published measurements**")
        st.dataframe(
            [
                {
                    "measurement": r.label,
                    "metric": r.metric,
                    "measured": r.measured,
                    "predicted": r.predicted,
                    "error": None if r.error is None else f"{r.error:+.1%}",
                    "role": r.role,
                    "source": r.source,
                }
                for r in validation_rows()
            ],
            hide_index=True,
            width="stretch",
        )
    share_and_export(
        sel,
        PATH,
        f"Which GPU to buy for {name}",
        text,
        [figure] if figure else [],
        {"ranking": rows, "rejected": rejected, **({"models": compared} if compared else {})},
        extra,
    )


if __name__ == "__main__":
    from ui.frame import run_frame

    run_frame()
