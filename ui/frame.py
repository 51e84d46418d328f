"""The frame every page runs in: the run's beginning (the link read into the session), the shared set-up,
the page, and the run's end (the address bar rewritten, ignored link parameters named).

Pages are files in ``pages/`` registered with ``st.Page`` by ``app.py`` (Streamlit's own multipage
pattern). A page file calls :func:`run_page` with its render function, which receives the
:class:`ui.state.Selection` the sidebar built in this run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner_utils.exceptions import StopException
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from planner.bounds.walltime import budget
from ui import binding, first_paint, heap, interpreter, links, refusals, turns
from ui.deferred import Deferred
from ui.guard import as_text, guarded
from ui.state import Selection

SELECTION_KEY = "_selection"
# Every run of a page (sidebar and page) stops within this many seconds with a named error: a hostile link costs
# a visitor's session at most this much of a core, and another visitor's page keeps its share.
PAGE_BUDGET_SECONDS = 20.0
# At most this many runs draw at once, across every session: the others wait for a turn (within their budget), in
# fair order between sessions, heavy pages yielding to light ones (ui.turns). The GIL serialises them anyway, so
# throughput is the same, and the server's memory is bounded by runs in flight instead of by the number of visitors
# (the load test, bench/load.py, measures it; bench/attack.py a visitor's page beside sessions looping heavy links).
CONCURRENT_RUNS = turns.SLOTS
TURNS = turns.TURNS
BUSY = turns.BUSY
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.\-]")


def leave_legacy_pages_mode() -> None:
    """Run as a ``st.navigation`` app even on a fresh server's first session.

    Streamlit decides once per server process, when the first session starts, whether the app is a legacy
    (v1) multipage app: it is when a ``pages/`` folder sits beside the entry script
    (``PagesManager.uses_pages_directory``), and then the first run executes the page file a cold deep link
    names on its own (``_mpa_v1`` in the script runner), without ``app.py``'s frame: a blank page, file-name
    navigation. The first ``st.navigation`` call clears the flag for good, so only the first session of each
    process is affected. ``app.py`` and every page call this before drawing anything: it clears the flag and
    reruns, and the rerun executes ``app.py`` on the same URL path (a page's script hash is its URL path, the same
    in both modes). ``tests/browser/test_cold_deep_link.py`` opens a deep link first on fresh servers.
    """
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


def begin() -> None:
    """Start a run: hand the interpreter lock over promptly (:mod:`ui.interpreter`); read the link on the session's
    first run, which draws a first paint (:mod:`ui.first_paint`)."""
    interpreter.share_the_lock()
    binding.begin_run()
    binding.load_from_url()
    first_paint.begin_run()


@contextmanager
def run_budget() -> Iterator[None]:
    """The run's wall-clock budget (:mod:`planner.bounds.walltime`): planning loops check it and stop with a named
    error, which :func:`ui.guard.guarded` shows. The run first waits for one of :data:`CONCURRENT_RUNS` turns
    (:mod:`ui.turns`: fair between sessions); a run that waits its whole budget says so and stops."""
    ctx = get_script_run_ctx(suppress_warning=True)
    with budget(PAGE_BUDGET_SECONDS, "drawing this page"):
        try:
            run = TURNS.admit(ctx.session_id if ctx else "", PAGE_BUDGET_SECONDS, ctx.yield_check if ctx else None)
        except turns.Busy as exc:
            st.error(str(exc), icon=":material/hourglass_empty:")
            st.stop()
        with TURNS.running(run):
            yield


@contextmanager
def drawn_after(later: Deferred) -> Iterator[None]:
    """Draw ``later`` (the sidebar) after the page: also when the page stops early (``st.stop``), not when it
    reruns (the rerun draws it)."""
    try:
        yield
    except StopException:
        guarded(later.draw)
        binding.keep_held()  # the run ends here: finish() is not reached
        raise
    guarded(later.draw)


def publish(selection: Selection | None) -> None:
    """Hand the sidebar's selection to this run's page, and put it in the address bar."""
    st.session_state[SELECTION_KEY] = selection
    if selection is not None:
        binding.set_view_params(links.selection_params(selection))


def run_page(render: Callable[[Selection], None]) -> None:
    """Draw a page with this run's selection (nothing when the sidebar could not build one)."""
    leave_legacy_pages_mode()
    selection: Selection | None = st.session_state.get(SELECTION_KEY)
    if selection is not None:
        guarded(refusals.offering_engines(render), selection)


def page_params(params: Mapping[str, str | list[str]]) -> None:
    """A page's own settings join the address bar."""
    binding.set_view_params(params)


def safe_name(name: str) -> str:
    """A link parameter's name as plain text: at most 40 characters of ``[A-Za-z0-9_.-]`` (others as ``?``)."""
    return _SAFE_NAME.sub("?", name[:40])


def finish(notes: st.delta_generator.DeltaGenerator) -> None:
    """End a run: keep the settings whose widgets were not drawn (:func:`ui.binding.keep_held`); rewrite the address
    bar; name each link parameter that was not used, and why; leave what this run imported out of the cycle
    collector's work (:mod:`ui.heap`)."""
    heap.freeze_new_imports()
    binding.keep_held()
    binding.write_url()
    for note in binding.aliased_models():  # the catalog's own words (an alias it lists), shown literally
        notes.info(as_text(note), icon=":material/link:")
    ignored = binding.ignored_parameters()
    if ignored:
        # names come from the link: plain text in code spans; reasons are the parsers' own fixed sentences
        lines = "; ".join(
            f"`{safe_name(item.name)}`" + (f" = `{safe_name(item.value)}`" if item.value else "") + f" ({item.reason})"
            for item in ignored
        )
        notes.warning(
            f"Some link parameters were ignored and their defaults used instead: {lines}.",
            icon=":material/link_off:",
        )
