"""``make screenshots``: a PNG of every page, for the README, from a real Chromium on a local server."""

from __future__ import annotations

import sys
import time

from tests.browser.server import CHROMIUM_ARGS, ROOT, chromium_path, running_app, wait_for_chart
from ui import links
from ui.state import Selection

OUT = ROOT / "docs" / "screenshots"
VIEW = Selection(
    model_id="meta-llama/Llama-3.1-70B",
    gpu_id="h100-sxm-80gb",
    gpu_count=2,
    tensor_parallel=2,
    weights="fp8",
    kv_dtype="fp8",
    context_tokens=32768,
    users=40,
)
# (file name, page path, page settings as lists, changed settings)
SHOTS: list[tuple[str, str, dict[str, list[str]], dict[str, str]]] = [
    ("memory", "", {}, {}),
    ("what_if", "what_if", {"curves": ["fp8/fp8", "bf16/bf16", "int4-awq/fp8"], "curve_gpus": ["a100-sxm-80gb"]}, {}),
    ("compare", "compare", {"combos": ["fp8/fp8", "bf16/bf16", "int4-awq/fp8"]}, {}),
    ("catalog", "catalog", {}, {}),
    ("custom", "custom", {}, {}),
    ("advisor", "advisor", {}, {}),
    ("does_not_fit", "", {}, {"gpus": "1", "tp": "1", "weights": "bf16"}),
]


def main() -> int:
    path = chromium_path()
    if path is None:
        print("Debian's chromium is required: apt-get install chromium", file=sys.stderr)
        return 2
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with running_app() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        for name, page_path, extra, changes in SHOTS:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{base}/{page_path}{links.query_string(VIEW, extra, **changes)}")
            try:
                wait_for_chart(page, timeout_ms=20_000)
            except PlaywrightTimeout:  # pages without a chart (catalog, custom): give the run time to finish
                page.wait_for_timeout(3000)
            time.sleep(1.0)
            if "Page not found" in page.inner_text("body"):
                page.close()
                continue
            page.screenshot(path=str(OUT / f"{name}.png"), full_page=True)
            print(f"wrote {OUT / f'{name}.png'}")
            page.close()
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
