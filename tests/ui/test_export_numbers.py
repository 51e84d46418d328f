"""Issue 22's small things: numbers in a CSV are numbers (the unit in the header, no apostrophe-guarded '+17%'),
and a setting's raw value ("sidebar") is shown in words."""

from __future__ import annotations

import csv
import io

from ui import exports, report, settings


def test_percentages_are_written_as_numbers_with_the_unit_in_the_header() -> None:
    rows = [{"set-up": "2 x H100", "headroom": "+17%"}, {"set-up": "1 x L4", "headroom": "-5%"}]
    text = report.csv_text(rows)
    assert "'+" not in text and "'-" not in text  # a spreadsheet showed the apostrophe
    read = list(csv.DictReader(io.StringIO(text)))
    assert [r["headroom (%)"] for r in read] == ["17", "-5"]
    assert report.csv_text([{"note": "=HYPERLINK(1)"}]).splitlines()[1] == "'=HYPERLINK(1)"  # text still guarded


def test_the_advisor_workload_is_worded_in_the_report() -> None:
    words = exports.page_inputs({settings.PRESET.url: "sidebar"})
    assert words == {settings.PRESET.label: "the sidebar's context and users"}
    assert settings.PRESET.word("custom") == "your own distribution"
