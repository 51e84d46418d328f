"""Every page run hands the server's interpreter lock over within a millisecond (ui.interpreter; bench/attack.py:
a visitor's request no longer waits 1.4-2.1 s for the event loop behind looping sessions' scripts)."""

from __future__ import annotations

import sys

import pytest

from tests.app.conftest import run_page
from ui import interpreter


def test_a_page_run_sets_it(default_switch_interval: None) -> None:
    at = run_page("memory", {"model": "meta-llama/Llama-3.1-8B", "gpu": "rtx-4090"})
    assert not at.exception
    assert sys.getswitchinterval() == pytest.approx(interpreter.SWITCH_INTERVAL_S)
