"""Sections a run does not draw while closed: the "Share and export" popover and the sidebar's "Launch settings".

Every element a run sends, the browser re-renders on every run (a slider move): ~3-5 ms each on two cores
(``make bench``; docs/benchmarks.md). Closed, these sections draw only their label; opened (what the reader's click
sends: their key in the session, ``on_change="rerun"``) or holding a setting, everything in them is drawn.
"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.conftest import run_page
from ui.sidebar_launch import OPEN_KEY as LAUNCH_OPEN_KEY

HOME = {"model": "Qwen/Qwen3-8B", "gpu": "rtx-3090", "engine": "vllm", "context": "8192"}
LAUNCH_KEYS = {"max_num_batched_tokens", "max_num_seqs", "enforce_eager", "kv_cache_memory_gib"}


def _launch_widgets(at: AppTest) -> set[str]:
    widgets = [*at.sidebar.number_input, *at.sidebar.checkbox]
    return {w.key for w in widgets} & LAUNCH_KEYS


def test_share_popover_closed_draws_no_link_or_button() -> None:
    for page in ("memory", "advisor"):
        closed = run_page(page, HOME)
        assert not closed.exception
        assert not [c for c in closed.code if "?model=" in c.value], page
        assert not closed.get("download_button"), page
        opened = run_page(page, HOME, share=True)
        assert [c for c in opened.code if "?model=" in c.value], page
        assert "HTML report" in [b.label for b in opened.get("download_button")], page


def test_launch_settings_closed_draw_no_box() -> None:
    closed = run_page("memory", HOME, editor=True)
    assert not closed.exception
    assert not _launch_widgets(closed)
    assert "max_num_seqs" not in closed.query_params  # the engine's default, as before

    at = run_page("memory", HOME, editor=True)
    at.session_state[LAUNCH_OPEN_KEY] = True  # what clicking the expander sends
    at.run()
    assert _launch_widgets(at) == LAUNCH_KEYS


def test_a_launch_setting_in_the_link_keeps_its_box_drawn() -> None:
    at = run_page("memory", {**HOME, "max_num_seqs": "2"}, editor=True)
    assert "max_num_seqs" in _launch_widgets(at)
    assert at.number_input(key="max_num_seqs").value == 2
    assert at.query_params["max_num_seqs"] in ("2", ["2"])
    at.number_input(key="max_num_seqs").set_value(None).run()  # cleared: the box stays until the next run closes it
    assert "max_num_seqs" not in at.query_params
