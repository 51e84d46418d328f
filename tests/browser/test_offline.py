"""Every request a page load makes goes to the app's own host: nothing is fetched from outside (issue 11: the
favicon came from fonts.gstatic.com on every page load, which leaked each visit and failed offline)."""

from __future__ import annotations

from urllib.parse import urlsplit

from tests.app.conftest import PAGES

URL_PATHS = {"memory": "", "what_if": "what_if", "compare": "compare", "advisor": "advisor", "catalog": "catalog"}


def test_every_page_load_stays_on_the_apps_own_host(browser, app_url: str) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    try:
        for name in sorted(PAGES):
            page.goto(f"{app_url}/{URL_PATHS.get(name, name)}?model=meta-llama/Llama-3.1-8B")
            page.wait_for_selector("h1", timeout=30_000)
            page.wait_for_function("() => !document.querySelector(\"[data-testid='stStatusWidget']\")", timeout=30_000)
            page.wait_for_load_state("networkidle")
        icon = page.eval_on_selector("link[rel='shortcut icon']", "e => e.href")
    finally:
        context.close()
    own = urlsplit(app_url).netloc
    outside = sorted({url for url in requests if urlsplit(url).scheme in ("http", "https", "ws", "wss")} - {""})
    outside = [url for url in outside if urlsplit(url).netloc != own]
    assert requests and not outside, outside
    assert icon.startswith("data:image/svg+xml"), icon[:80]
