"""Which GPU to buy: every catalog set-up that serves the workload, ranked, with speed, cost and the risk
of a full KV pool."""

from __future__ import annotations

from typing import Any

import streamlit as st
from pydantic import ValidationError

from model_catalog import get_model, load_gpus
from planner.advisor import (
    PRESETS,
    ContextDistribution,
    Option,
    OverflowReport,
    Ranking,
    Workload,
    overflow_for,
    rank,
    recommendation,
    validation_rows,
)
from planner.engines.base import OverheadModel
from planner.errors import PlannerError
from planner.hf_config import describe_validation_error
from planner.model import ModelSpec
from ui import binding, figures, frame, links, settings, state
from ui.common import share_and_export
from ui.guard import as_text
from ui.state import Selection

PATH = settings.ADVISOR
CUSTOM = "custom"


@st.cache_data(ttl=3600, max_entries=64, show_spinner="Ranking every set-up in the catalog…")
def _ranking(
    spec: ModelSpec, workload: Workload, gpu_ids: tuple[str, ...], _overhead: OverheadModel, overhead_key: str
) -> Ranking:
    gpus = [g for i, g in load_gpus().items() if not gpu_ids or i in gpu_ids]
    return rank(spec, workload, gpus=gpus, overhead=_overhead)


def _workload(sel: Selection) -> tuple[Workload | None, dict[str, str | list[str]]]:
    """The workload widgets (every one a declared setting); returns the workload (or None with the problem
    shown) and the page's URL parameters."""
    c1, c2, c3 = st.columns(3)
    preset = binding.choose(c1, settings.PRESET, [*PRESETS, CUSTOM], "support-chat")
    plan_at = binding.choose(c2, settings.PLAN_AT, ["p95", "mean", "max"], "p95")
    pricing = binding.segmented(c3, settings.PRICING, ["purchase", "cloud"], "purchase")
    values: dict[str, object] = {
        settings.PRESET.url: preset,
        settings.PLAN_AT.url: plan_at,
        settings.PRICING.url: pricing,
    }
    if preset == CUSTOM:
        c1, c2 = st.columns(2)
        mean = binding.number(c1, settings.CTX_MEAN, 64, settings.MAX_CONTEXT, 4000)
        p95 = binding.number(c2, settings.CTX_P95, 64, settings.MAX_CONTEXT, 12000)
        values.update({settings.CTX_MEAN.url: int(mean), settings.CTX_P95.url: int(p95)})
    else:
        chosen = PRESETS[preset]
        st.caption(
            f"**{chosen.label}**: mean {chosen.context.mean_tokens:,} tokens, 95th percentile "
            f"{chosen.context.p95_tokens:,}, cap {chosen.context.max_tokens or 0:,}; prompts of "
            f"{chosen.mean_prompt_tokens:,} and replies of {chosen.mean_output_tokens:,} tokens on average — "
            f"{chosen.justification}."
        )
    with st.expander("Targets, budget and GPUs", icon=":material/tune:"):
        c1, c2, c3 = st.columns(3)
        rps = binding.number(c1, settings.RPS, 0.0, 100_000.0, 0.0, step=1.0)
        prefix = binding.number(c2, settings.PREFIX, 0, 1_000_000, 0)
        budget = binding.number(c3, settings.BUDGET, 0, 1_000_000_000, 0, step=1000)
        c1, c2 = st.columns(2)
        ttft = binding.number(c1, settings.TTFT, 0.0, 600.0, 0.0, step=0.5)
        min_tps = binding.number(c2, settings.MIN_TPS, 0.0, 10_000.0, 10.0, step=1.0)
        gpu_filter = binding.choose_many(st, settings.GPU_FILTER, state.gpu_options(), [])
    values.update(
        {
            settings.RPS.url: float(rps),
            settings.PREFIX.url: int(prefix),
            settings.BUDGET.url: int(budget),
            settings.TTFT.url: float(ttft),
            settings.MIN_TPS.url: float(min_tps),
            settings.GPU_FILTER.url: gpu_filter,
        }
    )
    fields: dict[str, Any] = {
        "plan_at": plan_at,
        "pricing": pricing,
        "shared_prefix_tokens": int(prefix),
        "budget_usd": float(budget) or None,
        "gpu_ids": tuple(gpu_filter) or None,
        "max_time_to_first_token_s": float(ttft) or None,
        "min_tokens_per_s_per_user": float(min_tps) or None,
    }
    if rps:
        fields["requests_per_s"] = float(rps)
    else:
        fields["concurrent_conversations"] = sel.users
    params = links.page_params(PATH, values)
    try:
        if preset == CUSTOM:
            context = ContextDistribution(
                mean_tokens=int(mean), p95_tokens=int(p95), max_tokens=max(int(p95), sel.spec.max_position_embeddings)
            )
            return Workload(context=context, **fields), params
        return Workload.from_preset(preset, **fields), params
    except (ValidationError, PlannerError) as exc:
        message = describe_validation_error(exc) if isinstance(exc, ValidationError) else str(exc)
        st.error(as_text(f"Workload: {message}"), icon=":material/error:")
        return None, params


@st.cache_data(ttl=3600, max_entries=64, show_spinner=False)
def _overflow_report(option: Option, workload: Workload) -> OverflowReport:
    return overflow_for(option, workload)


def _option_link(sel: Selection, option: Option) -> str:
    """The Memory page with this option's set-up, every other setting carried over (absolute when the
    address the reader used is known)."""
    changed = sel.model_copy(
        update={
            "gpu_id": option.gpu_id,
            "gpu_count": option.gpu_count,
            "tensor_parallel": option.tensor_parallel,
            "pipeline_parallel": 1,
            "weights": option.weights,
            "kv_dtype": option.kv_dtype,
            "context_tokens": option.context_tokens,
        }
    )
    return links.share_url(st.context.url, "", links.query_string(changed))


def _options_table(sel: Selection, ranking: Ranking, limit: int = 40) -> list[dict[str, object]]:
    rows = []
    for position, o in enumerate(ranking.options[:limit], start=1):
        rows.append(
            {
                "#": position,
                "set-up": o.label,
                "GPUs": o.gpu_count,
                "conversations": round(o.concurrency, 1),
                "headroom": f"{o.headroom:+.0%}",
                "tokens/s per user": None
                if o.decode_tokens_per_s_per_user is None
                else round(o.decode_tokens_per_s_per_user),
                "tokens/s total": None if o.decode_tokens_per_s_total is None else round(o.decode_tokens_per_s_total),
                "first token (s)": None if o.prefill_seconds is None else round(o.prefill_seconds, 2),
                "purchase (USD)": None if o.purchase_usd is None else round(o.purchase_usd),
                "USD / hour": None if o.usd_per_hour is None else round(o.usd_per_hour, 2),
                "USD per conversation": None if o.usd_per_conversation is None else round(o.usd_per_conversation, 2),
                "USD per M output tokens": None
                if o.usd_per_million_output_tokens is None
                else round(o.usd_per_million_output_tokens, 3),
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
    others = binding.choose_many(st, settings.COMPARE_MODELS, choices, [], max_selections=4)
    frame.page_params(links.page_params(PATH, {settings.COMPARE_MODELS.url: others}))
    if not others:
        return []
    cost_column = "cost (USD)" if workload.pricing == "purchase" else "USD / hour"
    results = [(sel.spec.id, ranking)] + [
        (m, _ranking(get_model(m).spec, workload, workload.gpu_ids or (), overhead, overhead.model_dump_json()))
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


def render(sel: Selection) -> None:
    name = sel.spec.display_name
    st.title(f"Which GPU to buy for {name}?")
    workload, extra = _workload(sel)
    if workload is None:
        return
    overhead = sel.request().overhead
    ranking = _ranking(sel.spec, workload, workload.gpu_ids or (), overhead, overhead.model_dump_json())
    text = recommendation(ranking)
    (st.success if ranking.options else st.error)(as_text(text), icon=":material/recommend:")
    st.caption(ranking.target_note)
    for warning in ranking.warnings:
        st.warning(warning, icon=":material/warning:")
    figure = None
    if ranking.options:
        against = binding.segmented(st, settings.PARETO, ["capacity", "throughput"], "capacity")
        frame.page_params(links.page_params(PATH, {settings.PARETO.url: against}))
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


frame.run_page(render)
