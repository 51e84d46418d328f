"""The README's ten-workload table and error table are what the code prints (a changed pick fails here)."""

from __future__ import annotations

import re
from pathlib import Path

from planner.advisor.examples import EXAMPLES, errors_table, example_ranking, examples_table

README = Path(__file__).parents[2] / "README.md"


def _section(name: str) -> str:
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"<!-- {name}:start -->\n(.*?)\n<!-- {name}:end -->", text, re.S)
    assert match, f"README.md: the {name} markers are missing"
    return match.group(1).strip()


def test_readme_examples_table_is_current() -> None:
    assert _section("examples") == examples_table(), "run python -m planner.advisor.examples and update README.md"


def test_readme_errors_table_is_current() -> None:
    assert _section("errors") == errors_table(), "run python -m planner.advisor.examples and update README.md"


def test_every_example_is_met_and_buyable() -> None:
    assert len(EXAMPLES) == 10
    for example in EXAMPLES:
        ranking = example_ranking(example)
        best = ranking.best
        assert best is not None, example.name
        assert best.compute_known and best.engine and best.purchase_unit, example.name
        if best.vendor == "Apple":  # a Mac only when it is compute-bound fast enough to read along
            assert (best.decode_tokens_per_s_per_user or 0) >= 20 or example.fields.get("vendors") == ("Apple",)
