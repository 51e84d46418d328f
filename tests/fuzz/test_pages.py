"""A handful of dashboard runs with random hostile link parameters: every page opens, names each parameter it
could not use, and raises nothing (the thirty fixed malformed links are tests/app/test_malformed_links.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.app.conftest import PAGES, run_page
from tests.fuzz.conftest import FUZZ
from ui.frame import safe_name
from ui.settings import BY_URL, SIDEBAR_SETTINGS

pytestmark = pytest.mark.apptest

HOSTILE = st.one_of(
    st.sampled_from(
        [
            "",
            "-1",
            "0",
            "NaN",
            "inf",
            "1e999",
            "9" * 400,
            "\u0661",
            "<img src=x onerror=alert(1)>",
            "[x](javascript:alert(1))",
            "m1.eNqLjgUAARUAuQ",  # a packed "[]": not a model description
            "m1." + "A" * 5_000,
            "cal1~vllm~0.19.0~0.9~w" + "9" * 100,
            "cal1~vllm~0.19.0~0.9~w²",
            "auto",
            "true",
        ]
    ),
    st.text(max_size=40),
)
NAMES = st.one_of(st.sampled_from([s.url for s in SIDEBAR_SETTINGS]), st.sampled_from(["junk", "utm_source", "<b>"]))


def _refused(name: str, value: str) -> bool:
    """Whether the link parameter is unusable on its own: an unknown name, or a value its parser refuses."""
    setting = BY_URL.get(name)
    if setting is None:
        return True
    try:
        setting.parse_values([value])
    except ValueError:
        return True
    return False


@settings(FUZZ, max_examples=10, derandomize=True)
@given(st.sampled_from(sorted(PAGES)), st.dictionaries(NAMES, HOSTILE, min_size=1, max_size=6))
def test_a_random_hostile_link_opens_every_page(page: str, params: dict[str, str]) -> None:
    at = run_page(page, params)
    assert not at.exception, [e.value for e in at.exception]
    notes = " ".join(w.value for w in at.warning if "ignored" in w.value)
    for name, value in params.items():
        if _refused(name, value):
            assert f"`{safe_name(name)}`" in notes, (name, value, notes)
