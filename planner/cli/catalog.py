"""``models``, ``gpus`` and ``inspect``: the catalog and a model's shape; and the model arguments ``fit`` shares."""

from __future__ import annotations

import argparse
import json
from typing import Any

from model_catalog import get_model, load_gpus, load_models
from planner.bounds.errors import PlannerError
from planner.cli.schema import SCHEMA_VERSION
from planner.cli.table import print_table
from planner.core.inspection import inspect
from planner.core.model import ModelSpec
from planner.core.params import parameter_breakdown
from planner.core.units import format_bytes
from planner.sources.config import load_config_file


def add_model_arguments(p: argparse.ArgumentParser) -> None:
    """``--model``, ``--config`` or ``--hf`` (exactly one), and ``--json``."""
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--model", help="catalog model id or alias (a Hugging Face repo id)")
    group.add_argument("--config", help="path to a Hugging Face config.json")
    group.add_argument(
        "--hf",
        metavar="REPO[@REVISION]",
        help="a model on the Hugging Face Hub (HF_ENDPOINT, HF_TOKEN for gated repos)",
    )
    p.add_argument("--json", action="store_true")


def add_catalog_parsers(sub: Any) -> None:
    """Add ``models``, ``gpus`` and ``inspect`` to ``sub`` (an argparse sub-parsers action)."""
    for name, helptext in (("models", "list catalog model ids"), ("gpus", "list catalog GPU ids")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--json", action="store_true")
    add_model_arguments(sub.add_parser("inspect", help="parameter counts, layer kinds and KV bytes per token"))


def model_from_args(args: argparse.Namespace) -> ModelSpec:
    if args.config is not None:  # '' too: a one-line error, not a fall-through to the catalog
        return load_config_file(args.config)
    if getattr(args, "hf", None) is not None:
        from planner.sources.hub import fetch_model  # imported here: requests is only needed for --hf

        hub = fetch_model(args.hf, use_env_token=True)  # the command line runs as the operator: HF_TOKEN applies
        if hub.spec is None:
            raise PlannerError(f"{hub.repo_id}: {hub.unplannable_reason}; pass a completed copy with --config")
        return hub.spec
    return get_model(args.model).spec


def cmd_models(args: argparse.Namespace) -> int:
    models = load_models()
    if args.json:
        print(json.dumps(sorted(models), indent=2))
        return 0
    rows = [("id", "parameters", "attention", "max context")]
    for model_id in sorted(models):
        spec = models[model_id].spec
        total = parameter_breakdown(spec).total
        rows.append((model_id, f"{total / 1e9:.2f} B", spec.attention_kind, f"{spec.max_position_embeddings:,}"))
    print_table(rows)
    return 0


def cmd_gpus(args: argparse.Namespace) -> int:
    gpus = load_gpus()
    if args.json:
        print(json.dumps(sorted(gpus), indent=2))
        return 0
    rows = [("id", "name", "memory")]
    for gpu_id in sorted(gpus):
        gpu = gpus[gpu_id]
        rows.append((gpu_id, gpu.name, format_bytes(gpu.memory_bytes, "GiB")))
    print_table(rows)
    return 0


def inspect_data(spec: ModelSpec) -> dict[str, Any]:
    """What ``inspect --json`` prints: :func:`planner.core.inspection.inspect` as JSON."""
    return {"schema_version": SCHEMA_VERSION, **inspect(spec).model_dump()}


def cmd_inspect(args: argparse.Namespace) -> int:
    data = inspect_data(model_from_args(args))
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    kinds = ", ".join(f"{n} {k}" for k, n in data["layer_kinds"].items() if n)
    print_table(
        [
            ("model", data["id"]),
            ("attention", f"{data['attention']} ({kinds})"),
            ("parameters", f"{data['parameters_total']:,} total, {data['parameters_active']:,} active"),
            ("native dtype", data["native_dtype"]),
            ("max context", f"{data['max_position_embeddings']:,} tokens"),
            *[(f"KV/token {k}", f"{v:,} bytes") for k, v in data["kv_bytes_per_token"].items()],
        ]
    )
    return 0
