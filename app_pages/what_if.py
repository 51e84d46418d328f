"""Context what-if: how many conversations at each context length, per precision and per GPU."""

from __future__ import annotations

import streamlit as st

from planner.assess import concurrency_curve
from planner.errors import PlannerError
from ui import binding, figures, frame, links, settings, state
from ui.common import share_and_export
from ui.guard import as_text
from ui.state import Selection

PATH = settings.WHAT_IF
CURVE_OPTIONS = [f"{w}/{kv}" for w in ("bf16", "fp8", "int4-awq", "q4_k_m") for kv in ("bf16", "fp8")]


def _curve_choices(sel: Selection) -> list[str]:
    current = f"{sel.weights}/{sel.kv_dtype}"
    return [current, *[c for c in CURVE_OPTIONS if c != current]]


def render(sel: Selection) -> None:
    name = sel.spec.display_name
    st.title(f"What if conversations were longer? {as_text(name)}")
    low, high = state.context_range(sel.spec)
    contexts = sorted({*state.log_contexts(low, high, points=40), sel.context_tokens})
    choices = _curve_choices(sel)
    c1, c2 = st.columns([3, 2])
    picked = binding.choose_many(c1, settings.CURVES, choices, [choices[0]], max_selections=6) or [choices[0]]
    others = binding.choose_many(
        c2, settings.CURVE_GPUS, [g for g in state.gpu_options() if g != sel.gpu_id], [], max_selections=4
    )
    contiguous = binding.toggle(st, settings.CONTIGUOUS, False)
    curves: list[figures.Curve] = []
    skipped: list[str] = []
    for gpu_id in [sel.gpu_id, *others]:
        for pair in picked:
            weights, kv = pair.split("/")
            label = pair if gpu_id == sel.gpu_id else f"{pair} · {gpu_id}"
            try:
                request = sel.request(weights=weights, kv_dtype=kv, gpu_id=gpu_id)
                curves.append(figures.Curve(label, concurrency_curve(request, contexts, sel.users)))
            except PlannerError as exc:
                skipped.append(f"{label}: {exc}")
    chosen = sel.assessment()
    st.metric(
        f"At {sel.context_tokens:,} tokens ({sel.weights}/{sel.kv_dtype})",
        f"{chosen.conversations:,} concurrent conversations",
        help="Move the context slider in the sidebar: the marker and this number follow.",
    )
    fig = figures.concurrency_figure(curves, sel.context_tokens, contiguous, chosen_label=choices[0])
    st.plotly_chart(fig, width="stretch", config={"displaylogo": False})
    for note in skipped:
        st.warning(as_text(note), icon=":material/warning:")
    verdict = chosen.sentence(sel.unit)
    st.caption(
        "Paged engines (vLLM, SGLang, TensorRT-LLM) allocate blocks of 16 tokens as a sequence grows; "
        "contiguous allocation reserves the maximum length for every sequence up front. "
        "Eight times the context is one eighth the concurrency (seed text 001). " + as_text(verdict)
    )
    rows = [
        {
            "curve": c.label,
            "context_tokens": p.context_tokens,
            "concurrency": round(p.concurrency, 3),
            "conversations": p.conversations,
            "conversations_contiguous": p.contiguous,
            "kv_bytes_per_sequence": p.kv_bytes_per_sequence,
        }
        for c in curves
        for p in c.points
    ]
    page = links.page_params(
        PATH,
        {settings.CURVES.url: picked, settings.CURVE_GPUS.url: others, settings.CONTIGUOUS.url: contiguous},
    )
    share_and_export(sel, PATH, f"Context what-if: {name}", verdict, [fig], {"curves": rows}, page)


frame.run_page(render)
