"""Every speed set scored per engine and regime, for a before -> after of the speed model (issue 21;
``python -m bench.speed_sets [--json]``). Never asserted in tests.

Printed for the package's rows (``planner/advisor/benchmarks/*.toml``, fit and held-out apart) and for each blind
file of ``tests/advisor/benchmarks`` (every row, the roles of a blind file mean nothing): per engine family and
regime the rows, the median and worst |error| and how many rows miss by more than 50 %. Run it in two checkouts
(or before and after a change of :data:`planner.advisor.engine_speed.FITTED`) and compare the lines.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from planner.advisor.benchmarks import load_rows
from planner.advisor.validation import Scored, scored

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


def measure() -> dict[str, dict[str, Cell]]:
    """The package's fit and held-out rows, then each blind file, as :func:`cells`."""
    package = scored()
    out = {role: cells([s for s in package if s.role == role]) for role in ("fit", "held-out")}
    out |= {"fit+held-out": cells(package)}
    for path in sorted(BLIND_DIR.glob("*.toml")):
        out[path.name] = cells(scored(load_rows((path,))))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.speed_sets", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    figures = measure()
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
