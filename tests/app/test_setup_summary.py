"""A cold link's set-up: summarised in words at the top of the sidebar, the full editor one click away, and nothing
lost: the same settings in the address bar, the same answer, the editor for good once the reader does anything, and
at once when the set-up has something to say (ui.setup_summary)."""

from __future__ import annotations

import pytest

from tests.app.conftest import PAGES, figures, plain, run_page
from tests.app.test_pages import PARAMETER_SETS
from ui import setup_summary

SETUP_WIDGETS = ("model", "gpu", "gpus", "weights", "kv", "engine", "users", "unit", "context_pick")
VIEW = {"model": "meta-llama/Llama-3.1-70B", "gpus": "2", "weights": "fp8", "kv": "fp8", "context": "32768"}


def _sidebar_widgets(at) -> set[str]:
    kinds = ("selectbox", "number_input", "text_input", "select_slider", "button_group")
    return {str(w.key) for kind in kinds for w in getattr(at.sidebar, kind)}


def _summary(at) -> str:
    return "\n".join(plain(m.value).replace("**", "") for m in at.sidebar.markdown)


def test_a_cold_link_summarises_the_set_up_in_words() -> None:
    at = run_page("memory", {**VIEW, "users": "50"})
    assert not at.exception
    assert _sidebar_widgets(at) == set(), "no set-up widget on a cold link's first paint"
    summary = _summary(at)
    for line in (
        "Model: Llama 3.1 70B (meta-llama/Llama-3.1-70B)",
        "GPUs: 2 × H100 SXM5 80GB, TP 2 (auto: the largest legal split)",
        "Precisions: weights FP8 (block scales), KV cache FP8",
        "Engine: vLLM 0.31.0, memory fraction 0.92",
        "Context: 32k tokens (32,768)",
        "Users: 50 at once",
        "Unit: GiB (2^30 bytes)",
    ):
        assert line in summary, summary
    assert [e.label for e in at.sidebar.expander] == [setup_summary.OPEN_LABEL]


def test_one_click_opens_the_editor_and_it_stays() -> None:
    at = run_page("memory", VIEW)
    at.session_state[setup_summary.OPEN_KEY] = True  # what clicking the expander sends (on_change="rerun")
    at.run()
    assert set(SETUP_WIDGETS) <= _sidebar_widgets(at)
    assert not at.sidebar.expander or setup_summary.OPEN_LABEL not in [e.label for e in at.sidebar.expander]
    at.number_input(key="users").set_value(41).run()
    assert set(SETUP_WIDGETS) <= _sidebar_widgets(at), "the editor stays drawn"
    assert at.query_params["users"] in ("41", ["41"])


def test_any_change_on_the_page_draws_the_editor_after_it() -> None:
    at = run_page("what_if", VIEW)
    assert _sidebar_widgets(at) == set()
    at.toggle(key="contiguous").set_value(True).run()
    assert not at.exception
    assert set(SETUP_WIDGETS) <= _sidebar_widgets(at)


# Every link of the page tests on the Memory page, and one on each other page.
CASES = [("memory", name) for name in sorted(PARAMETER_SETS)] + [(p, "mla-tp8") for p in sorted(PAGES) if p != "memory"]


@pytest.mark.parametrize(("page", "name"), CASES)
def test_the_summary_and_the_editor_put_the_same_link_and_answer_on_screen(page: str, name: str) -> None:
    """Every setting is read, checked and put in the address bar whichever is drawn."""
    summary, editor = run_page(page, PARAMETER_SETS[name]), run_page(page, PARAMETER_SETS[name], editor=True)
    assert not summary.exception and not editor.exception
    assert dict(summary.query_params) == dict(editor.query_params)
    assert figures(summary.main) == figures(editor.main)
    alerts = ("success", "warning", "error", "info")
    assert [[a.value for a in getattr(summary, kind)] for kind in alerts] == [
        [a.value for a in getattr(editor, kind)] for kind in alerts
    ]


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"calib": "not-a-calibration"}, "Estimates are used instead."),  # a damaged calibration: an error
        ({"engine": "trtllm"}, "extrapolated"),  # a release without a public log: a warning
        ({"spec": "damaged"}, "Using the catalog model."),
    ],
)
def test_a_set_up_with_something_to_say_draws_the_editor_at_once(params: dict[str, str], said: str) -> None:
    at = run_page("memory", params)
    assert not at.exception
    assert set(SETUP_WIDGETS) <= _sidebar_widgets(at)
    shown = " ".join(plain(str(a.value)) for kind in ("error", "warning", "info") for a in getattr(at.sidebar, kind))
    assert said in shown, shown
