"""Catalog: the models and GPUs Headroom knows, searchable, with their sources."""

from __future__ import annotations

import streamlit as st

from model_catalog import load_gpus, load_models
from planner.core.kv import kv_bytes_per_token
from planner.core.params import parameter_breakdown
from ui import binding, frame, links, settings
from ui.common import data_grid, share_and_export
from ui.state import Selection

PATH = settings.CATALOG


def model_rows() -> list[dict[str, object]]:
    rows = []
    for model_id, entry in sorted(load_models().items(), key=lambda kv: kv[0].lower()):
        spec = entry.spec
        params = parameter_breakdown(spec)
        rows.append(
            {
                "id": model_id,
                "attention": spec.attention_kind,
                "layers": ", ".join(f"{n} {k}" for k, n in spec.layer_kind_counts.items() if n),
                "parameters (B)": round(params.total / 1e9, 3),
                "active (B)": round(params.active / 1e9, 3),
                "KV per token, bf16 (KiB)": round(kv_bytes_per_token(spec, "bf16") / 1024, 1),
                "max context": spec.max_position_embeddings,
                "native": spec.native_dtype,
                "sources": " | ".join(entry.sources),
            }
        )
    return rows


def gpu_rows() -> list[dict[str, object]]:
    rows = []
    for gpu_id, gpu in sorted(load_gpus().items()):
        rows.append(
            {
                "id": gpu_id,
                "name": gpu.name,
                "memory (GiB, reported)": round(gpu.memory_bytes / 2**30, 2),
                "marketed (GB)": gpu.memory_marketed_gb,
                "bandwidth (TB/s)": round(gpu.bandwidth_bytes_per_s / 1e12, 2) if gpu.bandwidth_bytes_per_s else None,
                "BF16 dense (TFLOPS)": gpu.bf16_dense_tflops,
                "sold as": gpu.purchase.sold_as,
                "price (USD)": gpu.price.usd if gpu.price else None,
                "cloud from ($/GPU-h)": gpu.cheapest_cloud_usd_per_hour,
                "sources": " | ".join(gpu.sources),
            }
        )
    return rows


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
