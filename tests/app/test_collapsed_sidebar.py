"""A cold link to the Memory page opens with its sidebar collapsed and draws nothing in it on its first run
(ui.first_paint.sidebar_state): the first paint is the answer alone at the width it keeps; the navigation and the
editor come with the rest of the page, the set-up in words at the main column's end, the editor one click away.
A bare URL, a link to another page and a set-up with an alert keep the sidebar open as before."""

from __future__ import annotations

from tests.app.conftest import figures, plain, run_page
from tests.app.test_setup_summary import SETUP_WIDGETS, _sidebar_widgets
from ui import first_paint, setup_summary

LINK = {"model": "meta-llama/Llama-3.1-70B", "gpus": "2", "weights": "fp8", "kv": "fp8", "users": "20"}
LAUNCH = {**LINK, "util": "0.85", "max_num_seqs": "64"}


def test_a_cold_link_collapses_the_sidebar_and_draws_nothing_in_it_first() -> None:
    at = run_page("memory", LINK, first_paint=True)
    assert at.session_state[first_paint.SIDEBAR_KEY] == "collapsed"
    assert not at.sidebar.children and at.get("bidi_component")
    at.run()  # the signal's rerun, once the chart is drawn
    assert set(SETUP_WIDGETS) <= _sidebar_widgets(at), "the editor, not the summary, behind the collapsed sidebar"
    assert at.session_state[first_paint.SIDEBAR_KEY] == "collapsed"


def test_the_main_column_says_what_the_sidebar_would() -> None:
    """Every line of the sidebar's summary (the launch settings and memory fraction among them, which no other
    part of the page states) is in the main column once the chart is drawn."""
    at = run_page("memory", LAUNCH, first_paint=True)
    at.run()
    summary = plain(at.main.markdown[-1].value).replace("**", "")
    for line in ("Engine: vLLM 0.31.0, memory fraction 0.85", "Launch: --max-num-seqs 64", "Users: 20 at once"):
        assert line in summary, summary


def test_the_same_link_opens_the_same_view() -> None:
    """The address bar and the figures are those of a session that has interacted (the sidebar open)."""
    cold, warm = run_page("memory", LAUNCH, first_paint=True), run_page("memory", LAUNCH, editor=True)
    cold.run()
    assert dict(cold.query_params) == dict(warm.query_params)
    assert figures(cold.main) == figures(warm.main)
    assert [a.value for a in cold.success] == [a.value for a in warm.success]


def test_one_click_opens_the_sidebars_editor() -> None:
    at = run_page("memory", LINK, first_paint=True)
    at.run()
    at.session_state[setup_summary.OPEN_KEY] = True  # what clicking the main column's expander sends
    at.run()
    assert at.session_state[first_paint.SIDEBAR_KEY] == "expanded"
    assert set(SETUP_WIDGETS) <= _sidebar_widgets(at)
    assert setup_summary.OPEN_LABEL not in [e.label for e in at.main.expander]


def test_a_bare_url_and_other_pages_keep_the_sidebar_open() -> None:
    for page, params in (("memory", {}), ("what_if", LINK), ("advisor", LINK)):
        at = run_page(page, params, first_paint=True)
        assert at.session_state[first_paint.SIDEBAR_KEY] == "auto", page
        assert setup_summary.OPEN_LABEL in [e.label for e in at.sidebar.expander], page


def test_a_set_up_with_an_alert_opens_the_sidebar_at_once() -> None:
    """A link the sidebar has something to say about (a damaged custom model: an error) opens it with the editor."""
    at = run_page("memory", {**LINK, "spec": "m1.AAAA"}, first_paint=True)
    assert at.session_state[first_paint.SIDEBAR_KEY] == "expanded"
    assert at.sidebar.error and set(SETUP_WIDGETS) <= _sidebar_widgets(at)


def test_a_first_run_without_a_chart_draws_its_sidebar_at_once() -> None:
    """A refused set-up has no chart and no signal: the first run reruns, and the sidebar is drawn."""
    hybrid = {"model": "Qwen/Qwen3.5-27B", "gpu": "h100-sxm-80gb", "gpus": "2", "kv": "fp8", "engine": "trtllm"}
    at = run_page("memory", hybrid, first_paint=True)
    assert "linear-attention / Mamba layers" in plain(at.error[0].value)
    assert set(SETUP_WIDGETS) <= _sidebar_widgets(at)
