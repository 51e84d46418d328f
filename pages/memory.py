"""Memory: the landing page. Where every byte of each GPU goes, whether it fits, and how many conversations."""

from __future__ import annotations

from functools import partial

import streamlit as st

from planner.assessment.assess import Assessment, VerdictState
from planner.assessment.search import current_fraction
from planner.assessment.words import plural, refusal, replica_word, split_label
from planner.bounds.errors import PlannerError
from planner.core.kv_formats import kv_format
from planner.core.precision import weight_format
from planner.core.units import format_tokens
from planner.deploy.host import windows_hint
from planner.engines.base import EngineReport
from planner.engines.registry import get_engine, profile_label
from planner.sources.logs import calibrate, parse_log
from ui import (
    answers,
    binding,
    deployment,
    exports,
    first_paint,
    frame,
    link_changes,
    links,
    memory_chart,
    memory_svg,
    refusals,
    settings,
    tables,
    text,
)
from ui.common import data_grid, share_and_export
from ui.compare_charts import with_data
from ui.guard import as_text
from ui.memory_views import CALIBRATE_OPEN_KEY, CHART_LAYERS_KEY, COMMANDS_OPEN_KEY, SOURCES_OPEN_KEY
from ui.report import StaticSvg
from ui.state import Selection

PATH = ""  # the default page lives at the root URL
LOG_KEY = "startup_log"  # a pasted log: not a setting (its result travels as `calib`)
ALERTS = {"success": st.success, "warning": st.warning, "error": st.error}
ICONS = {"success": ":material/check_circle:", "warning": ":material/warning:", "error": ":material/error:"}


def _alternatives(sel: Selection, answer: answers.MemoryAnswer, page: dict[str, str | list[str]]) -> None:
    """The nearest set-ups that fit (or that meet the target, when it is missed), each a link."""
    goal = answer.assessment.state is VerdictState.MISSES_TARGET
    st.subheader("Nearest set-ups that meet the target" if goal else "Nearest set-ups that fit")
    if not answer.nearest:
        st.info(
            "Nothing close does — not a launch setting, another memory fraction, more GPUs (up to 64), a smaller "
            "format or a shorter context: try a GPU with more memory.",
            icon=":material/info:",
        )
    for alt in answer.nearest:
        result = alt.assessment.result
        changes: dict[str, str | list[str]] = {
            settings.GPUS.url: str(alt.request.gpu_count),
            settings.TP.url: settings.show_tp(alt.request.tensor_parallel),
            settings.PP.url: str(alt.request.pipeline_parallel),
            settings.WEIGHTS.url: result.weights,
            settings.KV.url: result.kv_dtype,
            settings.CONTEXT.url: str(result.context_tokens),
        }
        fraction = current_fraction(alt.request)
        if fraction is not None and fraction != current_fraction(answer.assessment.request):
            changes[settings.UTIL.url] = f"{fraction:g}"  # the memory-fraction lever
        changes.update(link_changes.launch_changes(answer.assessment.request, alt.request))  # the launch-setting levers
        changes.update(link_changes.share_change(answer.assessment.request, alt.request))  # a Mac's GPU share
        link = links.query_string(sel, {**page, **changes})
        st.markdown(
            f"- **{alt.change}** → {plural(alt.assessment.conversations, 'conversation')} of "
            f"{text.context_label(result.context_tokens)} tokens · [open]({link})"
        )


def _calibration(sel: Selection, report: EngineReport) -> None:
    """Drawn while open, and whenever a log is pasted or a calibration is in use even if closed: a widget a run does
    not draw loses its state, and the pasted log (with its comparison) must not be dropped by closing the box."""
    held = bool(st.session_state.get(LOG_KEY)) or bool(sel.calibration)
    box = st.expander("Calibrate from my log", icon=":material/tune:", on_change="rerun", key=CALIBRATE_OPEN_KEY)
    if not (held or box.open):
        return
    with box:
        st.caption(
            "Paste a vLLM, SGLang or llama.cpp start-up log. Headroom reads the figures it printed, compares them "
            "with its prediction, and can use the measured weights, activation peak, non-torch memory and device "
            "total for the rest of the session and in the shared link."
        )
        log = st.text_area("Start-up log", key=LOG_KEY, height=160, max_chars=200_000)
        if log.strip():
            try:  # the calibration is made (and any absurd figure named) before it is offered
                parsed = parse_log(log)
                rows, token = tables.log_comparison_rows(report, parsed), calibrate(parsed).to_token()
            except PlannerError as exc:
                st.error(as_text(str(exc)), icon=":material/error:")
            else:
                data_grid(st, rows)
                hint = windows_hint(sel.gpu, parsed.total_memory_gib, report.total_memory_bytes)
                if hint is not None:
                    st.info(as_text(hint), icon=":material/desktop_windows:")
                if st.button("Use the measured figures", icon=":material/check:"):
                    binding.set_value(settings.CALIBRATION, token)
                    st.rerun()
        if sel.calibration and st.button("Go back to estimates", icon=":material/undo:"):
            binding.set_value(settings.CALIBRATION, None)
            st.rerun()


def _engine_section(sel: Selection, answer: answers.MemoryAnswer) -> None:
    """What the engine prints at start-up, the launch commands, and calibration from a pasted log."""
    report, allowed, commands = answer.assessment.report, answer.max_model_len, answer.commands
    assert report is not None and allowed is not None and commands is not None
    name = get_engine(report.engine).label
    st.subheader(as_text(f"What {name} {report.engine_version} will print at start-up"))
    st.html(tables.preformatted(report.lines or ["(no KV-cache lines)"]))  # monospace, no highlighter to load
    if report.failure:
        st.error(as_text(f"{name} would stop with: {report.failure}"), icon=":material/block:")
    for note in report.notes:
        st.caption(as_text(note))
    if answer.accuracy is not None:
        st.caption(as_text(f"How close: {answer.accuracy.sentence}"))
    elif answer.unchecked is not None:
        st.caption(as_text(f"How close: {answer.unchecked}"))
    words = get_engine(report.engine).context_limit_words()
    if allowed == 0 and report.failure is not None:
        st.markdown(f"No {words} starts this set-up: {name} would refuse to start, {refusal(report)}")
    else:
        st.markdown(f"Largest {words} this set-up allows: **{allowed:,} tokens**.")
    _launch_commands(commands)
    _calibration(sel, report)


def _launch_commands(commands: dict[str, str]) -> None:
    """One tab per registered engine. Streamlit's lazy popover (``on_change="rerun"``, ``.open``): its tabs and code
    blocks (and their highlighter, 1.5 MB of script) are made only while it is open, so a run (a slider move)
    neither sends nor re-renders them, and a cold link's first paint does not load them (make bench)."""
    box = st.popover("Launch commands", icon=":material/terminal:", on_change="rerun", key=COMMANDS_OPEN_KEY)
    if not box.open:
        return
    names = list(commands)  # the set-up's own engine first (planner.engines.launch.launch_commands)
    tabs = box.tabs([get_engine(name).label for name in names])
    for tab, name in zip(tabs, names, strict=True):
        tab.code(commands[name], language="bash", wrap_lines=True)


def _sources(sel: Selection, a: Assessment) -> None:
    """Where each figure comes from: a lazy expander (``on_change="rerun"``, ``.open``), drawn only while open."""
    box = st.expander("Where the numbers come from", on_change="rerun", key=SOURCES_OPEN_KEY)
    if not box.open:
        return
    result, request = a.result, a.request
    box.markdown(
        f"- Model: {as_text(sel.model_source)}.\n"
        f"- Parameters: {result.parameters_total:,} in the checkpoint, {result.parameters_served:,} loaded "
        f"for serving, {result.parameters_active:,} active per token, computed from the architecture.\n"
        f"- Weights: parameters × bits of {weight_format(result.weights).label} "
        f"({weight_format(result.weights).source}).\n"
        f"- KV per token: 2 × layers × KV heads × head dim × bytes = {result.kv_bytes_per_token:,} bytes "
        f"in {kv_format(result.kv_dtype).label} ({kv_format(result.kv_dtype).source}).\n"
        f"- GPU memory: {request.gpu_memory_bytes:,} bytes per GPU "
        f"({text.memory_source(sel.gpu, sel.is_engine, text.planned_share(request))})."
    )


def _metrics(sel: Selection, a: Assessment) -> None:
    """The headline figures (the same the HTML report leads with), in one HTML element
    (:func:`ui.tables.figures_html`: no metric script to fetch before the chart on a cold link)."""
    one = replica_word(a.request, a.replicas)
    per_replica = f" ({format_tokens(a.kv_budget_tokens_per_replica)} per {one})" if a.replicas > 1 else ""
    helps = (
        "Weights, working memory and one conversation fit.",
        f"Tokens the KV cache pools hold across the deployment{per_replica}.",
        f"Whole conversations of the chosen context held at once, every {one} counted.",
        "Whole model, every attention layer, before any sliding-window cap.",
    )
    figures = exports.headline_figures(a, sel.unit)
    st.html(
        tables.figures_html([(label, value, meaning) for (label, value), meaning in zip(figures, helps, strict=True)])
    )


def _chart(a: Assessment, unit: str) -> None:
    """A Vega-Lite chart (:mod:`ui.memory_chart`) whose spec is the same from run to run, so a slider move sends new
    rows that the browser draws in place (as the what-if's and Compare's: ``pages/what_if.py``). Its optional layers
    (mixed GPUs, a shortfall) are drawn from the first view that needs them and kept for the session: a cold link
    that fits draws none (~25 ms of the browser's main thread before the chart), and a slider move sends a new
    spec at most once a layer."""
    kept = st.session_state.get(CHART_LAYERS_KEY, frozenset())
    data, spec = memory_chart.memory_chart(a.allocated, unit, title=text.chart_title(a, unit), kept=kept)
    st.session_state[CHART_LAYERS_KEY] = kept | memory_chart.layers_needed(data)
    st.vega_lite_chart(None, with_data(spec, data), width="stretch", key="memory_chart")


def _report_figures(a: Assessment, unit: str) -> list[StaticSvg]:
    """The HTML report's figure of the same content, drawn as SVG (a forwarded report stays small and reads
    offline), made when its button is pressed."""
    return [memory_svg.memory_svg(a.allocated, unit, title=text.chart_title(a, unit))]


def render(sel: Selection) -> None:
    # The answer (title, verdict, figures, chart) comes first on the page but is filled once the Deployment
    # section below it has given its settings: on a cold link the chart is then requested before the section's
    # widgets, whose scripts the browser would otherwise fetch first.
    head = st.container()
    box, options, page = deployment.section(sel, closed_drawn=not first_paint.answer_only())
    try:
        answer = answers.memory(sel, options)
    except PlannerError as exc:  # the engine refuses the set-up: say so, and offer the engines that run it
        refusals.refused(sel, str(exc), answers.engines_running(sel, options), page)
        return
    a = answer.assessment
    result, request, unit = a.result, a.request, sel.unit
    model_name = sel.spec.display_name
    head.title(as_text(f"{model_name} on {text.setup_label(request)}"))
    head.caption(
        f"{weight_format(result.weights).label} weights · {kv_format(result.kv_dtype).label} KV cache · "
        f"{split_label(request, result)} · {text.context_label(result.context_tokens)}-token conversations · "
        + (f"{a.engine_label} {a.report.engine_version}" if a.report else profile_label(sel.engine))
    )
    deployment.results(box, a)
    verdict = a.sentence(unit)
    only = first_paint.answer_only()  # a cold link: the answer, the rest once the chart is drawn
    with head:
        ALERTS[a.tone](as_text(verdict), icon=ICONS[a.tone])
        figures_slot = st.container()  # in both runs: the chart keeps its place, so the browser keeps it drawn
        _chart(a, unit)
    for warning in result.warnings:
        st.warning(as_text(warning), icon=":material/warning:")
    if only:
        frame.page_params(page)  # the address bar as whole as the whole page writes it
        first_paint.when_drawn()
        return
    with figures_slot:
        _metrics(sel, a)
    with head:
        st.html(tables.html_table(tables.breakdown_rows(a.allocated, unit)))  # no data grid before the chart
    if a.state is not VerdictState.MEETS_TARGET:
        _alternatives(sel, answer, page)
    if a.report is not None:
        _engine_section(sel, answer)
    _sources(sel, a)
    named = deployment.changed(page)  # the deployment settings a report and a CSV row name
    share_and_export(
        sel,
        PATH,
        f"{model_name} on {text.setup_label(request)}",
        verdict,
        partial(_report_figures, a, unit),
        {
            "breakdown": exports.breakdown_csv(sel, a, named),
            **({"engine": exports.engine_csv(sel, a, named)} if a.report else {}),
        },
        page,
        assessment=a,
        worded=named,
        sections=answers.report_sections(answer, unit),
    )


frame.run_page(render)
