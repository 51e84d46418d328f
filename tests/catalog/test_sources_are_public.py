"""Every source a reader is shown is public: no path of the machine the catalog was built on (a manager's review,
2026-12-06: '/work/research/advisor/hosts.toml' appeared as a price source in the advisor's reports and CSVs)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHOWN = [*ROOT.joinpath("model_catalog").rglob("*.toml"), *ROOT.joinpath("planner/advisor/benchmarks").glob("*.toml")]


def test_no_source_names_a_local_path() -> None:
    assert len(SHOWN) > 100
    local = [str(p.relative_to(ROOT)) for p in SHOWN if "/work/" in p.read_text(encoding="utf-8")]
    assert local == []
