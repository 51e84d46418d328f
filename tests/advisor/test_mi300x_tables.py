"""AMD's MI300X latency tables as ``bench.mi300x_tables`` reads them (a diagnosis of unseen-2026-12d; the same tables
are scored as the blind set unseen-2026-12f since 2026-12-07): the 0.10.0 image's 70B batch-1 / 2 latencies are the
scored rows' own figures (the package row and the unseen-2026-12d row, from AMD's "Performance Results" page for the
0.9.1 image), which ties the tables to the rows' source; every table has its eight batches."""

from __future__ import annotations

from pathlib import Path

from bench.mi300x_tables import BATCHES, LATENCY_S, lines, row
from planner.advisor.benchmarks import load_rows

UNSEEN_D = Path(__file__).parent / "benchmarks" / "unseen-2026-12d.toml"


def test_the_tables_70b_batches_1_and_2_are_the_scored_rows() -> None:
    scored = {r.id: r.value for r in load_rows() + load_rows((UNSEEN_D,))}
    latencies = LATENCY_S[("0.10.0", "meta-llama/Llama-3.1-70B")]
    assert (
        row("meta-llama/Llama-3.1-70B", 1, latencies[0]).value
        == scored["amd-mi300x8-llama31-70b-fp8-tp8-bs1-128-2048"]
        == 118.82
    )
    assert (
        row("meta-llama/Llama-3.1-70B", 2, latencies[1]).value
        == scored["amd-mi300x8-llama31-70b-fp8-tp8-bs2-128-2048"]
        == 226.84
    )


def test_every_table_is_read_whole_and_scored() -> None:
    assert all(len(latencies) == len(BATCHES) for latencies in LATENCY_S.values())
    assert len(lines()) == len(LATENCY_S) * (1 + len(BATCHES))
