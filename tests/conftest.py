"""Fixtures for every test."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings
from streamlit.runtime.pages_manager import PagesManager

# Under CI every property test runs hypothesis's derandomized examples, so that a run on a fresh machine gives the
# same answer twice; elsewhere `make test` explores new random examples on each run, and a counterexample found
# there is fixed and pinned with `@example` (tests/advisor/test_rank.py's budget invariant).
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _not_a_legacy_pages_app(monkeypatch: pytest.MonkeyPatch) -> None:
    """AppTest resets ``PagesManager.uses_pages_directory`` before every run, so every run would start in
    Streamlit's legacy ``pages/`` mode, which :func:`ui.frame.leave_legacy_pages_mode` leaves with a rerun that
    drops the run's button clicks and form submissions. A server decides that mode once per process, on its first
    session; ``tests/browser/test_cold_deep_link.py`` proves it is left there. Here every run starts past it."""
    original = PagesManager.__init__

    def init(self: PagesManager, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


@pytest.fixture
def default_switch_interval() -> Iterator[None]:
    """The interpreter's default switch interval (5 ms) during the test, the process's own restored after it."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)
    try:
        yield
    finally:
        sys.setswitchinterval(before)
