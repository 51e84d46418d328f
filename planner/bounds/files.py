"""Reading a file named by a user (a config.json, a start-up log): a regular file only (no device such as
``/dev/zero``, no FIFO, no directory), and never more than a bound read from it.

The path is checked, then opened without blocking (``O_NONBLOCK``: opening a FIFO with no writer would otherwise wait
for one for good), and the open descriptor is checked again with ``fstat``: a check of the path alone, followed by an
open of the path, could be raced by swapping a symlink between a file and a FIFO (POSIX ``open``: "O_NONBLOCK ... an
open() for reading-only shall return without delay" for a FIFO; the descriptor, not the name, is what is read).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from planner.bounds.errors import PlannerError

# Not following the name after the check: no blocking open, no controlling terminal, close on exec.
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def read_regular_file(path: str | Path, max_bytes: int, what: str) -> bytes:
    """At most ``max_bytes`` of the regular file at ``path``, or a :class:`PlannerError` naming ``what``."""
    if not str(path):
        raise PlannerError(f"{what}: no file given")
    file = Path(path)
    name = file.name or str(path)[:200]
    try:
        if not stat.S_ISREG(os.stat(file).st_mode):  # a device is not even opened (opening one can act)
            raise PlannerError(f"{name}: not a regular file (a device, FIFO or directory)")
        fd = os.open(file, _OPEN_FLAGS)
    except OSError as exc:
        raise PlannerError(f"cannot read {str(file)[:200]}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise PlannerError(f"{name}: not a regular file (a device, FIFO or directory)")
        os.set_blocking(fd, True)  # a regular file: reads never wait on a writer
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise PlannerError(f"cannot read {str(file)[:200]}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise PlannerError(f"{name}: larger than {what} can be ({max_bytes:,} bytes)")
    return data
