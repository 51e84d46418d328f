"""The advisor page lists the top picks each with what it buys and its whole-system price, then why each beats the
next (review57, issue 21): it had shown only the why sentences, which name a pick's GPU and its total cost of
ownership, not the hosts, the engine or the price to buy (tests/advisor/test_pick_lines.py pins the words)."""

from __future__ import annotations

from tests.advisor.test_pick_lines import LLAMA_70B
from tests.app.conftest import run_page, texts


def test_the_page_lists_the_picks_and_why() -> None:
    at = run_page("advisor", {"model": "meta-llama/Llama-3.1-70B", "context": "32768", "users": "50"})
    assert not at.exception, [e.value for e in at.exception]
    block = next(t for t in texts(at.markdown) if t.startswith("**Top picks, and why each beats the next:**"))
    assert block.splitlines()[1:] == [f"- {line}" for line in LLAMA_70B]
