"""The one table printer of every command: left-aligned columns two spaces apart, trailing spaces trimmed."""

from __future__ import annotations

from collections.abc import Sequence


def print_table(rows: Sequence[tuple[str, ...]]) -> None:
    """Print ``rows`` (the first is usually a header) as aligned columns."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
