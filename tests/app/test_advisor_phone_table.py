"""The advisor's ranking table on a phone (390 px wide): its rows told apart in what it shows of the key column. The
set-up's label begins with the GPUs ("8 x RTX PRO 6000 Blackwell Max-Q Workstation Edit..."), the same in the top
rows, so a short key goes first: the split, the formats, the engine, then the GPUs (an outside review, 2026-12-07,
which read ~25 characters of the first text column). The user review of 2026-12-08 read ~55 characters of the key
column at 390 px: there rows 1 and 5 (the Max-Q and the Server Edition, $88,800 against $100,810 to buy) looked
identical, their keys differing only in the GPU id's last words, after character 55; the GPUs are now named by
their variant words among the rows shown (ui.advisor_rows.gpu_words: "8 x max-q", "8 x server")."""

from __future__ import annotations

from tests.app.conftest import run_page
from ui.advisor_settings import TABLE_TAB

PHONE_CHARACTERS = 55  # what a 390 px screen shows of the key column (the review of 2026-12-08; 25 before, 2026-12-07)
FIRST_CHARACTERS = 25  # the top rows still differ in their first 25: the split and formats go first


def test_the_first_column_tells_every_row_apart_on_a_phone() -> None:
    at = run_page("advisor", {"model": "meta-llama/Llama-3.1-70B", "context": "32768", "users": "50"}, tab=TABLE_TAB)
    assert not at.exception
    table = at.dataframe[0].value
    first = table.columns[1]  # after "#"
    shown = [str(text)[:PHONE_CHARACTERS] for text in table[first]]
    assert len(table) > 8 and len(set(shown)) == len(shown), shown  # every row the table shows, not only the top 4
    top = [text[:FIRST_CHARACTERS] for text in shown[:4]]
    assert len(set(top)) == 4, top
    labels = [str(text)[:FIRST_CHARACTERS] for text in table["set-up"][:4]]
    assert len(set(labels)) == 1, labels  # what the review saw: the label alone does not tell them apart
    assert table[first][0] == "TP 4 x 2 · FP8 · FP8 KV · vLLM · 8 x max-q"
    # rows 1 and 5, which the phone had shown alike: the same split, formats and engine on the two editions
    assert table[first][4] == "TP 4 x 2 · FP8 · FP8 KV · vLLM · 8 x server"
    assert table["set-up"][4].startswith("8 x RTX PRO 6000 Blackwell Server Edition")
