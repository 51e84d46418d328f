"""Headroom: the frame. Page config, the shared set-up in the sidebar, and the navigation."""

from functools import partial

import streamlit as st

from pages.catalog import render_catalog_page
from pages.compare import render_compare_page
from pages.memory import render_memory_page
from pages.what_if import render_what_if_page
from ui.guard import guarded, note_ignored_parameters, remember_initial_parameters
from ui.sidebar import render_sidebar

st.set_page_config(page_title="Headroom — LLM serving memory", page_icon=":material/memory:", layout="wide")
remember_initial_parameters()
notes = st.container()
selection = guarded(render_sidebar)
if selection is not None:
    pages = [
        st.Page(
            partial(guarded, render_memory_page, selection),
            title="Memory",
            icon=":material/memory:",
            url_path="memory",
            default=True,
        ),
        st.Page(
            partial(guarded, render_what_if_page, selection),
            title="Context what-if",
            icon=":material/timeline:",
            url_path="what_if",
        ),
        st.Page(
            partial(guarded, render_compare_page, selection),
            title="Compare precisions",
            icon=":material/grid_view:",
            url_path="compare",
        ),
        st.Page(
            partial(guarded, render_catalog_page, selection),
            title="Catalog",
            icon=":material/list:",
            url_path="catalog",
        ),
    ]
    st.navigation(pages).run()
with notes:
    note_ignored_parameters()
