"""Memory: the landing page. Where every byte of each GPU goes, whether it fits, and how many conversations."""

from __future__ import annotations

import streamlit as st

from planner.alternatives import nearest_fitting
from planner.plan import plan
from planner.precision import kv_format, weight_format
from planner.units import format_bytes_auto, format_tokens
from ui import figures, links, tables, text
from ui.common import share_and_export
from ui.state import Selection

PATH = ""  # the default page lives at the root URL


def render_memory_page(sel: Selection) -> None:
    entry = sel.catalog_model
    model_name = entry.spec.display_name
    request = sel.request()
    result = plan(request)
    unit = sel.unit
    st.title(f"{model_name} on {text.setup_label(result, sel.gpu)}")
    st.caption(
        f"{weight_format(result.weights).label} weights · {kv_format(result.kv_dtype).label} KV cache · "
        f"TP {result.tensor_parallel} × PP {result.pipeline_parallel}"
        + (f" · {result.replicas} replicas" if result.replicas > 1 else "")
        + f" · {text.context_label(result.context_tokens)}-token conversations"
    )
    verdict = text.verdict(result, model_name, sel.gpu, unit, sel.users)
    (st.success if result.fits else st.error)(
        verdict, icon=":material/check_circle:" if result.fits else ":material/error:"
    )
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
        alternatives = nearest_fitting(request)
        st.subheader("Nearest set-ups that fit")
        if not alternatives:
            st.info("Nothing close fits: try a larger GPU.")
        for alt in alternatives:
            changes = {
                "gpus": str(alt.request.gpu_count),
                "tp": str(alt.result.tensor_parallel),
                "pp": str(alt.result.pipeline_parallel),
                "weights": alt.result.weights,
                "kv": alt.result.kv_dtype,
                "context": str(alt.result.context_tokens),
            }
            url = links.query_string(sel, **changes)
            st.markdown(
                f"- **{alt.change}** → {alt.result.max_concurrency:,.1f} conversations of "
                f"{text.context_label(alt.result.context_tokens)} tokens · [open]({url})"
            )
    with st.expander("Where the numbers come from"):
        st.markdown(
            f"- Parameters: {result.parameters_total:,} in the checkpoint, {result.parameters_served:,} loaded "
            f"for serving, {result.parameters_active:,} active per token (computed from the architecture; "
            f"source: {entry.reference.source}).\n"
            f"- Weights: parameters × bits of {weight_format(result.weights).label} "
            f"({weight_format(result.weights).source}).\n"
            f"- KV per token: 2 × layers × KV heads × head dim × bytes = {result.kv_bytes_per_token:,} bytes "
            f"in {kv_format(result.kv_dtype).label}.\n"
            f"- GPU memory: {sel.gpu.memory_bytes:,} bytes as the device reports it."
        )
    share_and_export(
        sel, PATH, f"{model_name} on {text.setup_label(result, sel.gpu)}", verdict, [fig], {"breakdown": rows}
    )


if __name__ == "__main__":
    # Streamlit's legacy pages-directory mode runs a file of pages/ directly when a server's very first
    # request is a page URL; hand over to the frame, which routes to this page through st.navigation.
    from ui.frame import run_frame

    run_frame()
