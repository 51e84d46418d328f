"""Sections a run does not draw while closed: the "Share and export" popover, the sidebar's "Launch settings", and
the Memory page's "Launch commands" popover, "Calibrate from my log" and "Where the numbers come from" expanders.

Every element a run sends, the browser re-renders on every run (a slider move): ~3-5 ms each on two cores
(``make bench``; docs/benchmarks.md). Closed, these sections draw only their label; opened (what the reader's click
sends: their key in the session, ``on_change="rerun"``) or holding a setting, everything in them is drawn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from planner.engines.launch import launch_commands
from planner.engines.registry import engines
from planner.planning.plan import plan
from tests.app.conftest import CALIBRATE, COMMANDS, SOURCES, figures, plain, run_page
from ui.sidebar_launch import OPEN_KEY as LAUNCH_OPEN_KEY
from ui.state import Selection

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


LOGS = json.loads((Path(__file__).parents[1] / "fixtures" / "reference" / "engine-logs-public.json").read_text())
SOURCES_LINE = "- KV per token: 2 × layers × KV heads × head dim × bytes ="


def _sources(at: AppTest) -> list[str]:
    return [plain(m.value) for m in at.markdown if SOURCES_LINE in plain(m.value)]


def _answer(at: AppTest) -> dict[str, Any]:
    """Everything above and around the lazy sections: it is the same whether they are open or closed."""
    return {
        "title": [t.value for t in at.title],
        "alerts": [str(e.value) for e in (*at.success, *at.warning, *at.error, *at.info)],
        "metrics": figures(at),
        "html": [h.proto.body for h in at.get("html")],
        "chart": [c.proto.spec for c in at.get("vega_lite_chart")],
        "markdown": [m.value for m in at.markdown if SOURCES_LINE not in plain(m.value)],
        "captions": [c.value for c in at.caption if "Paste a vLLM" not in c.value],
    }


def test_the_memory_pages_closed_sections_send_nothing_and_open_ones_draw() -> None:
    closed = run_page("memory", HOME)
    assert not closed.exception
    assert {"Calibrate from my log", "Where the numbers come from"} <= {e.label for e in closed.expander}
    assert not closed.code and not closed.tabs and not closed.text_area and not _sources(closed)

    sel = Selection(model_id="Qwen/Qwen3-8B", gpu_id="rtx-3090", engine="vllm", context_tokens=8192)
    commands = launch_commands(sel.request(), plan(sel.request()))
    opened = run_page("memory", HOME, open_keys=[COMMANDS])
    assert [t.label for t in opened.tabs] == [engine.label for engine in engines()]
    assert [c.value for c in opened.code] == [commands[engine.name] for engine in engines()]
    assert not opened.text_area and not _sources(opened)

    opened = run_page("memory", HOME, open_keys=[CALIBRATE])
    assert [t.key for t in opened.text_area] == ["startup_log"] and not opened.code and not _sources(opened)
    assert any("Paste a vLLM, SGLang or llama.cpp start-up log" in c.value for c in opened.caption)

    opened = run_page("memory", HOME, open_keys=[SOURCES])
    [sources] = _sources(opened)
    assert f"- GPU memory: {sel.request().gpu_memory_bytes:,} bytes per GPU" in sources
    assert not opened.code and not opened.text_area

    every = run_page("memory", HOME, open_keys=[COMMANDS, CALIBRATE, SOURCES])
    assert _answer(every) == _answer(closed)  # the verdict, figures, chart, table, engine lines, alternatives


@pytest.mark.parametrize("closes", [False, True])
def test_a_pasted_log_is_kept_when_its_section_is_closed(closes: bool) -> None:
    """A widget a run does not draw loses its state: the box is drawn while it holds a log, closed or open."""
    log = "\n".join(LOGS[0]["verbatim"])
    at = run_page("memory", {**HOME, "gpu": "h100-sxm-80gb", "util": "0.95"}, open_keys=[CALIBRATE])
    at.text_area(key="startup_log").set_value(log).run()
    compared = at.dataframe[-1].value.to_dict()
    if closes:
        at.session_state[CALIBRATE] = False  # what clicking the open expander sends
    at.run()
    at.run()  # any later run (a slider move) too
    assert at.text_area(key="startup_log").value == log
    assert at.dataframe[-1].value.to_dict() == compared
    assert [b.label for b in at.button if b.label == "Use the measured figures"]


def test_a_calibration_in_use_keeps_its_section_drawn() -> None:
    log = "\n".join(LOGS[0]["verbatim"])
    at = run_page("memory", {**HOME, "gpu": "h100-sxm-80gb", "util": "0.95"}, open_keys=[CALIBRATE])
    at.text_area(key="startup_log").set_value(log).run()
    [use] = [b for b in at.button if b.label == "Use the measured figures"]
    use.click().run()
    link = {k: v if isinstance(v, str) else v[0] for k, v in at.query_params.items()}
    assert link["calib"].startswith("cal1~vllm~")
    cold = run_page("memory", link)  # a shared link with the calibration, the section closed
    assert not cold.exception and not cold.session_state[CALIBRATE]
    assert "Go back to estimates" in [b.label for b in cold.button]


def test_the_advisor_writes_its_recommendation_only_where_it_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recommendation (a scan of every option for the alternatives) is made for the "Why" expander when open and
    for the report when its button is pressed, not on every run (a slider move) for a report nobody asked for."""
    import planner.advisor
    from ui.advisor_settings import WHY_OPEN_KEY
    from ui.common import SHARE_OPEN_KEY

    made: list[object] = []
    real = planner.advisor.recommendation
    monkeypatch.setattr(planner.advisor, "recommendation", lambda ranking: made.append(ranking) or real(ranking))
    at = run_page("advisor", HOME)
    assert not at.exception
    assert not made
    at.session_state[SHARE_OPEN_KEY] = True  # the popover open: its buttons drawn, its report not yet written
    at.run()
    assert "HTML report" in [b.label for b in at.get("download_button")]
    assert not made
    at.session_state[WHY_OPEN_KEY] = True
    at.run()
    assert len(made) == 1
