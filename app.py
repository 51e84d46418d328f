"""Headroom: the frame. Page config, the shared set-up in the sidebar, and the navigation."""

from functools import partial

import streamlit as st

from pages.advisor import render_advisor_page
from pages.catalog import render_catalog_page
from pages.compare import render_compare_page
from pages.custom import render_custom_page
from pages.memory import render_memory_page
from pages.what_if import render_what_if_page
from ui.frame import leave_legacy_pages_mode
from ui.guard import guarded, note_ignored_parameters, remember_initial_parameters
from ui.sidebar import render_sidebar

# (render function, title, icon, url path = the file name in pages/); the first page is the landing page.
PAGES = [
    (render_memory_page, "Memory", ":material/memory:", "memory"),
    (render_what_if_page, "Context what-if", ":material/timeline:", "what_if"),
    (render_compare_page, "Compare precisions", ":material/grid_view:", "compare"),
    (render_advisor_page, "Which GPU to buy", ":material/shopping_cart:", "advisor"),
    (render_catalog_page, "Catalog", ":material/list:", "catalog"),
    (render_custom_page, "Custom model", ":material/edit_note:", "custom"),
]

leave_legacy_pages_mode()
st.set_page_config(page_title="Headroom — LLM serving memory", page_icon=":material/memory:", layout="wide")
remember_initial_parameters()
notes = st.container()
selection = guarded(render_sidebar)
if selection is not None:
    pages = [
        st.Page(partial(guarded, render, selection), title=title, icon=icon, url_path=path, default=index == 0)
        for index, (render, title, icon, path) in enumerate(PAGES)
    ]
    st.navigation(pages).run()
with notes:
    note_ignored_parameters()
