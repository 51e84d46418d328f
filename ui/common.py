"""Streamlit pieces every page shares: the ignored-parameter note, the share link and the export buttons."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import plotly.graph_objects as go
import streamlit as st

from ui import links, report
from ui.state import Selection

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$])")


def escape_markdown(text: str) -> str:
    """Show user-supplied text literally (a URL parameter may hold markup)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def share_and_export(
    sel: Selection,
    page_path: str,
    title: str,
    verdict: str,
    figures: Sequence[go.Figure],
    tables: Mapping[str, Sequence[Mapping[str, object]]],
    extra: Mapping[str, str | Sequence[str]] | None = None,
) -> None:
    """A "Copy link" box (the code block has a copy button) and the HTML / CSV downloads."""
    query = links.query_string(sel, extra)
    with st.expander("Share and export", expanded=False, icon=":material/share:"):
        st.markdown("**Copy link** — opening it shows this page with exactly these numbers:")
        st.code(links.share_url(st.context.url, page_path, query), language=None, wrap_lines=True)
        inputs = {
            k: ", ".join(v) if isinstance(v, list | tuple) else str(v)
            for k, v in {**links.selection_params(sel), **(extra or {})}.items()
        }
        html = report.html_report(title, verdict, inputs, figures, tables)
        cols = st.columns(1 + len(tables))
        cols[0].download_button(
            "HTML report",
            html,
            file_name=f"headroom-{page_path or 'memory'}.html",
            mime="text/html",
            icon=":material/download:",
            on_click="ignore",
        )
        for col, (name, rows) in zip(cols[1:], tables.items(), strict=True):
            col.download_button(
                f"CSV: {name}",
                report.csv_text(rows),
                file_name=f"headroom-{page_path or 'memory'}-{name}.csv",
                mime="text/csv",
                icon=":material/table:",
                on_click="ignore",
            )
