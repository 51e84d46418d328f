"""The advisor's ranking table on a phone (390 px wide: the first ~25 characters of its first text column show):
its rows told apart there. The set-up's label begins with the GPUs ("8 x RTX PRO 6000 Blackwell Max-Q Workstation
Edit..."), the same in the top rows, so a short key goes first: the split, the formats, the engine (an outside
review, 2026-12-07)."""

from __future__ import annotations

from tests.app.conftest import run_page
from ui.advisor_settings import TABLE_TAB

PHONE_CHARACTERS = 25  # what a 390 px screen shows of the table's first text column (the review's reading)


def test_the_first_column_tells_the_top_rows_apart_on_a_phone() -> None:
    at = run_page("advisor", {"model": "meta-llama/Llama-3.1-70B", "context": "32768", "users": "50"}, tab=TABLE_TAB)
    assert not at.exception
    table = at.dataframe[0].value
    first = table.columns[1]  # after "#"
    shown = [str(text)[:PHONE_CHARACTERS] for text in table[first][:4]]
    assert len(set(shown)) == 4, shown
    labels = [str(text)[:PHONE_CHARACTERS] for text in table["set-up"][:4]]
    assert len(set(labels)) == 1, labels  # what the review saw: the label alone does not tell them apart
    assert table[first][0] == "TP 4 x 2 · FP8 · FP8 KV · vLLM · 8 x rtx-pro-6000-blackwell-max-q"
