"""Table rows (lists of dicts) built from planner results: shown on pages and exported as CSV (pure)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from planner.plan import PlanResult
from planner.units import UNIT_BYTES
from ui.figures import COMPONENTS


def breakdown_rows(result: PlanResult, unit: str) -> list[dict[str, object]]:
    """One row per pipeline stage (each GPU of a stage is the same), every component in ``unit``."""
    rows = []
    for stage in result.stages:
        row: dict[str, object] = {
            "stage": stage.stage,
            "layers": f"{stage.layers[0]}–{stage.layers[1] - 1}",
            "GPUs": result.tensor_parallel,
        }
        for field, name, _ in COMPONENTS:
            row[f"{name} ({unit})"] = round(getattr(stage, field) / UNIT_BYTES[unit], 3)
        row[f"Capacity ({unit})"] = round(stage.gpu_memory_bytes / UNIT_BYTES[unit], 3)
        row[f"Room for the KV cache ({unit}; negative: short by)"] = round(stage.headroom_bytes / UNIT_BYTES[unit], 3)
        rows.append(row)
    return rows


def cell_text(value: object) -> str:
    """A table cell as people read it: nothing for a missing figure (never "None" or "nan"), whole numbers
    with thousands separators, other numbers to six significant digits.

    >>> [cell_text(v) for v in (None, float("nan"), 30000, 93.58, 0.1234567, 2_500_000.0, "H100")]
    ['', '', '30,000', '93.58', '0.123457', '2,500,000', 'H100']
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 1e5 else f"{value:,.6g}"
    return str(value)


def shown(rows: Sequence[Mapping[str, object]]) -> Any:
    """``rows`` for ``st.dataframe``: the numbers stay numbers (sorting works) but each cell shows
    :func:`cell_text`, so a figure no source gives is an empty cell."""
    import pandas as pd  # type: ignore[import-untyped]  # Streamlit brings pandas; no stubs are installed

    return pd.DataFrame(list(rows)).style.format(cell_text)
