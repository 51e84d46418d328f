"""The pages of the dashboard, in one list: adding a page is one file in ``pages/`` and one :class:`Page` here.

``app.py`` builds the navigation from :data:`PAGES`; the URL paths scope each page's settings
(:mod:`ui.settings`), share links replace the page the reader is on with the one they open (:mod:`ui.links`), and
the page tests run every entry (``tests/app``).
"""

from __future__ import annotations

from typing import NamedTuple

MEMORY, WHAT_IF, COMPARE, ADVISOR, CATALOG, CUSTOM = "memory", "what_if", "compare", "advisor", "catalog", "custom"


class Page(NamedTuple):
    path: str  # the URL path, also the scope of the page's settings
    file: str  # relative to the project root
    title: str
    icon: str  # a Material icon for the navigation (drawn from the app's bundled font, nothing fetched)
    # Whether the page plans the sidebar's hardware (GPU, engine and its launch settings, split, precisions): the
    # advisor plans every catalog set-up under its own, so its sidebar draws the workload alone (ui.sidebar).
    hardware: bool = True


# The first page is the landing page, at the root URL.
PAGES: tuple[Page, ...] = (
    Page(MEMORY, "pages/memory.py", "Memory", ":material/memory:"),
    Page(WHAT_IF, "pages/what_if.py", "Context what-if", ":material/timeline:"),
    Page(COMPARE, "pages/compare.py", "Compare precisions", ":material/grid_view:"),
    Page(ADVISOR, "pages/advisor.py", "Which GPU to buy", ":material/shopping_cart:", hardware=False),
    Page(CATALOG, "pages/catalog.py", "Catalog", ":material/list:"),
    Page(CUSTOM, "pages/custom.py", "Custom model", ":material/edit_note:"),
)
PAGE_PATHS: tuple[str, ...] = tuple(page.path for page in PAGES)


def page(path: str) -> Page:
    """The page at URL path ``path``."""
    for entry in PAGES:
        if entry.path == path:
            return entry
    raise KeyError(path)


def plans_hardware(path: str) -> bool:
    """Whether the page at URL path ``path`` plans the sidebar's hardware (the landing page's path is "").

    >>> plans_hardware(""), plans_hardware(ADVISOR)
    (True, False)
    """
    return page(path or MEMORY).hardware
