"""Streamlit pieces every page shares: the share link and the export buttons."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any
from urllib.parse import urlencode

import plotly.graph_objects as go
import streamlit as st

from planner.assessment.assess import Assessment
from ui import binding, exports, frame, links, report
from ui.state import Selection
from ui.tables import grid

SHARE_OPEN_KEY = "share_open"  # whether the Share and export popover is open: a view state
# A table to export: its rows, or what makes them when its button is pressed (a page whose CSV holds more than it
# shows: the advisor's every option with its link, every rejected set-up).
Rows = Sequence[Mapping[str, object]] | Callable[[], Sequence[Mapping[str, object]]]
# The report's figures, or what makes them when its button is pressed (a page that draws other charts: Compare).
Figures = Sequence[go.Figure | report.StaticSvg] | Callable[[], Sequence[go.Figure | report.StaticSvg]]


def data_grid(
    container: Any,  # st or a container of it
    rows: Sequence[Mapping[str, object]],
    column_config: Mapping[str, object] | None = None,
) -> None:
    """``rows`` in a data grid (:func:`ui.tables.grid`): numbers stay numbers and the browser writes them with
    thousands separators; a missing figure is an empty cell."""
    table = grid(rows)
    config = {k: st.column_config.NumberColumn(format="localized") for k in table.numeric} | dict(column_config or {})
    container.dataframe(table.frame, hide_index=True, width="stretch", column_config=config, placeholder="")


def rows_of(table: Rows) -> Sequence[Mapping[str, object]]:
    """The rows of an export table, made now if they were deferred.

    >>> rows_of([{"a": 1}]), rows_of(lambda: [{"a": 2}])
    ([{'a': 1}], [{'a': 2}])
    """
    return table() if callable(table) else table


def _csv(table: Rows) -> str:
    return report.csv_text(rows_of(table))


def share_and_export(
    sel: Selection,
    page_path: str,
    title: str,
    verdict: str | Callable[[], str],
    figures: Figures,
    tables: Mapping[str, Rows],
    extra: Mapping[str, str | list[str]] | None = None,
    about_setup: bool = True,
    names: Mapping[str, str] | None = None,
    assessment: Assessment | None = None,
    worded: Mapping[str, str | list[str]] | None = None,
    html: Callable[[str], str] | None = None,
    sections: Sequence[tuple[str, Sequence[str]]] = (),
) -> None:
    """The page's settings join the address bar; a "Copy link" box (the code block has a copy button) and the
    HTML / CSV downloads carry the same settings. The link is absolute, on the address the reader used. The
    report and the CSVs are written when their button is pressed (the report inlines plotly.js: megabytes no page
    run should build); ``figures`` and ``verdict`` may be what makes them then (the advisor's recommendation, a
    scan of every option, is not made on a run that writes no report).
    ``about_setup``: the report shows the sidebar's set-up and its headline figures; ``names`` words the page
    settings' values (GPU ids as names); ``assessment``: the page's answer when it is not the sidebar's plain set-up
    (the Memory page's deployment); ``worded``: the page settings the report words (all of ``extra`` when not
    given; the Memory page words only the deployment settings that were changed); ``html``: the page's own report,
    given the share link (the advisor's)."""
    frame.page_params(dict(extra or {}))
    params = {**links.selection_params(sel), **binding.view_params()}
    query = "?" + urlencode(params, doseq=True)
    url = links.share_url(st.context.url, page_path, query)
    # Streamlit's lazy popover (``on_change="rerun"``, ``.open``): its link, buttons and their columns are made only
    # while it is open, so a run (a slider move) neither sends nor re-renders them (make bench: the slider).
    box = st.popover("Share and export", icon=":material/share:", on_change="rerun", key=SHARE_OPEN_KEY)
    if not box.open:
        return
    with box:
        st.markdown("**Copy link** — opening it shows this page with exactly these numbers:")
        st.code(url, language=None, wrap_lines=True)
        worded_settings = dict((extra or {}) if worded is None else worded)

        def view_report() -> str:
            shown = {name: rows_of(rows) for name, rows in tables.items()}
            drawn = figures() if callable(figures) else figures
            said = verdict() if callable(verdict) else verdict
            args = (sel, title, said, drawn, shown, worded_settings, url, about_setup, names, assessment)
            return exports.report_html(*args, sections=sections)

        _downloads(page_path, (lambda: html(url)) if html is not None else view_report, tables)


def _downloads(page_path: str, report: Callable[[], str], tables: Mapping[str, Rows]) -> None:
    """The HTML report's and each table's CSV button in a row: each file is written when its button is pressed."""
    stem = f"headroom-{page_path or 'memory'}"
    cols = st.columns(1 + len(tables))
    cols[0].download_button(
        "HTML report", report, file_name=f"{stem}.html", mime="text/html", icon=":material/download:", on_click="ignore"
    )
    for col, (name, rows) in zip(cols[1:], tables.items(), strict=True):
        col.download_button(
            f"CSV: {name}",
            partial(_csv, rows),  # written when pressed, like the report
            file_name=f"{stem}-{name}.csv",
            mime="text/csv",
            icon=":material/table:",
            on_click="ignore",
        )
