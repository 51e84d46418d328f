"""The engine section, calibration from a pasted log, the Hub import and the custom model, through AppTest
(the Hub is the loopback stand-in of tests/sources/hub)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import streamlit as st

from model_catalog import get_model
from planner.engines.launch import launch_commands
from planner.engines.registry import engine_report
from planner.planning.plan import plan
from tests.app.conftest import CALIBRATE, COMMANDS, SOURCES, plain, run_page, texts
from tests.sources.hub.conftest import TOKEN, HubServer, hub  # noqa: F401  (the fake Hub fixture)
from ui.custom_spec import encode_spec
from ui.imports import FAILURES, HUB_FAILURE_TTL_SECONDS
from ui.sidebar import TOKEN_KEY
from ui.state import Selection
from ui.tables import preformatted

LOGS = json.loads((Path(__file__).parents[1] / "fixtures" / "reference" / "engine-logs-public.json").read_text())


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    st.cache_data.clear()
    FAILURES.clear()


def _page_text(at) -> str:
    parts = [
        str(getattr(e, "value", ""))
        for e in (
            *at.markdown,
            *at.code,
            *at.get("html"),
            *at.error,
            *at.warning,
            *at.success,
            *at.info,
            *at.caption,
            *at.title,
        )
    ]
    return "\n".join(parts)


def test_engine_lines_and_commands_equal_the_planner() -> None:
    at = run_page("memory", {"engine": "vllm", "util": "0.95", "context": "8192"}, open_keys=[COMMANDS])
    sel = Selection(engine="vllm", util=0.95, context_tokens=8192)
    request = sel.request()
    result = plan(request)
    report = engine_report(request, result)
    codes = [c.value for c in at.code]
    printed = [h.proto.body for h in at.get("html") if "hr-pre" in h.proto.body]
    assert printed == [preformatted(report.lines)]  # monospace, escaped; no code highlighter to load
    assert any(line.startswith("Available KV cache memory:") for line in report.lines)
    commands = launch_commands(request, result)
    assert commands["vllm"] in codes and commands["llamacpp"] in codes
    assert "--gpu-memory-utilization 0.95 --max-model-len 8192" in commands["vllm"]


def test_calibrate_from_a_pasted_log() -> None:
    case = LOGS[0]
    at = run_page("memory", {"engine": "vllm", "util": "0.95", "context": "8192"}, open_keys=[CALIBRATE])
    at.text_area(key="startup_log").set_value("\n".join(case["verbatim"])).run()
    table = at.dataframe[-1].value
    logged = dict(zip(table["figure"], table["log"], strict=True))
    assert logged["available KV cache (GiB)"] == pytest.approx(58.11)  # the rows `calibrate` prints
    assert logged["KV cache tokens (tokens)"] == 476016
    at.button[0].click().run()
    calibration = at.query_params["calib"]
    assert (calibration if isinstance(calibration, str) else calibration[0]).startswith("cal1~vllm~")
    assert any("measured from a pasted start-up log" in i.value for i in at.info)


def test_unreadable_log_says_what_was_expected() -> None:
    at = run_page("memory", {"engine": "vllm"}, open_keys=[CALIBRATE])
    at.text_area(key="startup_log").set_value("hello, this is not a log").run()
    assert any("Available KV cache memory" in e for e in texts(at.error))
    assert not at.exception


def test_hub_import_plans_the_repository(hub: HubServer) -> None:  # noqa: F811
    at = run_page("memory", {"hf": "Qwen/Qwen3-30B-A3B", "gpu": "h100-sxm-80gb"}, open_keys=[COMMANDS, SOURCES])
    assert not at.exception
    assert any("Planning Qwen/Qwen3-30B-A3B from the Hub" in s for s in texts(at.success))
    catalog = get_model("Qwen/Qwen3-30B-A3B").spec
    title = plain(at.title[0].value)
    assert title.startswith(catalog.display_name) or "Qwen3-30B-A3B" in title
    assert TOKEN not in _page_text(at)


def test_hub_import_preselects_the_checkpoint_precision(hub: HubServer) -> None:  # noqa: F811
    at = run_page("memory", {"hf": "Qwen/Qwen2.5-7B-Instruct-AWQ"})
    assert at.session_state["weights"] == "int4-awq"


def test_hub_import_failure_keeps_the_view(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.delenv("HF_TOKEN")
    at = run_page("memory", {"hf": "meta-llama/Llama-3.1-8B", "context": "4096"})
    assert any("Import failed" in e and "gated" in e for e in texts(at.error))
    assert at.session_state["context"] == 4096 and at.title, "the rest of the view stays"
    missing = run_page("memory", {"hf": "nobody/nothing-here"})
    assert any("Import failed" in e for e in texts(missing.error))
    garbage = run_page("memory", {"hf": "https://evil.example/x/y"})
    assert any("Import failed" in e for e in texts(garbage.error)) and not garbage.exception


def test_token_from_the_password_field_never_reaches_page_or_url(hub: HubServer, monkeypatch) -> None:  # noqa: F811
    monkeypatch.delenv("HF_TOKEN")
    at = run_page("memory", {"hf": "acme/private-model"})
    assert any("Import failed" in e for e in texts(at.error)), (
        [e.value for e in at.error],
        [s.value for s in at.success],
        at.exception,
    )
    at.text_input(key=TOKEN_KEY).set_value(TOKEN).run()
    assert any("Planning acme/private-model" in s for s in texts(at.success))
    assert TOKEN not in _page_text(at)
    assert all(TOKEN not in str(v) for v in at.query_params.values())


def test_custom_model_travels_in_the_link() -> None:
    spec = get_model("mistralai/Mistral-7B-v0.1").spec.model_copy(update={"id": "acme/my-7b", "name": "My 7B"})
    at = run_page("memory", {"spec": encode_spec(spec), "gpu": "l4"})
    assert at.title[0].value.startswith("My 7B on 1 × ")
    expected = Selection(gpu_id="l4", imported=spec, model_origin="custom").assessment().sentence("GiB")
    assert expected in texts(at.success) + texts(at.warning) + texts(at.error)
    assert at.query_params["spec"] == [encode_spec(spec)] or at.query_params["spec"] == encode_spec(spec)


def test_damaged_custom_spec_and_calibration_are_reported() -> None:
    at = run_page("memory", {"spec": "m1.AAAA", "calib": "cal9~nope"})
    assert not at.exception
    errors = " ".join(texts(at.error))
    assert "spec:" in errors and "calibration:" in errors
    assert at.title, "the catalog model is planned instead"


def test_custom_form_names_the_field() -> None:
    at = run_page("custom")
    form_inputs = {n.label: n for n in at.number_input}
    form_inputs["num_key_value_heads"].set_value(7)
    at.button[0].click().run()
    assert any("num_attention_heads (32) must be a multiple of num_key_value_heads (7)" in e for e in texts(at.error))
    form_inputs = {n.label: n for n in at.number_input}
    form_inputs["num_key_value_heads"].set_value(8)
    at.button[0].click().run()
    # the model described is planned at once, in this tab (it used to be only a link that opened a new one)
    assert at.session_state["spec"] and at.query_params["spec"]
    assert any("Planning my-model, a custom model" in i for i in texts(at.info))


def test_hub_import_is_fetched_once_per_hour(hub: HubServer) -> None:  # noqa: F811
    run_page("memory", {"hf": "mistralai/Mistral-7B-v0.1"})
    fetched = len(hub.requests)
    assert fetched > 0
    again = run_page("memory", {"hf": "mistralai/Mistral-7B-v0.1", "gpu": "l40s"})
    assert len(hub.requests) == fetched, "a second session within the hour is served from the cache"
    assert any("Planning mistralai/Mistral-7B-v0.1" in s for s in texts(again.success))


def test_a_failed_import_is_remembered_for_a_while(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A failure is kept with its error for HUB_FAILURE_TTL_SECONDS (issue 25: a looping link to a failing repository
    downloaded it on every run), then the Hub is asked again."""
    first = run_page("memory", {"hf": "acme/appears-later"})
    assert any("Import failed" in e for e in texts(first.error))
    asked = len(hub.requests)
    hub.aliases["acme/appears-later"] = "mistralai/Mistral-7B-v0.1"
    second = run_page("memory", {"hf": "acme/appears-later"})
    assert any("not found" in e and "it is asked again after 300 s" in e for e in texts(second.error))
    assert len(hub.requests) == asked
    now = FAILURES.clock()
    monkeypatch.setattr(FAILURES, "clock", lambda: now + HUB_FAILURE_TTL_SECONDS)
    third = run_page("memory", {"hf": "acme/appears-later"})
    assert any("Planning acme/appears-later" in s for s in texts(third.success))


def test_a_token_pasted_as_the_repository_leaves_the_link() -> None:
    pasted = "hf_" + "Ab3" * 12
    at = run_page("memory", {"hf": pasted})
    assert not at.exception
    assert "hf" not in at.query_params
    assert at.session_state["hf"] == ""
    shown = _page_text(at) + " ".join(texts(at.warning))
    assert pasted not in shown and pasted not in str(dict(at.query_params))
    assert any("looked like an access token" in w for w in texts(at.warning))


def test_a_pasted_windows_log_says_to_set_the_machine() -> None:
    """An RTX 4090 WSL2 log (23.99 GiB, the card's whole memory) pasted on a Linux set-up of the same card: the page
    says to set the Machine to Windows; on the Windows machine it does not."""
    cases = json.loads(
        (Path(__file__).parents[1] / "fidelity" / "cases" / "vllm-blind-2026-12i.json").read_text(encoding="utf-8")
    )
    (case,) = [c for c in cases if c["id"] == "vllm-0.27-rtx4090-wsl2-qwen25-0.5b-2k-util085"]
    for host, hinted in (("linux", True), ("windows", False)):
        params = {"engine": "vllm", "gpu": "rtx-4090", "model": "Qwen/Qwen2.5-0.5B-Instruct", "host": host}
        at = run_page("memory", params, open_keys=[CALIBRATE])
        at.text_area(key="startup_log").set_value("\n".join(case["verbatim"])).run()
        shown = any("set the Machine to Windows" in i.value for i in at.info)
        assert shown is hinted and not at.exception
