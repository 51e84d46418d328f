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
    assert not at.sidebar.children, "no sidebar on a cold link's first paint: collapsed, drawn in the next run"


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
    run it, and no signal; the session's next run (the reader's) draws its page whole."""
    hybrid = {"model": "Qwen/Qwen3.5-27B", "gpu": "h100-sxm-80gb", "gpus": "2", "kv": "fp8", "engine": "trtllm"}
    at = run_page("memory", hybrid, first_paint=True)
    assert "linear-attention / Mamba layers" in texts(at.error)[0]
    assert at.get("bidi_component") == []
    at.query_params["engine"] = "vllm"
    at.run()
    assert at.get("bidi_component") == [] and len(at.get("html")) >= 2


def test_the_first_run_writes_the_address_bar_the_whole_page_writes() -> None:
    """The page's own settings (the deployment's, at their defaults) are in the address bar from the first run:
    the signal's rerun changes nothing there (no second history entry, no link copied without them)."""
    at = run_page("memory", LINK, first_paint=True)
    first = dict(at.query_params)
    at.run()
    assert dict(at.query_params) == first
    assert "hit_rate" in first  # a deployment setting, written by the first run too


def test_the_results_warnings_are_under_the_first_paints_verdict() -> None:
    """The plan's own warnings qualify the verdict: they come with it, not a moment later (a Mac's GPU share that
    leaves the OS too little)."""
    mac = {"model": "meta-llama/Llama-3.1-8B", "gpu": "apple-m4-max", "engine": "llamacpp", "gpu_share": "0.99"}
    at = run_page("memory", mac, first_paint=True)
    assert at.get("bidi_component")
    assert any("GPU share leaves the OS 1.28 GiB" in w for w in texts(at.warning)), texts(at.warning)


def _chart_place(at: AppTest) -> tuple[int, ...]:
    """Where the chart sits in the page's element tree (the path of child indices from the main block)."""

    def find(node: object, path: tuple[int, ...]) -> tuple[int, ...] | None:
        if getattr(node, "type", None) == "vega_lite_chart":
            return path
        for index, child in getattr(node, "children", {}).items():
            found = find(child, (*path, index))
            if found is not None:
                return found
        return None

    place = find(at.main, ())
    assert place is not None
    return place


def test_the_chart_keeps_its_place_when_the_page_fills_in() -> None:
    """The headline figures arrive above the chart in a container the first run already sent, so the browser keeps
    the chart it has drawn (an element moved to another place is drawn anew)."""
    at = run_page("memory", LINK, first_paint=True)
    first = _chart_place(at)
    at.run()
    assert _chart_place(at) == first
    assert len(at.get("html")) >= 2


@pytest.mark.parametrize(
    ("summary_drawn", "opened", "editor_next"), [(True, False, False), (False, False, True), (True, True, True)]
)
def test_the_signals_rerun_keeps_what_the_sidebar_drew(
    monkeypatch: pytest.MonkeyPatch, summary_drawn: bool, opened: bool, editor_next: bool
) -> None:
    """The rerun the signal asks for was not the reader's: the summary stays where it was drawn, the editor where
    it was drawn or where the reader has opened the summary's expander (a click whose run the signal's rerun
    interrupted before it drew the editor)."""
    state = {setup_summary.EDITOR_KEY: True, setup_summary.SHOWN_KEY: summary_drawn, setup_summary.OPEN_KEY: opened}
    monkeypatch.setattr(setup_summary.st, "session_state", state)
    setup_summary.keep_summary()
    assert state[setup_summary.EDITOR_KEY] is editor_next


DEPLOYMENT = "Deployment: offload, KV tier, LoRA, speculation, shared and mixed GPUs"


def test_the_closed_deployment_section_comes_with_the_rest_of_the_page() -> None:
    """At its defaults the Deployment section is a closed box below the chart: a cold link's first run does not draw
    it (one element fewer before the chart), the signal's rerun does; a link that sets one of its settings draws it
    open from the first run (the settings it shows are the plan's)."""
    at = run_page("memory", LINK, first_paint=True)
    assert DEPLOYMENT not in [e.label for e in at.main.get("expander")]
    at.run()
    assert DEPLOYMENT in [e.label for e in at.main.get("expander")]
    used = run_page("memory", {**LINK, "used_mem": "10"}, first_paint=True)
    assert DEPLOYMENT in [e.label for e in used.main.get("expander")] and used.get("bidi_component")


def test_the_summary_is_one_markdown_element() -> None:
    """The set-up summary's heading and lines are one Markdown element (each element costs a cold link's browser
    time before the chart), the expander that opens the editor under it: in the sidebar of a deep link to another
    page, at the main column's end once a cold link to the Memory page has drawn its chart (its sidebar collapsed)."""
    at = run_page("what_if", LINK, first_paint=True)
    (summary,) = at.sidebar.markdown
    assert summary.value.startswith("### Set-up\n\n**Model:** Llama 3") and "**Users:**" in summary.value
    memory = run_page("memory", LINK, first_paint=True)
    memory.run()
    summary = memory.main.markdown[-1]
    assert summary.value.startswith("### Set-up\n\n**Model:** Llama 3") and "**Users:**" in summary.value
    assert memory.main.expander[-1].label == setup_summary.OPEN_LABEL
