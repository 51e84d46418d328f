"""``calibrate``: read an engine's start-up log, compare what it printed with the prediction for the same set-up,
and give the calibrated profile (:func:`planner.calibration.calibrate_log`), so scripts reach the log parser
without the dashboard."""

from __future__ import annotations

import argparse
import json
from typing import Any

from planner.bounds.files import read_regular_file
from planner.bounds.limits import MAX_CONTEXT, MAX_PARALLEL
from planner.calibration import CalibrationResult, calibrate_log
from planner.cli.args import decimal, release, tokens, whole
from planner.cli.schema import SCHEMA_VERSION
from planner.cli.table import print_table
from planner.core.kv_formats import KV_FORMATS
from planner.core.precision import WEIGHT_FORMATS
from planner.sources.logs import MAX_LOG_CHARS


def add_calibrate_parser(sub: Any) -> None:
    """Add ``calibrate`` to ``sub`` (an argparse sub-parsers action)."""
    p = sub.add_parser("calibrate", help="compare a vLLM start-up log with the prediction, and calibrate from it")
    p.add_argument("--log", required=True, help="the engine's start-up log (a regular file, at most 4 MB)")
    p.add_argument("--model", help="catalog model id or alias (default: the model the log names)")
    p.add_argument("--gpu", help="catalog GPU id (default: the GPU whose memory the log prints)")
    p.add_argument("--tp", type=whole(1, MAX_PARALLEL), help="tensor-parallel size (default: the log's)")
    p.add_argument("--pp", type=whole(1, MAX_PARALLEL), help="pipeline-parallel size (default: the log's)")
    p.add_argument("--max-model-len", type=tokens(1, MAX_CONTEXT), help="context length (default: the log's)")
    p.add_argument("--weights", choices=list(WEIGHT_FORMATS), help="weight format (default: the log's precision)")
    p.add_argument("--kv-dtype", choices=list(KV_FORMATS), help="KV cache dtype (default: the log's)")
    p.add_argument("--engine-version", type=release, help="vLLM release (default: the log's)")
    p.add_argument("--gpu-util", type=decimal(0, 1, above_low=True), help="gpu_memory_utilization (default: the log's)")
    p.add_argument("--json", action="store_true")


def read_log(path: str) -> str:
    """The log at ``path``: a regular file of at most :data:`~planner.sources.logs.MAX_LOG_CHARS` bytes; bytes that
    are not UTF-8 (a terminal's colour codes cut in two) are replaced, not refused."""
    return read_regular_file(path, MAX_LOG_CHARS, "a start-up log").decode("utf-8", errors="replace")


def calibration_data(result: CalibrationResult) -> dict[str, Any]:
    """What ``calibrate --json`` prints: the set-up, every figure predicted / printed / difference, the start-up
    verdicts, and the calibrated profile with its link token."""
    return {
        "schema_version": SCHEMA_VERSION,
        "setup": result.setup.model_dump(mode="json"),
        "comparisons": [
            {"name": c.name, "unit": c.unit, "predicted": c.predicted, "printed": c.printed, "difference": c.difference}
            for c in result.comparisons
        ],
        "predicted_failure": result.predicted_failure,
        "printed_failure": result.printed_failure,
        "calibrated": result.calibrated.model_dump(mode="json"),
        "calibration_token": result.calibration_token,
        "calibrated_kv_gib": result.calibrated_kv_gib,
        "parsed": result.parsed.model_dump(mode="json"),
        "notes": list(result.notes),
    }


def _cell(value: float | None, unit: str) -> str:
    """A figure as the engine prints it: tokens and blocks whole, GiB and the concurrency in hundredths.

    >>> _cell(476_016.0, "tokens"), _cell(58.114, "GiB"), _cell(None, "x")
    ('476,016', '58.11', '-')
    """
    if value is None:
        return "-"
    return f"{value:,.0f}" if unit in ("tokens", "blocks") else f"{value:,.2f}"


def cmd_calibrate(args: argparse.Namespace) -> int:
    result = calibrate_log(
        read_log(args.log),
        model=args.model,
        gpu=args.gpu,
        tensor_parallel=args.tp,
        pipeline_parallel=args.pp,
        max_model_len=args.max_model_len,
        weights=args.weights,
        kv_dtype=args.kv_dtype,
        engine_version=args.engine_version,
        gpu_memory_utilization=args.gpu_util,
    )
    if args.json:
        print(json.dumps(calibration_data(result), indent=2))
        return 0
    s = result.setup
    print(
        f"{s.model} on {s.gpu}, TP {s.tensor_parallel} x PP {s.pipeline_parallel}, {s.weights} weights, "
        f"max_model_len {s.max_model_len:,}, vLLM {s.engine_version} at {s.gpu_memory_utilization:g}"
    )
    rows = [("figure", "unit", "predicted", "printed", "difference")]
    rows += [
        (c.name, c.unit, _cell(c.predicted, c.unit), _cell(c.printed, c.unit), _cell(c.difference, c.unit))
        for c in result.comparisons
    ]
    print_table(rows)
    print(f"start-up: predicted {result.predicted_failure or 'starts'}, printed {result.printed_failure or 'starts'}")
    print(f"calibrated: {result.calibration_token} (KV cache {result.calibrated_kv_gib:.2f} GiB per GPU)")
    for note in result.notes:
        print(f"note: {note}")
    return 0
