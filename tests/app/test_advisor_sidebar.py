"""The advisor plans every catalog set-up under its own GPU, engine and precisions, so its sidebar draws what it
reads (the model, the context, the users, the unit) and says where the rest applies; the rest is kept: in the link,
and in the session for the next page (ui.sidebar.render_sidebar, ``hardware``)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.conftest import PAGES, run_page
from ui.sidebar import HARDWARE_NOT_HERE

LINK = {"model": "Qwen/Qwen3-8B", "gpu": "l40s", "gpus": "2", "weights": "fp8", "engine": "vllm", "util": "0.85"}
HARDWARE = {"gpu", "gpus", "tp", "pp", "weights", "kv", "engine", "engine_version", "util"}


def _sidebar_keys(at: AppTest) -> set[str]:
    widgets = [*at.sidebar.selectbox, *at.sidebar.number_input, *at.sidebar.checkbox, *at.sidebar.select_slider]
    return {str(w.key) for w in widgets}


def _query(at: AppTest, key: str) -> str:
    value = at.query_params[key]
    return value[0] if isinstance(value, list) else value


def test_the_advisor_sidebar_draws_the_workload_and_keeps_the_hardware() -> None:
    at = run_page("memory", LINK, editor=True)
    assert not at.exception and _sidebar_keys(at) | {"tp", "pp"} >= HARDWARE
    at.switch_page(PAGES["advisor"])
    at.run()
    assert not at.exception
    keys = _sidebar_keys(at)
    assert not keys & HARDWARE, keys & HARDWARE
    assert {"model", "context_exact", "users"} <= keys
    assert HARDWARE_NOT_HERE in [c.value for c in at.sidebar.caption]
    assert (_query(at, "gpu"), _query(at, "weights"), _query(at, "util")) == ("l40s", "fp8", "0.85")  # the link
    at.switch_page(PAGES["memory"])
    at.run()
    assert not at.exception
    assert at.selectbox(key="gpu").value == "l40s" and at.selectbox(key="weights").value == "fp8"
    assert at.number_input(key="gpus").value == 2 and at.number_input(key="util").value == 0.85


def test_a_cold_advisor_link_summarises_the_workload_alone() -> None:
    at = run_page("advisor", LINK)
    assert not at.exception
    summary = " ".join(str(m.value) for m in at.sidebar.markdown)
    assert "**Model:**" in summary and "**Users:**" in summary
    assert "**GPUs:**" not in summary and "**Engine:**" not in summary
