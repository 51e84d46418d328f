"""Which GPU to buy: every catalog set-up that serves the workload, ranked, with speed, cost and the risk
of a full KV pool. Every widget is a declared setting (:mod:`ui.settings`), so the address bar and the share
link carry the whole workload."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from model_catalog import get_gpu, get_model, load_gpus
from planner.advisor import (
    Option,
    OverflowReport,
    Ranking,
    Workload,
    headline,
    overflow_for,
    passed_over,
    passed_over_text,
    rank,
    recommendation,
    summary_lines,
    verdict,
)
from planner.advisor.pick_lines import PICKS_HEADING, pick_lines
from planner.advisor.validation import scored
from planner.core.model import ModelSpec
from ui import binding, frame, pareto, settings, state, tables
from ui.advisor_report import advisor_report_html
from ui.advisor_rows import CLOUD_COST_COLUMN, option_link, ranking_rows, rejected_rows, report_links
from ui.advisor_settings import ENGINES_OPEN_KEY, TAB_KEY, TABS, WHY_OPEN_KEY, workload_from_widgets
from ui.common import Rows, data_grid, share_and_export
from ui.deferred import Deferred
from ui.guard import as_text
from ui.state import Selection
from ui.turns import shares_work

PATH = settings.ADVISOR
TONES = {"met": "success", "caution": "warning", "none": "error"}  # the verdict's box by its colour


# The rankings, kept as objects and shared by every session (25 visitors of one link cost one ranking): a ranking is
# frozen and no page changes it. Kept in st.cache_resource, not st.cache_data, so that a slider move pickles
# nothing (st.cache_data pickles a ranking, ~1 MB, on each miss: 11-25 ms for the 70B and Qwen3-30B-A3B, and
# unpickles it on each hit: 14-29 ms). Keyed by every input (the model, the whole workload, the GPUs asked for). A
# ranking holds 2.5-6 MiB live (tracemalloc, 8B / 70B / Qwen3-30B-A3B over the catalog), ~10 MB at most: 8 entries,
# ~80 MB at most however many distinct links arrive (before: 16 pickled, ~1-2 MB each, behind 4 live ones). Every
# set-up is planned under its own engine's profile at that engine's defaults, as `advise` does on the CLI: the
# sidebar's engine and memory fraction do not apply here (the row's Memory-page link carries the option's own).
@st.cache_resource(ttl=3600, max_entries=8, show_spinner="Ranking every set-up in the catalog…")
@shares_work
def _ranking(spec: ModelSpec, workload: Workload, gpu_ids: tuple[str, ...]) -> Ranking:
    gpus = [g for i, g in load_gpus().items() if not gpu_ids or i in gpu_ids]
    return rank(spec, workload, gpus=gpus)


@st.cache_data(ttl=3600, max_entries=64, show_spinner=False)
@shares_work
def _overflow_report(option: Option, workload: Workload, spec: ModelSpec) -> OverflowReport:
    return overflow_for(option, workload, spec)


@st.cache_data(ttl=3600, max_entries=64, show_spinner=False)
@shares_work
def _best_of(spec: ModelSpec, workload: Workload, gpu_ids: tuple[str, ...]) -> tuple[Option | None, int]:
    """A compared model's best set-up and how many serve the workload: a small pickle to read back on each run (its
    ranking, kept by :func:`_ranking`, serves the page at once when the reader switches to that model)."""
    ranking = _ranking(spec, workload, gpu_ids)
    return ranking.best, len(ranking.options)


def _compare_models(sel: Selection, workload: Workload, ranking: Ranking, where: Any) -> Rows:
    """The best set-up for each model of a short list, for the same workload: drawn in ``where`` (the open tab), or
    kept in the link unseen (a stand-in, :class:`ui.deferred.Deferred`) and made when the CSV is asked for."""
    others = binding.choose_many(where, settings.COMPARE_MODELS, _other_models(sel), [], max_selections=4)
    if not others:
        return []
    if isinstance(where, Deferred):
        return lambda: _model_rows(sel, workload, ranking, others)
    rows = _model_rows(sel, workload, ranking, others)
    data_grid(where, rows)
    return rows


def _other_models(sel: Selection) -> list[str]:
    return [m for m in state.model_options() if m != sel.model_id]


def _model_rows(sel: Selection, workload: Workload, ranking: Ranking, others: list[str]) -> list[dict[str, object]]:
    cost_column = "total cost of ownership (USD)" if workload.pricing == "purchase" else CLOUD_COST_COLUMN
    results = [(sel.spec.id, (ranking.best, len(ranking.options)))] + [
        (m, _best_of(get_model(m).spec, workload, workload.gpu_ids or ())) for m in others
    ]
    rows: list[dict[str, object]] = []
    for model_id, (best, feasible) in results:
        rows.append(
            {
                "model": model_id,
                "best set-up": best.label if best else "nothing fits",
                "conversations": best.conversations if best else None,
                "tokens/s per user": round(best.decode_tokens_per_s_per_user)
                if best and best.decode_tokens_per_s_per_user
                else None,
                cost_column: round(best.cost, 2) if best and best.cost is not None else None,
                "feasible set-ups": feasible,
            }
        )
    return rows


def _overflow(ranking: Ranking, option: Option, spec: ModelSpec) -> None:
    """Average or maximum, on the pool and per-conversation cost the planner computes; fixed slots say what a
    slot holds."""
    report = _overflow_report(option, ranking.workload, spec)
    row = st.container(horizontal=True)  # one element a run re-renders, not a row of three columns
    if report.pool_kind == "slots":
        row.metric("Slots (each its own context)", f"{report.total_slots:,}")
        row.metric("Tokens a slot holds", f"{report.slot_tokens or 0:,}")
        row.metric("Conversations that outgrow a slot", f"{report.exceed_slot_probability or 0:.1%}")
    else:
        row.metric(f"Chance the KV pool runs out at {report.conversations:,}", f"{report.probability or 0:.1%}")
        row.metric("Conversations at 1 % risk", f"{report.conversations_at_1pct:,}")
        row.metric("Conversations at 5 % risk", f"{report.conversations_at_5pct:,}")
    st.markdown(as_text(report.explanation))
    st.caption(
        f"Planned at the mean: {report.planned_at_mean:,} conversations; at the 95th percentile: "
        f"{report.planned_at_p95:,}; at the maximum: "
        + (f"{report.planned_at_max:,}" if report.planned_at_max is not None else "unbounded")
        + f". Lengths: {report.distribution}. Method: {report.method}."
    )
    box = st.expander("What the engine does when the pool is full", on_change="rerun", key=ENGINES_OPEN_KEY)
    if box.open:  # lazy, as the answer's "Why": one list, one element
        box.markdown("\n".join(f"- **{engine}**: {behaviour}" for engine, behaviour in report.engine_behaviour.items()))


def _chart(sel: Selection, ranking: Ranking) -> None:
    """The Pareto chart (:mod:`ui.pareto`); a clicked point offers a link that opens it on the Memory page."""
    against = binding.segmented(st, settings.PARETO, PARETO_AGAINST, "capacity")
    front = ranking.pareto_cost_capacity if against == "capacity" else ranking.pareto_cost_throughput
    cloud = ranking.workload.pricing == "cloud"
    cost_label = "Cloud cost (USD per hour, log scale)" if cloud else "Total cost of ownership (USD, log scale)"
    named = passed_over(ranking)  # a cheaper set-up the caption below names: a point of its own
    rows, spec = pareto.pareto_chart(ranking.options, front, against, cost_label, ranking.options[0], named)
    event = st.vega_lite_chart(
        rows, spec, width="stretch", on_select="rerun", selection_mode=pareto.PICK, key="pareto_chart"
    )
    passed = passed_over_text(ranking)  # that point, and why it is not the recommendation
    if passed:
        st.caption(as_text(passed))
    picked = [p.get("i") for p in (getattr(event, "selection", {}) or {}).get(pareto.PICK, []) or []]
    picked = [i for i in picked if isinstance(i, int) and 0 <= i < len(ranking.options)]
    if picked:
        option = ranking.options[picked[0]]
        st.info(
            f"Selected: **{as_text(option.label)}** — {option.conversations:,} conversations.",
            icon=":material/ads_click:",
        )
        st.link_button(
            "Open it on the Memory page",
            option_link(sel, option, st.context.url, ranking.workload.unified_memory_share),
            icon=":material/open_in_new:",
        )


PARETO_AGAINST = ["capacity", "throughput"]
WHY_LABEL = "Why, the alternatives, every caveat and the assumptions"
SHOWN_ROWS = 40  # the ranking's first rows on the page (every option is in the CSV)
REJECTED_OPEN_KEY = "rejected_open"  # whether the rejected table is open: a view state, not a setting


def _rejected(ranking: Ranking) -> None:
    """The count by reason and the first 500 on the page (every rejected set-up is in the CSV)."""
    counts = ranking.rejection_counts()
    reasons = ", ".join(f"{n:,} {reason.replace('-', ' ')}" for reason, n in counts.items()) or "none"
    st.markdown(f"**{len(ranking.rejected):,} set-ups rejected:** {reasons}")
    if ranking.left_out:
        st.caption(as_text("Offered only when asked for (see the buyer's constraints): " + "; ".join(ranking.left_out)))
    # Streamlit's lazy expander: the 500-row table is built and sent only when opened (closed, a collapsed grid of
    # 500 rows still cost every run its formatting and the browser its rendering).
    box = st.expander("Every rejected set-up and why", on_change="rerun", key=REJECTED_OPEN_KEY)
    if box.open:
        data_grid(box, rejected_rows(ranking.rejected[:500]))


@st.cache_data(max_entries=1, show_spinner=False)
@shares_work
def _validation_table() -> str:
    """The speed model against every public measurement, as an HTML table: the same for every workload, so built
    once."""
    return tables.html_table(
        [
            {
                "measurement": r.id,
                "engine": r.family,
                "regime": r.regime,
                "metric": r.metric,
                "measured": r.measured,
                "predicted": r.predicted,
                "error": None if r.error is None else f"{r.error:+.1%}",
                "role": r.role,
                "source": r.source,
            }
            for r in scored()
        ]
    )


def _assumptions(ranking: Ranking) -> None:
    """What the figures assume, and the speed model's table against 166 measurements (~1,700 nodes): drawn only
    while its tab is open, so a slider move neither sends nor rebuilds it."""
    st.markdown("\n".join(f"- **{key}**: {as_text(value)}" for key, value in ranking.assumptions.items()))
    st.markdown('**The speed model against public measurements** (README, "Speed")')
    st.html(_validation_table())


def _picks(ranking: Ranking) -> None:
    """The top picks (one per GPU model), each with its whole-system price, and why each beats the next."""
    lines = pick_lines(ranking)
    if len(lines) < 3:  # one pick: the recommendation above says it all
        return
    st.markdown("\n".join([f"**{PICKS_HEADING}**", *(f"- {as_text(line)}" for line in lines)]))  # one element a run


def render(sel: Selection) -> None:
    name = sel.spec.display_name
    verb = "rent" if binding.current(settings.PRICING.url, "purchase") == "cloud" else "buy"  # before its widget
    st.title(f"Which GPU to {verb} for {as_text(name)}?")
    answer = st.container()  # the answer under the title, above the workload's widgets (a phone sees it first)
    workload = workload_from_widgets(sel)
    if workload is None:  # the tabs' settings stay in the link all the same
        _keep_axis()
        binding.choose_many(Deferred(lambda: None), settings.COMPARE_MODELS, _other_models(sel), [], max_selections=4)
        return
    ranking = _ranking(sel.spec, workload, workload.gpu_ids or ())
    tone = verdict(ranking)  # green only when nothing undermines the target or the speed floor
    getattr(answer, TONES[tone])(as_text(headline(ranking)), icon=":material/recommend:")  # one sentence
    # Streamlit's lazy expanders (``on_change="rerun"``, ``.open``): a closed one's long text is neither sent nor
    # parsed by the browser on every run (a slider move); opening it reruns the page, which draws it.
    why = answer.expander(WHY_LABEL, on_change="rerun", key=WHY_OPEN_KEY)
    if why.open:
        why.markdown(as_text(recommendation(ranking)))
    answer.markdown("\n".join(f"- {as_text(line)}" for line in summary_lines(ranking)))
    st.caption(
        as_text(ranking.target_note)
        + ". Each set-up is planned under its own engine at that engine's defaults (the sidebar's engine settings "
        "apply on the Memory page), or, as its label says, with what a buyer would set where that default misses: "
        "a lower --gpu-memory-utilization where the default fraction is not free, a higher one (up to 0.95) on a "
        "datacenter GPU whose default pool misses the target, --max-num-seqs at its users raised to what its pool "
        "holds where vLLM's default would not start or runs fewer at once, a smaller --max-num-batched-tokens where "
        "a sliding-window model's default step keeps the target out; where its engine still misses, the next engine "
        "that runs it, saying why. Its link opens it there with the same engine, release, memory fraction and launch "
        "settings."
    )
    for warning in ranking.warnings:
        st.warning(as_text(warning), icon=":material/warning:")
    if ranking.options:
        _picks(ranking)
    base_url = st.context.url  # read in this run: the CSV's links are made when its button is pressed
    compared = _tabs(sel, workload, ranking, base_url)
    # Every option with its link and every rejected set-up go to the CSVs, made when a button is pressed.
    exported: dict[str, Rows] = {
        "ranking": lambda: ranking_rows(ranking, sel, base_url),
        "rejected": lambda: rejected_rows(ranking.rejected),
        **({"models": compared} if compared else {}),
    }
    gpu_names = {g: get_gpu(g).name for g in state.gpu_options()}
    share_and_export(
        sel,
        PATH,
        f"Which GPU to {verb} for {name}",
        lambda: recommendation(ranking),  # made only for a report (the advisor's own, html=, does not read it)
        [],  # the advisor's own report (html=) draws no chart
        exported,
        names=gpu_names,
        html=lambda url: advisor_report_html(ranking, name, url, report_links(ranking, sel, base_url)),
    )


def _tabs(sel: Selection, workload: Workload, ranking: Ranking, base_url: str | None) -> Rows:
    """The tabs under the answer (:data:`ui.advisor_settings.TABS`), only the open one drawn: the chart, the table,
    the risk, the other models (their rows, for the CSV), the rejected set-ups, the assumptions."""
    chart, table, risk, models, rejected, assumptions = st.tabs(TABS, on_change="rerun", key=TAB_KEY)
    if not chart.open:
        _keep_axis()
    sections: tuple[tuple[Any, Callable[[], None]], ...] = (
        (chart, lambda: _chart(sel, ranking)),
        (table, lambda: _table(sel, ranking, base_url)),
        (risk, lambda: _overflow(ranking, ranking.options[0], sel.spec)),
    )
    for tab, draw in sections:
        if tab.open and ranking.options:
            with tab:
                draw()
        elif tab.open:
            tab.caption(NOTHING_SERVES)
    if models.open:
        with models:
            st.caption("The best set-up of each model for the same workload.")
            compared = _compare_models(sel, workload, ranking, st)
    else:
        compared = _compare_models(sel, workload, ranking, Deferred(lambda: None))
    if rejected.open:
        with rejected:
            _rejected(ranking)
    if assumptions.open:
        with assumptions:
            _assumptions(ranking)
    return compared


def _keep_axis() -> None:
    """The chart's axis while the chart is not drawn: read, checked and kept in the link (a stand-in draws it
    nowhere, :class:`ui.deferred.Deferred`), as the compared models are (:func:`_compare_models`)."""
    binding.segmented(Deferred(lambda: None), settings.PARETO, PARETO_AGAINST, "capacity")


NOTHING_SERVES = "No set-up in the catalog serves this workload: the rejected set-ups say why."


def _table(sel: Selection, ranking: Ranking, base_url: str | None) -> None:
    """The ranking's first :data:`SHOWN_ROWS` rows, each with its Memory-page link (every option is in the CSV)."""
    config = {"open": st.column_config.LinkColumn("open", display_text="Memory page")}
    data_grid(st, ranking_rows(ranking, sel, base_url, limit=SHOWN_ROWS), config)


frame.run_page(render)
