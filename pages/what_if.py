"""Context what-if: how many conversations at each context length, per precision and per GPU."""

from __future__ import annotations

import streamlit as st

from planner.errors import PlannerError
from planner.plan import concurrency_curve, plan
from ui import figures, state, text
from ui.common import share_and_export
from ui.state import Selection

PATH = "what_if"
CURVE_OPTIONS = [f"{w}/{kv}" for w in ("bf16", "fp8", "int4-awq", "q4_k_m") for kv in ("bf16", "fp8")]


def _curve_choices(sel: Selection) -> list[str]:
    current = f"{sel.weights}/{sel.kv_dtype}"
    return [current, *[c for c in CURVE_OPTIONS if c != current]]


def render_what_if_page(sel: Selection) -> None:
    name = sel.spec.display_name
    st.title(f"What if conversations were longer? {name}")
    low, high = state.context_range(sel.spec)
    contexts = state.log_contexts(low, high)
    if sel.context_tokens not in contexts:
        contexts = sorted({*contexts, sel.context_tokens})
    choices = _curve_choices(sel)
    c1, c2 = st.columns([3, 2])
    picked = c1.multiselect(
        state.CURVES.label,
        choices,
        default=[choices[0]],
        **state.CURVES.bound(),
        max_selections=6,
    )
    others = c2.multiselect(
        state.CURVE_GPUS.label,
        [g for g in state.gpu_options() if g != sel.gpu_id],
        **state.CURVE_GPUS.bound(),
        max_selections=4,
    )
    contiguous = st.toggle(state.CONTIGUOUS.label, **state.CONTIGUOUS.bound())
    curves: list[figures.Curve] = []
    skipped: list[str] = []
    for gpu_id in [sel.gpu_id, *others]:
        for pair in picked or [choices[0]]:
            weights, kv = pair.split("/")
            label = pair if gpu_id == sel.gpu_id else f"{pair} · {gpu_id}"
            try:
                curves.append(
                    figures.Curve(
                        label, concurrency_curve(sel.request(weights=weights, kv_dtype=kv, gpu_id=gpu_id), contexts)
                    )
                )
            except PlannerError as exc:
                skipped.append(f"{label}: {exc}")
    chosen = plan(sel.request())
    st.metric(
        f"At {sel.context_tokens:,} tokens ({sel.weights}/{sel.kv_dtype})",
        f"{chosen.max_concurrency:,.1f} concurrent sequences",
        help="Move the context slider in the sidebar: the marker and this number follow.",
    )
    fig = figures.concurrency_figure(curves, sel.context_tokens, contiguous, chosen_label=choices[0])
    st.plotly_chart(fig, width="stretch", config={"displaylogo": False})
    for note in skipped:
        st.warning(note, icon=":material/warning:")
    st.caption(
        "Paged engines (vLLM, SGLang, TensorRT-LLM) allocate blocks of 16 tokens as a sequence grows; "
        "contiguous allocation reserves the maximum length for every sequence up front. "
        "Eight times the context is one eighth the concurrency (seed text 001). "
        + text.verdict(chosen, name, sel.gpu, sel.unit)
    )
    rows = [
        {
            "curve": c.label,
            "context_tokens": p.context_tokens,
            "sequences_paged": round(p.sequences_paged, 3),
            "sequences_contiguous": p.sequences_contiguous,
            "kv_bytes_per_sequence": p.kv_bytes_per_sequence,
        }
        for c in curves
        for p in c.points
    ]
    extra = {state.CURVES.key: picked, state.CURVE_GPUS.key: others, state.CONTIGUOUS.key: str(contiguous).lower()}
    share_and_export(
        sel,
        PATH,
        f"Context what-if: {name}",
        text.verdict(chosen, name, sel.gpu, sel.unit),
        [fig],
        {"curves": rows},
        extra,
    )


if __name__ == "__main__":
    # Streamlit's legacy pages-directory mode runs a file of pages/ directly when a server's very first
    # request is a page URL; hand over to the frame, which routes to this page through st.navigation.
    from ui.frame import run_frame

    run_frame()
