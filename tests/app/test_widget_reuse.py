"""A setting a run leaves unchanged is not put in the session again (:func:`ui.binding.put`).

A widget whose key the script sets in a run is sent with "set this value" (``set_value``; Streamlit 1.67 also marks
the element ``has_one_shot_effect``), and the browser then rebuilds it instead of keeping the element it shows. When
every setting was put again on every run, a move of the context slider rebuilt every widget of the page (in
Chromium the set-up's select boxes rebuilding their option lists were the largest part of the re-render; ``make
bench``: slider to chart). After the slider moves, the exact-length box (the context's other view) is the one
widget set by the script; the value of a widget that is not drawn is still kept (``test_bound_widgets``). A select
box, number box or segmented control drawn for the first time with a value the session held (the set-up's editor
opened from a cold link's summary) is given that value as its default, so it is not set either, and the next run
sends it unchanged.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from streamlit.elements.lib import policies
from streamlit.testing.v1 import AppTest

from tests.app.conftest import run_page
from tests.app.test_bound_widgets import WIDGET_KINDS
from ui import setup_summary
from ui.sidebar import EXACT_KEY, PICK_KEY

LINK = {"model": "meta-llama/Llama-3.1-70B", "gpus": "2", "weights": "fp8", "kv": "fp8", "context": "8192"}


def _set_by_script(at: AppTest) -> set[str]:
    """The keys of the widgets this run sent with "set this value"."""
    widgets: list[Any] = [w for kind in WIDGET_KINDS for w in getattr(at, kind)]
    return {str(w.key) for w in widgets if getattr(w.proto, "set_value", False)}


@pytest.mark.parametrize("page", ["memory", "what_if", "compare", "advisor"])
def test_a_slider_move_sets_only_the_other_view_of_the_context(page: str) -> None:
    at = run_page(page, LINK, editor=True)
    assert not at.exception
    at.select_slider(key=PICK_KEY).set_value(32768).run()
    assert not at.exception
    assert at.session_state[EXACT_KEY] == 32768
    assert _set_by_script(at) == {EXACT_KEY}


def test_a_run_that_changes_nothing_sets_no_widget() -> None:
    at = run_page("what_if", LINK, editor=True)
    at.run()
    assert not at.exception
    assert _set_by_script(at) == set()


@pytest.mark.parametrize("page", ["memory", "what_if", "compare", "advisor"])
def test_the_editor_opened_from_the_summary_sets_only_the_context(page: str) -> None:
    at = run_page(page, {**LINK, "users": "50", "unit": "GB"})  # a cold link: the summary
    at.session_state[setup_summary.OPEN_KEY] = True  # what clicking the expander sends
    at.run()
    assert not at.exception
    shown = {str(w.key): w.value for w in [*at.selectbox, *at.number_input, *at.button_group]}
    assert shown["model"] == "meta-llama/Llama-3.1-70B"
    assert (shown["users"], shown["unit"]) == (50, "GB")
    assert shown.get("gpus", 2) == 2  # the advisor does not draw the hardware
    assert _set_by_script(at) == {PICK_KEY, EXACT_KEY}  # the slider's snaps and the box follow the context


def test_a_link_read_on_the_first_run_gives_no_widget_a_default_beside_it(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first run puts the link's values in the session: those widgets get no default of their own (Streamlit
    logs a warning, with a stack, for a widget given both; once per process, so the flag is reset here)."""
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    with caplog.at_level(logging.WARNING):
        at = run_page("memory", {**LINK, "users": "50", "unit": "GB"}, editor=True)
        at.run()
    assert not at.exception
    assert not [r for r in caplog.records if "created with a default value" in r.getMessage()]
