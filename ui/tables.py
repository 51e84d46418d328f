"""Table rows (lists of dicts) built from planner results: shown on pages and exported as CSV (pure)."""

from __future__ import annotations

from planner.plan import PlanResult
from planner.units import UNIT_BYTES
from ui.figures import shown_components


def breakdown_rows(result: PlanResult, unit: str) -> list[dict[str, object]]:
    """One row per pipeline stage (each GPU of a stage is the same), every component in ``unit``."""
    rows = []
    for stage in result.stages:
        row: dict[str, object] = {
            "stage": stage.stage,
            "layers": f"{stage.layers[0]}–{stage.layers[1] - 1}",
            "GPUs": result.tensor_parallel,
        }
        for field, name, _ in shown_components(result.stages):
            row[f"{name} ({unit})"] = round(getattr(stage, field) / UNIT_BYTES[unit], 3)
        row[f"Capacity ({unit})"] = round(stage.gpu_memory_bytes / UNIT_BYTES[unit], 3)
        row[f"Headroom ({unit}, signed)"] = round(stage.headroom_bytes / UNIT_BYTES[unit], 3)
        rows.append(row)
    return rows
