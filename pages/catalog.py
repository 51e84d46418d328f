"""Catalog: the models and GPUs Headroom knows, searchable, with their sources."""

from __future__ import annotations

import streamlit as st

from ui import binding, frame, links, settings
from ui.catalog_rows import gpu_rows, model_rows
from ui.common import data_grid, share_and_export
from ui.state import Selection

PATH = settings.CATALOG


def _filter(rows: list[dict[str, object]], query: str) -> list[dict[str, object]]:
    words = query.lower().split()
    return [r for r in rows if all(w in " ".join(str(v) for v in r.values()).lower() for w in words)]


def render(sel: Selection) -> None:
    st.title("Catalog")
    query = binding.text(st, settings.SEARCH, "", placeholder="e.g. qwen3 moe, h100, mla", max_chars=100)
    models, gpus = _filter(model_rows(), query), _filter(gpu_rows(), query)
    st.subheader(f"Models ({len(models)})")
    data_grid(st, models)
    st.subheader(f"GPUs ({len(gpus)})")
    data_grid(st, gpus)
    share_and_export(
        sel,
        PATH,
        "Headroom catalog",
        f"{len(models)} models and {len(gpus)} GPUs",
        [],
        {"models": models, "gpus": gpus},
        links.page_params(PATH, {settings.SEARCH.url: query}),
        about_setup=False,
    )
    st.caption(
        "Unknown figures stay empty: nothing here is invented. Parameters are computed from the "
        "architecture and checked against the Hugging Face safetensors totals in the tests."
    )


frame.run_page(render)
