"""Twenty-five people opening one shared link cost one page's planning (issue 24): the second session on the same
link reads the first one's answer; a link with any other setting plans its own."""

from __future__ import annotations

import pytest

from tests.app.conftest import run_page
from ui.shared_cache import ANSWERS

LINK = {"model": "meta-llama/Llama-3.1-70B", "gpu": "h100-sxm-80gb", "gpus": "2", "context": "32768"}


@pytest.mark.parametrize("page", ["memory", "compare"])
def test_a_second_session_on_the_same_link_plans_nothing(page: str) -> None:
    ANSWERS.clear()
    first = run_page(page, LINK)
    assert not first.exception
    planned = ANSWERS.misses
    assert planned == 1, "one answer per page run"
    second = run_page(page, LINK)
    assert not second.exception
    assert ANSWERS.misses == planned and ANSWERS.hits >= 1
    answer = ("alert", "markdown", "caption", "dataframe")  # what each page shows of its answer
    shown = [[str(e.value) for e in at.main if e.type in answer] for at in (first, second)]
    assert shown[0] and shown[0] == shown[1]
    other = run_page(page, {**LINK, "users": "33"})
    assert not other.exception
    assert ANSWERS.misses == planned + 1
