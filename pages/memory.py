"""Memory: the landing page. Where every byte of each GPU goes, whether it fits, and how many conversations."""

from __future__ import annotations

import streamlit as st

from planner.alternatives import nearest_fitting
from planner.engines.registry import engine_report, engines, get_engine, launch_commands, max_model_len_allowed
from planner.errors import PlannerError
from planner.logparse import calibrate, parse_log
from planner.plan import PlanRequest, PlanResult, plan
from planner.precision import kv_format, weight_format
from planner.units import GiB, format_bytes_auto, format_tokens
from ui import figures, links, state, tables, text
from ui.common import share_and_export
from ui.state import Selection

PATH = ""  # the default page lives at the root URL
LOG_KEY = "startup_log"


def _alternatives(sel: Selection, request: PlanRequest) -> None:
    alternatives = nearest_fitting(request)
    st.subheader("Nearest set-ups that fit")
    if not alternatives:
        st.info("Nothing close fits: try a GPU with more memory.", icon=":material/info:")
    for alt in alternatives:
        result = alt.assessment.result
        changes = {
            state.GPUS.key: str(alt.request.gpu_count),
            state.TP.key: str(result.tensor_parallel),
            state.PP.key: str(result.pipeline_parallel),
            state.WEIGHTS.key: result.weights,
            state.KV.key: result.kv_dtype,
            state.CONTEXT.key: str(result.context_tokens),
        }
        st.markdown(
            f"- **{alt.change}** → {alt.assessment.conversations:,} conversations of "
            f"{text.context_label(result.context_tokens)} tokens · [open]({links.query_string(sel, **changes)})"
        )


def _engine_section(sel: Selection, request: PlanRequest, result: PlanResult) -> list[dict[str, object]]:
    """What the engine prints at start-up, the launch commands, and calibration from a pasted log."""
    report = engine_report(request, result)
    name = get_engine(report.engine).label
    st.subheader(f"What {name} {report.engine_version} will print at start-up")
    st.code("\n".join(report.lines) or "(no KV-cache lines)", language=None)
    if not report.fits:
        longest = report.estimated_max_model_len
        st.error(
            f"{name} would refuse to start with --max-model-len {report.max_model_len:,}"
            + (f": the longest that fits is about {longest:,} tokens." if longest else "."),
            icon=":material/block:",
        )
    for note in report.notes:
        st.caption(note)
    allowed = max_model_len_allowed(request, result)
    st.markdown(f"Largest `--max-model-len` this set-up allows: **{allowed:,} tokens**.")
    commands = launch_commands(request, result)
    registered = engines()
    tabs = st.tabs([engine.label for engine in registered])
    for tab, engine in zip(tabs, registered, strict=True):
        tab.code(commands[engine.name], language="bash", wrap_lines=True)
    with st.expander("Calibrate from my log", icon=":material/tune:"):
        st.caption(
            "Paste a vLLM, SGLang or llama.cpp start-up log. Headroom reads the figures it printed, compares them "
            "with its prediction, and can use the measured weights, activation peak, non-torch memory and device "
            "total for the rest of the session and in the shared link."
        )
        log = st.text_area("Start-up log", key=LOG_KEY, height=160, max_chars=200_000)
        if log.strip():
            try:
                parsed = parse_log(log)
            except PlannerError as exc:
                st.error(str(exc), icon=":material/error:")
            else:
                rows = [
                    {
                        "figure": "KV cache per GPU (GiB)",
                        "predicted": round(report.available_kv_cache_bytes_per_gpu / GiB, 2),
                        "log": parsed.kv_cache_gib,
                    },
                    {"figure": "GPU blocks", "predicted": report.gpu_blocks, "log": parsed.gpu_blocks},
                    {"figure": "KV cache tokens", "predicted": report.kv_cache_tokens, "log": parsed.kv_cache_tokens},
                    {
                        "figure": "Max concurrency",
                        "predicted": round(report.max_concurrency, 2),
                        "log": parsed.max_concurrency,
                    },
                    {
                        "figure": "Weights (GiB)",
                        "predicted": round(report.weights_bytes / GiB, 2),
                        "log": parsed.weights_gib,
                    },
                    {
                        "figure": "Activation peak (GiB)",
                        "predicted": round(report.activation_bytes / GiB, 2),
                        "log": parsed.activation_peak_gib,
                    },
                    {
                        "figure": "Non-torch (GiB)",
                        "predicted": round(report.non_torch_bytes / GiB, 2),
                        "log": parsed.non_torch_gib,
                    },
                ]
                for row in rows:
                    log_value, predicted = row["log"], row["predicted"]
                    row["difference"] = (
                        round(float(predicted) - float(log_value), 2)  # type: ignore[arg-type]
                        if isinstance(log_value, int | float)
                        else None
                    )
                st.dataframe(rows, hide_index=True, width="stretch")
                if st.button("Use the measured figures", icon=":material/check:"):
                    st.query_params[state.CALIBRATION.key] = calibrate(parsed).to_token()
                    st.rerun()
        if sel.calibration and st.button("Go back to estimates", icon=":material/undo:"):
            del st.query_params[state.CALIBRATION.key]
            st.rerun()
    return [{"line": line} for line in report.lines]


def render_memory_page(sel: Selection) -> None:
    spec = sel.spec
    model_name = spec.display_name
    request = sel.request()
    result = plan(request)
    unit = sel.unit
    st.title(f"{model_name} on {text.setup_label(result, sel.gpu)}")
    st.caption(
        f"{weight_format(result.weights).label} weights · {kv_format(result.kv_dtype).label} KV cache · "
        f"TP {result.tensor_parallel} × PP {result.pipeline_parallel}"
        + (f" · {result.replicas} replicas" if result.replicas > 1 else "")
        + f" · {text.context_label(result.context_tokens)}-token conversations · {sel.engine} profile"
    )
    verdict = text.verdict(result, model_name, sel.gpu, unit, sel.users)
    if result.fits:
        st.success(verdict, icon=":material/check_circle:")
    else:
        st.error(verdict, icon=":material/error:")
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Fits", "yes" if result.fits else "no", help="Weights, working memory and one conversation fit.")
    c2.metric(
        "KV budget",
        f"{format_tokens(result.kv_budget_tokens)} tokens",
        help="Tokens the KV cache pools hold across the deployment.",
    )
    c3.metric(
        f"Concurrent at {text.context_label(result.context_tokens)}",
        f"{result.max_concurrency:,.1f}",
        help="Sequences of the chosen context held at once (paged blocks of 16 tokens).",
    )
    c4.metric(
        "KV per token",
        format_bytes_auto(result.kv_bytes_per_token),
        help="Whole model, every attention layer, before any sliding-window cap.",
    )
    fig = figures.memory_figure(result, unit, title=f"Memory per GPU ({unit})")
    st.plotly_chart(fig, width="stretch", config={"displaylogo": False})
    rows = tables.breakdown_rows(result, unit)
    st.dataframe(rows, hide_index=True, width="stretch")
    for warning in result.warnings:
        st.warning(warning, icon=":material/warning:")
    if not result.fits:
        _alternatives(sel, request)
    engine_rows: list[dict[str, object]] = []
    if sel.is_engine:
        engine_rows = _engine_section(sel, request, result)
    with st.expander("Where the numbers come from"):
        st.markdown(
            f"- Model: {sel.model_source}.\n"
            f"- Parameters: {result.parameters_total:,} in the checkpoint, {result.parameters_served:,} loaded "
            f"for serving, {result.parameters_active:,} active per token, computed from the architecture.\n"
            f"- Weights: parameters × bits of {weight_format(result.weights).label} "
            f"({weight_format(result.weights).source}).\n"
            f"- KV per token: 2 × layers × KV heads × head dim × bytes = {result.kv_bytes_per_token:,} bytes "
            f"in {kv_format(result.kv_dtype).label} ({kv_format(result.kv_dtype).source}).\n"
            f"- GPU memory: {request.gpu_memory_bytes:,} bytes per GPU "
            + ("(the total the engine reports)." if sel.is_engine else "(as the device reports it).")
        )
    share_and_export(
        sel,
        PATH,
        f"{model_name} on {text.setup_label(result, sel.gpu)}",
        verdict,
        [fig],
        {"breakdown": rows, **({"engine": engine_rows} if engine_rows else {})},
    )


if __name__ == "__main__":
    # Streamlit's legacy pages-directory mode runs a file of pages/ directly when a server's very first
    # request is a page URL; hand over to the frame, which routes to this page through st.navigation.
    from ui.frame import run_frame

    run_frame()
