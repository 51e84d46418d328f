"""Hostile input through the dashboard (issue 11): every page opens, names what it refused, raises nothing."""

from __future__ import annotations

import time

import pytest
import streamlit as st

from bench.load import LLAMA_8B, packed_spec
from tests.app.conftest import CALIBRATE, run_page, texts
from ui.shared_cache import ANSWERS
from ui.turns import Turns

AVAILABLE = "INFO 04-22 00:04:20 [v1/worker/gpu_worker.py:436] Available KV cache memory: 58.11 GiB"


def test_an_absurd_log_figure_is_named_before_the_measured_figures_are_offered() -> None:
    """'Model loading took <400 digits> GiB' then 'Use the measured figures': a named error, no button, no crash;
    a 15-digit figure (10^24 bytes) too, which before the fix made a calibration no link could carry."""
    for figure in ("9" * 400, "999999999999999"):
        at = run_page("memory", {"engine": "vllm"}, open_keys=[CALIBRATE])
        at.text_area(key="startup_log").set_value(f"{AVAILABLE}\nINFO Model loading took {figure} GiB in 5 s").run()
        assert not at.exception, [e.value for e in at.exception]
        assert any("weights" in e for e in texts(at.error)), texts(at.error)
        assert not [b for b in at.button if b.label == "Use the measured figures"]
        assert "calib" not in at.query_params


def test_a_sane_log_is_still_offered() -> None:
    at = run_page("memory", {"engine": "vllm"}, open_keys=[CALIBRATE])
    at.text_area(key="startup_log").set_value(f"INFO Model loading took 14.99 GiB in 5 s\n{AVAILABLE}").run()
    [use] = [b for b in at.button if b.label == "Use the measured figures"]
    use.click().run()
    assert not at.exception
    calibration = at.query_params["calib"]
    assert (calibration if isinstance(calibration, str) else calibration[0]).startswith("cal1~vllm~")


def test_custom_page_opens_on_the_longest_context_model() -> None:
    """/custom?model=meta-llama/Llama-4-Scout-17B-16E crashed: its 10,485,760-token context was above the form's
    maximum."""
    at = run_page("custom", {"model": "meta-llama/Llama-4-Scout-17B-16E"})
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="custom_form.max_position_embeddings").value == 10_485_760


def test_custom_form_names_a_total_that_contradicts_the_shape() -> None:
    at = run_page("custom", {"model": "meta-llama/Llama-3.1-8B"})
    at.number_input(key="custom_form.Total parameters, if known (0: compute from the shape)").set_value(16 * 10**9)
    at.button(key="FormSubmitter:custom_model-Plan this model").click().run()
    assert not at.exception, [e.value for e in at.exception]
    errors = texts(at.error)
    assert any("num_parameters (16,000,000,000) contradicts" in e for e in errors), errors
    assert not at.success


@pytest.mark.parametrize("page", ["memory", "what_if", "advisor"])
def test_a_page_over_its_budget_names_it(monkeypatch: pytest.MonkeyPatch, page: str) -> None:
    """Each page run has a wall-clock budget (ui.frame.PAGE_BUDGET_SECONDS): over it, the planning stops with a
    named error instead of pinning a core. The caches are emptied first: a ranking or an answer another test left in
    a process-wide cache (Streamlit's, ui.shared_cache's) would let the page draw without planning anything."""
    st.cache_data.clear()
    st.cache_resource.clear()
    ANSWERS.clear()
    monkeypatch.setattr("ui.frame.PAGE_BUDGET_SECONDS", 0.0)
    at = run_page(page)
    assert not at.exception, [e.value for e in at.exception]
    assert any("took longer than its budget of 0 s" in e for e in texts(at.error)), texts(at.error)


def test_a_run_that_waits_its_whole_budget_for_a_turn_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """At most ui.frame.CONCURRENT_RUNS runs draw at once (ui.turns); one that gets no turn within its budget says
    so."""
    taken = Turns(slots=1)
    taken.admit("another visitor", 1.0)
    monkeypatch.setattr("ui.frame.TURNS", taken)
    monkeypatch.setattr("ui.frame.PAGE_BUDGET_SECONDS", 0.05)
    at = run_page("memory")
    assert not at.exception, [e.value for e in at.exception]
    assert any("The server is busy" in e for e in texts(at.error)), texts(at.error)


ISSUE_LINKS = {
    "a million layers (pinned a core 15-20 min)": (
        {"spec": packed_spec({**LLAMA_8B, "num_hidden_layers": 1e6})},
        "spec",
    ),
    "ten million layers by pattern": (
        {"spec": packed_spec({**LLAMA_8B, "num_hidden_layers": 10**7, "layer_pattern": ["sliding", "full"]})},
        "spec",
    ),
    "3M nested brackets": ({"spec": packed_spec("[" * 3_000_000)}, "spec"),
    "context above 2^53": ({"spec": packed_spec({**LLAMA_8B, "max_position_embeddings": 2**53 + 1})}, "spec"),
    "hidden size of 10^400": ({"spec": packed_spec({**LLAMA_8B, "hidden_size": 10**400})}, "spec"),
    "16B parameters on an 8B shape": ({"spec": packed_spec({**LLAMA_8B, "num_parameters": 16 * 10**9})}, "spec"),
    "calib with w²": ({"calib": "cal1~vllm~0.19.0~0.9~w\u00b2"}, "calib"),
    "calib with 400 digits": ({"calib": "cal1~vllm~0.19.0~0.9~w" + "9" * 400}, "calib"),
    "calib with 5,000 digits": ({"calib": "cal1~vllm~0.19.0~0.9~w" + "9" * 5_000}, "calib"),
    "calib with 16 digits": ({"calib": "cal1~vllm~0.19.0~0.9~w" + "9" * 16}, "calib"),
}


@pytest.mark.parametrize("case", list(ISSUE_LINKS))
def test_the_issues_links_are_named_and_quick(case: str) -> None:
    """Each crashed the dashboard (Streamlit's generic error) or pinned a core before the fixes."""
    params, name = ISSUE_LINKS[case]
    start = time.perf_counter()
    at = run_page("memory", params)
    assert time.perf_counter() - start < 15
    assert not at.exception, [e.value for e in at.exception]
    notes = " ".join(w.value for w in at.warning if "ignored" in w.value)
    assert f"`{name}`" in notes, (texts(at.warning), texts(at.error))
    assert at.title, "the page still draws the catalog model"
