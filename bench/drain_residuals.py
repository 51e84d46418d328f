"""What the drained bursts' misses share: their errors grouped by what the rows state (never asserted in tests).

A burst row (``BenchmarkRow.requests``: every prompt sent at once, drained through the scheduler,
:mod:`planner.advisor.drain`) is scored as :func:`planner.advisor.validation.scored` scores it; this prints, per
property of the row (the set, the engine, the GPUs, the model's size, the lengths, the burst, the caps, the release
the row states, the source), the rows, the median ``|error|``, the median signed error and the rows over 50 %.
Read before a mechanism is chosen: a group far from the rest points at something its rows share (a machine, a
kernel, a scheduler), and a mechanism that is real should move its group, not the set at random.

``PYTHONPATH=. python -m bench.drain_residuals [FILE ...]`` (default: the blind sets of ``tests/advisor/benchmarks``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

from planner.advisor.benchmarks import BenchmarkRow, load_rows
from planner.advisor.validation import scored

BLIND_DIR = Path(__file__).resolve().parents[1] / "tests" / "advisor" / "benchmarks"
OVER = 0.5  # the blind sets' bound on one row's |error| (tests/advisor/test_benchmarks.py)


def _size(row: BenchmarkRow) -> str:
    from model_catalog import get_model
    from planner.core.params import parameter_breakdown

    spec = get_model(row.model_id).spec
    total = parameter_breakdown(spec).total / 1e9
    if spec.moe is not None:
        return "MoE, under 50B" if total < 50 else "MoE, 50B and over"
    return "dense, under 20B" if total < 20 else "dense, 20B and over"


def _lengths(row: BenchmarkRow) -> str:
    if row.lengths == "sharegpt":
        return "ShareGPT"
    if row.input_tokens <= 256:
        return f"{row.lengths}, prompts up to 256"
    return f"{row.lengths}, prompts {'up to 4,096' if row.input_tokens <= 4096 else 'over 4,096'}"


def _cap(row: BenchmarkRow) -> str:
    if row.concurrency != "max":
        return "client cap (--max-concurrency)"
    return "engine cap (max_running)" if row.max_running else "no cap"


def _burst(row: BenchmarkRow) -> str:
    n = row.requests or 0
    return "up to 200" if n <= 200 else ("201 to 1,000" if n <= 1000 else "over 1,000")


GROUPS: dict[str, Callable[[BenchmarkRow], str]] = {
    "engine": lambda r: r.engine.split()[0],
    "GPUs": lambda r: f"{r.gpu_count} x {r.gpu_id}",
    "model": _size,
    "lengths": _lengths,
    "burst": _burst,
    "cap": _cap,
    "release": lambda r: f"{r.engine.split()[0]} {r.engine_version or 'unstated'}",
    "source": lambda r: r.source.split()[0].split("@")[0],
}


def residuals(paths: tuple[Path, ...]) -> list[tuple[str, BenchmarkRow, float]]:
    """(file name, row, error) of every burst row of ``paths`` with a prediction."""
    out: list[tuple[str, BenchmarkRow, float]] = []
    for path in paths:
        rows = tuple(r for r in load_rows((path,)) if r.requests is not None)
        by_id = {r.id: r for r in rows}
        out += [(path.name, by_id[s.id], s.error) for s in scored(rows) if s.error is not None]
    return out


def group_table(errors: list[tuple[str, BenchmarkRow, float]]) -> str:
    """The markdown table: per group and value, rows, median |error|, median signed error, rows over 50 %.

    >>> from planner.advisor.benchmarks import load_rows
    >>> row = next(r for r in load_rows() if r.family == "paged")
    >>> print(group_table([("a.toml", row, 0.6), ("a.toml", row, -0.2)]).splitlines()[2])
    | set | a.toml | 2 | 40% | +20% | 1 |
    """
    lines = ["| group | value | rows | median abs error | median error | over 50 % |", "|---|---|---|---|---|---|"]
    keyed: dict[tuple[str, str], list[float]] = {}
    for name, row, error in errors:
        keyed.setdefault(("set", name), []).append(error)
        for group, key in GROUPS.items():
            keyed.setdefault((group, key(row)), []).append(error)
    order = ["set", *GROUPS]
    for (group, value), values in sorted(keyed.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1])):
        median = statistics.median(abs(e) for e in values)
        signed = statistics.median(values)
        over = sum(abs(e) > OVER for e in values)
        lines.append(f"| {group} | {value} | {len(values)} | {median:.0%} | {signed:+.0%} | {over} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.drain_residuals", description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", metavar="FILE", help="TOML files of BenchmarkRow rows (default: blind)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    paths = tuple(Path(a) for a in args.files) or tuple(sorted(BLIND_DIR.glob("*.toml")))
    print(group_table(residuals(paths)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
