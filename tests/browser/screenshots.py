"""``make screenshots``: a PNG of every page, for the README, from a real Chromium on a local server; the
Memory and what-if pages also at a phone's width (390 px).

Streamlit scrolls inside its own container, so a "full page" screenshot would stop at the window: the window
is grown to the page's height first (at most :data:`MAX_HEIGHT`)."""

from __future__ import annotations

import sys
import time
from typing import Any, NamedTuple

from tests.browser.server import CHROMIUM_ARGS, ROOT, chromium_path, running_app, wait_for_chart
from tests.ui.views import llama_70b_fp8
from ui import links

OUT = ROOT / "docs" / "screenshots"
DESKTOP, PHONE = 1400, 390
MAX_HEIGHT = 4200
VIEW = llama_70b_fp8(40, gpu_id="h100-sxm-80gb")
# Four weight / KV pairs on three GPUs: the what-if as the issue tried it.
FOUR_BY_THREE = {
    "curves": ["fp8/fp8", "bf16/bf16", "int4-awq/fp8", "fp8/bf16"],
    "curve_gpus": ["a100-sxm-80gb", "h100-pcie-80gb"],
    "contiguous": ["true"],
}


class Shot(NamedTuple):
    name: str
    path: str
    page: dict[str, list[str]]
    changes: dict[str, str]
    width: int = DESKTOP


SHOTS = [
    Shot("memory", "", {}, {}),
    Shot("memory_phone", "", {}, {}, PHONE),
    Shot("what_if", "what_if", FOUR_BY_THREE, {"users": "50"}),
    Shot("what_if_phone", "what_if", FOUR_BY_THREE, {"users": "50"}, PHONE),
    Shot("compare", "compare", {"combos": ["fp8/fp8", "bf16/bf16", "int4-awq/fp8"]}, {}),
    Shot("catalog", "catalog", {}, {}),
    Shot("custom", "custom", {}, {}),
    Shot("advisor", "advisor", {}, {}),
    Shot("does_not_fit", "", {}, {"gpus": "1", "tp": "1", "weights": "bf16"}),
]


def _whole_page(page: Any, width: int) -> None:
    """Grow the window to the page's height so that the screenshot holds all of it."""
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll(\"[data-testid='stMain'], section\")]"
        ".map(e => e.scrollHeight), document.body.scrollHeight)"
    )
    page.set_viewport_size({"width": width, "height": min(int(height) + 40, MAX_HEIGHT)})
    time.sleep(1.0)


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
        for shot in SHOTS:
            phone = shot.width < 600
            context = browser.new_context(viewport={"width": shot.width, "height": 900}, is_mobile=phone)
            page = context.new_page()
            page.goto(f"{base}/{shot.path}{links.query_string(VIEW, shot.page, **shot.changes)}")
            try:
                wait_for_chart(page, timeout_ms=30_000)
            except PlaywrightTimeout:  # pages without a chart (catalog, custom): give the run time to finish
                page.wait_for_timeout(3000)
            time.sleep(1.0)
            if "Page not found" in page.inner_text("body"):
                context.close()
                continue
            _whole_page(page, shot.width)
            page.screenshot(path=str(OUT / f"{shot.name}.png"), full_page=True)
            print(f"wrote {OUT / f'{shot.name}.png'}")
            context.close()
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
