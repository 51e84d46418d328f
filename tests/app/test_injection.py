"""User and network text is shown as text, never as Markdown or HTML: a link's model name, a calibration's
engine version, an ignored parameter's name, error messages; and CSV cells never start a formula."""

from __future__ import annotations

import re

from model_catalog import get_model
from tests.app.conftest import CALIBRATE, COMMANDS, SOURCES, run_page
from ui.custom_spec import encode_spec
from ui.report import csv_text

EVIL = "[click me](https://evil.example/x) ![beacon](https://evil.example/pixel.png) <b>bold</b> **strong**"


def _rendered(at) -> list[str]:
    """Every Markdown body the page sent (titles, headings, alerts, captions, markdown)."""
    kinds = (at.title, at.subheader, at.header, at.markdown, at.caption, at.success, at.info, at.warning, at.error)
    return [str(e.value) for kind in kinds for e in kind]


def _active_markup(body: str) -> bool:
    """A link, an image or HTML that Markdown would render (an unescaped ``](`` or ``<tag``)."""
    return bool(re.search(r"(?<!\\)\]\((?<!\\)", body) or re.search(r"(?<!\\)<[a-zA-Z/]", body))


def test_a_model_name_from_the_link_is_text_everywhere() -> None:
    spec = get_model("mistralai/Mistral-7B-v0.1").spec.model_copy(update={"id": "acme/evil", "name": EVIL})
    for page in ("memory", "what_if", "compare", "advisor"):
        opened = [COMMANDS, CALIBRATE, SOURCES] if page == "memory" else []  # the Memory page's lazy sections too
        at = run_page(page, {"spec": encode_spec(spec)}, open_keys=opened)
        assert not at.exception
        bodies = [b for b in _rendered(at) if "click me" in b]
        assert bodies, f"{page}: the name is shown somewhere"
        assert not any(_active_markup(b) for b in bodies), (page, bodies)


def test_a_calibration_version_is_text() -> None:
    token = "cal1~vllm~0.19.0](https://evil.example)~0.9"
    at = run_page("memory", {"calib": token, "engine": "vllm"})
    assert not at.exception
    assert not any(_active_markup(b) for b in _rendered(at) if "evil" in b)


def test_an_ignored_parameter_name_is_never_a_link() -> None:
    at = run_page("memory", {"www.evil.example": "1", "[x](https://evil.example)": "1"})
    note = " ".join(str(w.value) for w in at.warning if "ignored" in str(w.value))
    assert "`www.evil.example`" in note  # a code span: no autolink
    assert "](" not in note


def test_csv_cells_never_start_a_formula() -> None:
    text = csv_text([{"model": '=HYPERLINK("https://evil.example","x")', "n": -3, "note": "+1", "at": "@SUM(A1)"}])
    rows = text.splitlines()
    assert rows[1].startswith("\"'=HYPERLINK(") and ",-3," in rows[1]
    assert "'+1" in rows[1] and "'@SUM(A1)" in rows[1]
