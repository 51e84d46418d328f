"""One context parser: what the page labels (``32k``, ``1M``) reads the same in a link, on the CLI (``fit``,
``advise``, ``calibrate``) and in the advisor's length fields (planner.core.context_text)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.cli import main
from planner.core.context_text import context_label, parse_context
from ui.settings import sidebar, views


def _fit_context(capsys: pytest.CaptureFixture[str], context: str) -> int:
    argv = ["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--context", context, "--json"]
    assert main(argv) == 0
    return int(json.loads(capsys.readouterr().out)["context_tokens"])


def test_fit_reads_the_labels_the_page_shows(capsys: pytest.CaptureFixture[str]) -> None:
    assert _fit_context(capsys, "32k") == _fit_context(capsys, "32768") == 32_768
    assert _fit_context(capsys, "128K") == 131_072


def test_advise_reads_32k(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["advise", "--model", "meta-llama/Llama-3.1-8B", "--users", "4", "--context", "32k", "--gpu"]
    assert main([*argv, "l40s", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["context_tokens"] == 32_768


@pytest.mark.parametrize("text", ["1.5k", "32kk", "k", "-5", "3e4", "٣٢k", "9" * 13])
def test_cli_refuses_other_text_with_one_line(capsys: pytest.CaptureFixture[str], text: str) -> None:
    argv = ["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--context", text]
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("python -m planner fit: error: argument --context:") or "--context" in err
    assert "Traceback" not in err


def test_the_link_and_the_advisor_fields_use_the_same_parser() -> None:
    for setting in (sidebar.CONTEXT, views.CTX_MEAN, views.CTX_P95, views.PREFIX):
        assert setting.parse("32k") == 32_768, setting.url
        assert setting.parse("4096") == 4_096, setting.url


@given(st.integers(min_value=1, max_value=10 * 2**20))
def test_every_label_parses_back(tokens: int) -> None:
    label = context_label(tokens)
    assert parse_context(label.replace(",", "")) == tokens


def test_signed_numbers_read_as_whole_numbers_did(capsys: pytest.CaptureFixture[str]) -> None:
    """A maintainer's review (2026-12-06): the token parser had refused "+8192", which the whole-number one took,
    and called "-5" not a token count instead of out of range."""
    assert _fit_context(capsys, "+8192") == 8192
    argv = ["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--context", "-5"]
    with pytest.raises(SystemExit):
        main(argv)
    assert "-5 is outside 1 to" in capsys.readouterr().err
