"""The server hands its interpreter lock over within a millisecond (ui.interpreter), so that the event loop
reading visitors' requests is not left waiting behind drawing scripts (bench/attack.py measures it)."""

from __future__ import annotations

import sys

import pytest

from ui import interpreter


def test_the_lock_is_handed_over_within_a_millisecond(default_switch_interval: None) -> None:
    interpreter.share_the_lock()
    assert sys.getswitchinterval() == pytest.approx(0.001)
