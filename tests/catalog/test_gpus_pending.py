"""The machines researched for issue 16 that wait for the new GPU schema (`model_catalog/gpus-pending/`).

They are not loaded by the catalog; these checks only keep them usable: valid TOML named after its id, sources
given, no figure recorded without being either a field or named as unverified.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

PENDING = Path(__file__).resolve().parents[2] / "model_catalog" / "gpus-pending"
FILES = sorted(PENDING.glob("*.toml"))


def test_pending_machines_are_present() -> None:
    ids = {path.stem for path in FILES}
    for machine in ("dgx-spark-gb10", "gb300", "apple-m3-ultra", "apple-m5-max", "amd-ryzen-ai-max-plus-395"):
        assert machine in ids
    for machine in ("mi350x", "l20", "h800-sxm-80gb", "a800-sxm-80gb", "intel-arc-pro-b60"):
        assert machine in ids


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_pending_file_is_sourced(path: Path) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data["id"] == path.stem
    assert data["sources"] and all(len(s.strip()) > 8 for s in data["sources"])
    if "price" in data:
        assert data["price"]["source"] and data["price"]["date"]
