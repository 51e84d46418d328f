"""The Memory page's lazy sections in a real browser: a cold link sends no launch command, log box or source list;
a click draws each; a pasted log (and its comparison) is kept when its section is closed and opened again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.browser.server import wait_for_chart

LOGS = json.loads((Path(__file__).parents[1] / "fixtures" / "reference" / "engine-logs-public.json").read_text())
QUERY = "?engine=vllm&gpu=h100-sxm-80gb&util=0.95&context=8192"
IDLE = "() => !document.querySelector(\"[data-testid='stStatusWidget']\")"
CALIBRATE = "[data-testid='stExpander']:has(summary:has-text('Calibrate from my log'))"


def _settled(page: Any) -> None:
    page.wait_for_timeout(300)  # the rerun a click sends has started
    page.wait_for_function(IDLE, timeout=30_000)


def test_a_cold_link_sends_no_closed_section_and_a_click_draws_each(page: Any, app_url: str) -> None:
    page.goto(f"{app_url}/{QUERY}")
    wait_for_chart(page)
    assert not page.locator("[data-testid='stCode']").count()
    assert not page.locator("textarea").count()
    assert "KV per token:" not in page.inner_text("body")

    page.get_by_text("Launch commands").click()
    command = page.locator("[data-testid='stCode'] code").filter(has_text="vllm serve").first
    assert "--gpu-memory-utilization 0.95" in command.inner_text(timeout=30_000)
    page.keyboard.press("Escape")
    page.locator("summary").filter(has_text="Where the numbers come from").click()
    page.get_by_text("KV per token:").wait_for(timeout=30_000)


def test_a_pasted_log_is_kept_when_its_section_is_closed(page: Any, app_url: str) -> None:
    log = "\n".join(LOGS[0]["verbatim"])
    page.goto(f"{app_url}/{QUERY}")
    wait_for_chart(page)
    summary = page.locator(f"{CALIBRATE} summary")
    summary.click()
    box = page.get_by_label("Start-up log")
    box.fill(log)
    box.press("Control+Enter")  # a text area's value is sent on Ctrl+Enter (or on leaving it)
    page.get_by_role("button", name="Use the measured figures").wait_for(timeout=30_000)
    _settled(page)

    summary.click()  # closed: a rerun in which the box is closed
    page.locator(f"{CALIBRATE} details:not([open])").wait_for(timeout=30_000)
    _settled(page)
    summary.click()  # opened again
    _settled(page)
    assert page.get_by_label("Start-up log").input_value() == log
    assert page.locator(f"{CALIBRATE} [data-testid='stDataFrame']").count() == 1
    assert page.get_by_role("button", name="Use the measured figures").is_visible()
