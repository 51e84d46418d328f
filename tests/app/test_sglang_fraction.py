"""SGLang's memory fraction on the dashboard (ui.state.heuristic_fraction).

Found by an outside review (2026-12-05): the sidebar had no memory fraction under SGLang, a link's util=0.9 was
dropped without a word, and fit --gpu-util 0.9 gave another answer; the nearest set-ups never offered raising
--mem-fraction-static. Now the fraction is an optional box (empty: SGLang's own heuristic), a link's value is
planned as fit plans it, and raising it is offered."""

from __future__ import annotations

import json

import pytest

from planner.cli import main
from tests.app.conftest import plain, run_page, texts

LINK = {"model": "meta-llama/Llama-3.1-70B", "gpu": "h100-sxm-80gb", "gpus": "2", "engine": "sglang"}
ARGV = ["fit", "--model", "meta-llama/Llama-3.1-70B", "--gpu", "h100-sxm-80gb", "--gpus", "2", "--engine", "sglang"]


def _tokens(capsys: pytest.CaptureFixture[str], *extra: str) -> int:
    main([*ARGV, "--context", "32768", "--users", "20", *extra, "--json"])
    return int(json.loads(capsys.readouterr().out)["kv_budget_tokens_total"])


def test_a_links_fraction_is_planned_as_fit_plans_it(capsys: pytest.CaptureFixture[str]) -> None:
    pinned = run_page("memory", {**LINK, "context": "32768", "users": "20", "util": "0.9"}, editor=True)
    assert not pinned.exception and pinned.number_input(key="util").value == 0.9
    tokens = _tokens(capsys, "--gpu-util", "0.9")
    assert tokens > 0 and any(f"{tokens:,} tokens" in plain(t) for t in texts(pinned.markdown)), tokens
    heuristic = run_page("memory", {**LINK, "context": "32768", "users": "20"}, editor=True)
    assert not heuristic.exception and heuristic.number_input(key="util").value is None
    body = " ".join(plain(t) for t in texts(heuristic.markdown))
    assert f"{tokens:,} tokens" not in body  # the heuristic (0.828 here) is not 0.9
    assert "memory fraction 0.92 (--mem-fraction-static)" in body  # the nearest set-up the engine's error names


def test_llamacpp_pages_say_what_a_slot_is() -> None:
    """Found by an outside review (2026-12-05): the Compare page under llama.cpp showed 36 identical 4s with no word
    of slots, and the What-if caption said eight times the context is an eighth of the conversations under a flat
    line."""
    link = {"model": "Qwen/Qwen3-8B", "gpu": "apple-m4-max", "engine": "llamacpp", "weights": "q8_0"}
    compare = run_page("compare", {**link, "context": "8192", "users": "4"})
    assert not compare.exception
    captions = plain(" ".join(c.value for c in compare.caption))
    assert "llama.cpp starts with one slot a user (4), each its own context" in captions, captions
    what_if = run_page("what_if", {**link, "context": "8192", "users": "4"})
    assert not what_if.exception
    words = plain(" ".join(c.value for c in what_if.caption))
    assert "llama.cpp starts with one slot a user" in words and "an eighth of the conversations" not in words
