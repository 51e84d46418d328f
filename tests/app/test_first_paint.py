"""A cold link's first run of the Memory page draws the answer alone and a signal that reruns the page once the
browser has drawn the chart (ui.first_paint); the rerun draws the whole page, with the set-up still summarised."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import plain, run_page, texts
from ui import setup_summary
from ui.first_paint import SEEN_KEY, SIGNAL_KEY

LINK = {"model": "meta-llama/Llama-3.1-70B", "gpus": "2", "weights": "fp8", "kv": "fp8"}
ENGINE_LINES = "What vLLM 0\\.31\\.0 will print at start\\-up"


def _kinds(at: AppTest) -> list[str]:
    return [type(element).__name__ for element in at.main]


def test_the_first_run_draws_the_answer_and_the_signal() -> None:
    at = run_page("memory", LINK, first_paint=True)
    assert plain(at.title[0].value).startswith("Llama 3.1 70B on 2 × H100")
    assert "holds 435,296 tokens of FP8 KV cache" in at.success[0].value  # the verdict (the README's example)
    assert len(at.get("vega_lite_chart")) == 1
    assert [e.key for e in at.get("bidi_component")] == [SIGNAL_KEY]
    assert at.get("html") == []  # no headline figures, no breakdown table
    assert [s.value for s in at.subheader] == []  # nor the engine's lines, the nearest set-ups, the sources
    assert at.session_state[SEEN_KEY] is True
    assert at.sidebar.get("expander")[0].label == setup_summary.OPEN_LABEL  # the set-up as a summary


def test_the_next_run_draws_the_whole_page_once() -> None:
    at = run_page("memory", LINK, first_paint=True)
    first_verdict = at.success[0].value
    at.run()
    assert at.success[0].value == first_verdict
    assert len(at.get("html")) >= 2  # the headline figures and the breakdown table
    assert ENGINE_LINES in [s.value for s in at.subheader]
    assert at.get("bidi_component") == []  # no signal: the page is whole


def test_a_refused_set_up_draws_its_refusal_whole() -> None:
    """A set-up its engine refuses has no chart to wait for: its first run draws the refusal and the engines that
    run it, and no signal; its next run (the reader's) is the first with a chart, drawn as a first paint."""
    hybrid = {"model": "Qwen/Qwen3.5-27B", "gpu": "h100-sxm-80gb", "gpus": "2", "kv": "fp8", "engine": "trtllm"}
    at = run_page("memory", hybrid, first_paint=True)
    assert "linear-attention / Mamba layers" in texts(at.error)[0]
    assert at.get("bidi_component") == []
    assert SEEN_KEY not in at.session_state


@pytest.mark.parametrize(("summary_drawn", "editor_next"), [(True, False), (False, True)])
def test_the_signals_rerun_keeps_what_the_sidebar_drew(
    monkeypatch: pytest.MonkeyPatch, summary_drawn: bool, editor_next: bool
) -> None:
    """The rerun the signal asks for was not the reader's: the summary stays where it was drawn, the editor where
    the reader had opened it (on another page, before this one's first run)."""
    state = {setup_summary.EDITOR_KEY: True, setup_summary.SHOWN_KEY: summary_drawn}
    monkeypatch.setattr(setup_summary.st, "session_state", state)
    setup_summary.keep_summary()
    assert state[setup_summary.EDITOR_KEY] is editor_next
