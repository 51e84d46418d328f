"""README's blind speed table states what ``python -m bench.speed_sets`` scores now: its rows and its rows over 50 %
add up to the blind files' (tests/advisor/benchmarks/unseen-*.toml, every row with a prediction). The table is
written by hand; a review on 2026-12-07 found it at 767 rows and 93 over 50 % (27 / 11 / 8 TensorRT-LLM, 34 drained
vLLM / SGLang bursts, ...) where the sets scored 771 and 47, the fourth set (OCI's MI300X runs) missing."""

from __future__ import annotations

import re
from pathlib import Path

from bench.speed_sets import measure

README = Path(__file__).resolve().parents[2] / "README.md"
HEADER = "| Blind set | Engine | Regime | Rows |"


def table_rows() -> list[list[str]]:
    """The blind speed table's data rows, cell by cell."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(HEADER))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
    return rows


def leading_int(cell: str) -> int:
    found = re.match(r"[\d,]+", cell)
    assert found, cell
    return int(found.group().replace(",", ""))


def test_the_tables_rows_and_misses_are_the_blind_sets_now() -> None:
    cells = [cell for name, found in measure().items() if name.startswith("unseen") for cell in found.values()]
    rows = table_rows()
    assert all(len(r) == 6 for r in rows)
    assert (
        sum(leading_int(r[3]) for r in rows) == sum(c[0] for c in cells) == 836
    )  # 771 until 2026-12f (AMD's MI300X tables, 65 rows) was scored
    assert (
        sum(leading_int(r[5]) for r in rows) == sum(c[3] for c in cells) == 49
    )  # 47 until 2026-12f (its 7 batched rows over 50 %); 54 until, on 2026-12-08, Qwen3-Next's eager prefills
    # (2026-12c), gpt-oss's chat prompts counting Harmony's tokens (2026-12b), llama.cpp's MMQ rate per SM (2026-12b)
    # and each attention-DP rank reading its layers whole (2026-12, two rows)
