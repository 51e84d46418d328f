"""Run the frame (app.py) from elsewhere: see the note at the end of each file in pages/."""

from __future__ import annotations

import runpy
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app.py"


def run_frame() -> None:
    runpy.run_path(str(APP), run_name="__main__")
