"""The Catalog page's rows (pure: the catalog in, rows out): every model and GPU with its figures in stated units
and its sources.

>>> rows = gpu_rows()
>>> next(r for r in rows if r["id"] == "a800-sxm-80gb")["memory (GiB, reported)"]
80.0
"""

from __future__ import annotations

from model_catalog import load_gpus, load_models
from planner.core.kv import kv_bytes_per_token
from planner.core.params import parameter_breakdown


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
                "sold as": gpu.purchase.sold_as
                + (f"; not sold new since {gpu.discontinued.since}" if gpu.discontinued else ""),
                "price (USD)": gpu.price.usd if gpu.price else None,
                "cloud from ($/GPU-h)": gpu.cheapest_cloud_usd_per_hour,
                "sources": " | ".join(gpu.sources),
            }
        )
    return rows
