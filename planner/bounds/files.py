"""Reading a file named by a user (a config.json, a start-up log): a regular file only (no device such as
``/dev/zero``, no FIFO, no directory), and never more than a bound read from it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from planner.bounds.errors import PlannerError


def read_regular_file(path: str | Path, max_bytes: int, what: str) -> bytes:
    """At most ``max_bytes`` of the regular file at ``path``, or a :class:`PlannerError` naming ``what``."""
    if not str(path):
        raise PlannerError(f"{what}: no file given")
    file = Path(path)
    name = file.name or str(path)[:200]
    try:
        mode = os.stat(file).st_mode
        if not stat.S_ISREG(mode):
            raise PlannerError(f"{name}: not a regular file (a device, FIFO or directory)")
        with open(file, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise PlannerError(f"cannot read {str(file)[:200]}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise PlannerError(f"{name}: larger than {what} can be ({max_bytes:,} bytes)")
    return data
