"""Every speed set scored per engine and regime, for a before -> after of the speed model (issue 21;
``python -m bench.speed_sets [--json] [--worst N] [--set NAME] [--over [SHARE]]``). Its figures are never asserted
in tests (the listings are: ``tests/advisor/test_speed_sets.py``).

Printed for the package's rows (``planner/advisor/benchmarks/*.toml``, fit and held-out apart) and for each blind
file of ``tests/advisor/benchmarks`` (every row, the roles of a blind file mean nothing): per engine family and
regime the rows, the median and worst |error| and how many rows miss by more than 50 %. Run it in two checkouts
(or before and after a change of :data:`planner.advisor.engine_speed.FITTED`) and compare the lines. ``--worst N``
lists each set's N rows of largest |error| with what groups them (:func:`worst_lines`: model, GPUs, lengths,
concurrency and burst, the engine's prompt chunk); ``--set NAME`` keeps one set (``fit``, ``held-out``,
``fit+held-out`` or a blind file's name). ``--over [SHARE]`` lists, per set, every row missed by more than a share
(0.5 unless given), worst first, with its measured and predicted figures, so the misses can be grouped by set-up.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from planner.advisor.benchmarks import BenchmarkRow, load_rows
from planner.advisor.validation import Scored, case, scored

BLIND_DIR = Path(__file__).resolve().parent.parent / "tests" / "advisor" / "benchmarks"
Cell = tuple[int, float, float, int]  # rows, median |error|, worst |error|, rows over 50 %


def cells(results: list[Scored]) -> dict[str, Cell]:
    """``family/regime`` -> its :data:`Cell`, over the rows with a prediction."""
    grouped: dict[str, list[float]] = {}
    for s in results:
        if s.error is not None:
            grouped.setdefault(f"{s.family}/{s.regime}", []).append(abs(s.error))
    return {
        key: (len(v), round(statistics.median(v), 4), round(max(v), 3), sum(e > 0.5 for e in v))
        for key, v in sorted(grouped.items())
    }


def sets(only: str | None = None) -> dict[str, tuple[BenchmarkRow, ...]]:
    """The package's fit rows, held-out rows and both, then each blind file, by name (``only``: that set alone)."""
    package = load_rows()
    out = {role: tuple(r for r in package if r.role == role) for role in ("fit", "held-out")}
    out |= {"fit+held-out": package}
    out |= {path.name: load_rows((path,)) for path in sorted(BLIND_DIR.glob("*.toml"))}
    if only is not None and only not in out:
        raise SystemExit(f"no speed set {only!r}: one of {', '.join(out)}")
    return out if only is None else {only: out[only]}


def measure(only: str | None = None) -> dict[str, dict[str, Cell]]:
    """The package's fit and held-out rows, then each blind file, as :func:`cells`."""
    return {name: cells(scored(rows)) for name, rows in sets(only).items()}


def describe(row: BenchmarkRow) -> str:
    """What groups a row's miss: model, GPUs, prompt / answer lengths, concurrency and burst size, the prompt chunk
    the scoring gives the engine (``Setup.prefill_chunk``; ``-``: the default), engine and release."""
    burst = f" x{row.requests}" if row.requests is not None else ""
    chunk = case(row).setup.prefill_chunk or "-"
    return (
        f"{row.model_id} {row.weights} on {row.gpus_per_replica} x {row.gpu_id}, {row.input_tokens}/{row.output_tokens}"
        f" c={row.concurrency}{burst} chunk={chunk} {row.engine.split(' (')[0]} [{row.engine_version or '?'}]"
    )


def worst_lines(rows: tuple[BenchmarkRow, ...], count: int) -> list[str]:
    """The ``count`` rows of ``rows`` the model misses most (largest |error| first), one line each: the error, the
    family / regime, the id and :func:`describe`."""
    by_id = {r.id: r for r in rows}
    missed = sorted((s for s in scored(rows) if s.error is not None), key=lambda s: -abs(s.error or 0.0))
    return [f"{s.error:+9.1%} {s.family}/{s.regime} {s.id}: {describe(by_id[s.id])}" for s in missed[:count]]


def worst(results: list[Scored], share: float = 0.5) -> list[Scored]:
    """The rows with a prediction missed by more than ``share`` (|error|), worst first.

    >>> row = dict(family="fused", regime="batched", role="held-out", metric="output_total", source="s")
    >>> rows = [Scored(id=str(e), measured=100.0, predicted=100 * (1 + e), error=e, **row) for e in (0.4, -0.7, 0.9)]
    >>> [s.id for s in worst(rows)]
    ['0.9', '-0.7']
    """
    missed = [s for s in results if s.error is not None and abs(s.error) > share]
    return sorted(missed, key=lambda s: -abs(s.error or 0.0))


def print_worst(share: float) -> None:
    """:func:`worst` of the package's rows and of each blind file, one line a row."""
    found = {"package": scored()} | {p.name: scored(load_rows((p,))) for p in sorted(BLIND_DIR.glob("*.toml"))}
    for name, results in found.items():
        missed = worst(results, share)
        print(f"{name}: {len(missed)} rows over {share:.0%}")
        for s in missed:
            figures = f"{s.measured:12.5g} {s.predicted or 0.0:12.5g}"
            print(f"    {s.error or 0.0:+8.1%}  {s.family}/{s.regime:13} {figures}  {s.id}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.speed_sets", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--worst", type=int, default=0, metavar="N", help="list each set's N worst rows")
    parser.add_argument("--set", dest="only", metavar="NAME", help="one set: fit, held-out, fit+held-out or a file")
    parser.add_argument(
        "--over", nargs="?", type=float, const=0.5, default=None, metavar="SHARE",
        help="list every row missed by more than SHARE (0.5), worst first, per set",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.over is not None:
        print_worst(args.over)
        return 0
    if args.worst:
        for name, rows in sets(args.only).items():
            print(name)
            for line in worst_lines(rows, args.worst):
                print(f"    {line}")
        return 0
    figures = measure(args.only)
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    for name, table in figures.items():
        print(name)
        for key, (n, median, worst, over) in table.items():
            print(f"    {key:28} {n:4} rows  median {median:7.2%}  worst {worst:7.1%}  over 50 %: {over}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
