"""Which releases of each engine the planner knows, how many public start-up logs stand behind each, and which
are extrapolated (``evidence.toml`` beside this module is written by ``make calibrate`` from the fixtures)."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from pydantic import BaseModel

EVIDENCE_PATH = Path(__file__).parent / "evidence.toml"


class SupportedVersion(BaseModel, frozen=True, extra="forbid"):
    """One release an engine can be planned for."""

    engine: str
    version: str
    logs: int  # public start-up logs of this release among the fixtures
    extrapolated: bool  # no log: the release's rules come from the source, its fitted terms from other releases
    default: bool  # the release a plan assumes when none is chosen


@cache
def log_counts() -> dict[str, dict[str, int]]:
    """``{engine: {release: logs}}`` from ``evidence.toml``."""
    data = tomllib.loads(EVIDENCE_PATH.read_text(encoding="utf-8"))
    return {engine: {str(v): int(n) for v, n in versions.items()} for engine, versions in data.items()}
