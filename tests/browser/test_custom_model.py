"""Issue 22, the custom model flow in a real browser: an uploaded config.json is planned at once in the same tab,
named after what it is, shown in the form and the sidebar, and kept when the navigation opens the Memory page.

Before: the form below the upload kept Llama-3.1-8B's figures, the plan opened only in a new tab, the Memory
entry of the navigation went back to Llama-3.1-8B, and the model was called "config.json".
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from tests.browser.server import wait_for_chart

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "tests/fixtures/configs/google--gemma-4-26B-A4B.json"
NAME = "Gemma4ForConditionalGeneration (uploaded config.json)"


def test_an_uploaded_config_is_planned_here_and_stays(page, app_url: str, tmp_path: Path) -> None:
    upload = tmp_path / "config.json"
    upload.write_text(CONFIG.read_text(encoding="utf-8"), encoding="utf-8")
    hidden = json.loads(upload.read_text(encoding="utf-8"))["text_config"]["hidden_size"]
    page.goto(f"{app_url}/custom")
    page.locator("input[type=file]").set_input_files(str(upload))
    # the sidebar's own line, waited for there: the page names the model in its body a run before the sidebar's
    # summary is redrawn, so reading the sidebar as soon as the body has the name raced on a loaded machine (CI)
    page.wait_for_function(
        "(t) => (document.querySelector(\"[data-testid='stSidebar']\") || {innerText: ''}).innerText.includes(t)",
        arg=f"Planning {NAME}, a custom model",
        timeout=60_000,
    )
    page.wait_for_function(
        "(v) => [...document.querySelectorAll('input')].some(i => i.getAttribute('aria-label') === 'hidden_size' "
        "&& i.value === v)",
        arg=str(hidden),
        timeout=30_000,
    )  # the form shows the upload's figures (it kept Llama-3.1-8B's 4096)
    assert parse_qs(urlsplit(page.url).query).get("spec"), "the model travels in the address bar"
    page.get_by_role("link", name="Memory").first.click()  # the navigation, in this tab
    wait_for_chart(page)
    assert len(page.context.pages) == 1, "nothing opened in a new tab"
    title = page.locator("h1").first.inner_text()
    assert title.startswith(f"{NAME} on 1 × "), title
