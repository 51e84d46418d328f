"""A set-up its engine refuses is not a dead end: the refusal in the engine's words, a link to the same engine at the
oldest release offered that loads the model where the release is what refuses it
(:func:`planner.engines.registry.release_that_loads`), and a link per engine that runs and starts the same set-up
(:func:`planner.assessment.other_engines.engines_that_start`), on every page (:func:`offering_engines`, which
:func:`ui.frame.run_page` draws each page with; the Memory page asks with its deployment options itself)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import streamlit as st

from planner.bounds.errors import PlannerError
from planner.engines.base import Engine
from planner.engines.registry import get_engine
from ui import answers, links
from ui.guard import as_text
from ui.state import Selection


def on_engine(sel: Selection, engine: str) -> Selection:
    """The selection under ``engine`` at its own defaults: its default release and memory fraction (a release and a
    fraction belong to one engine), a calibration dropped (it measured another engine); every other setting kept,
    launch settings included (the sidebar drops, and names, those the engine does not take)."""
    return sel.model_copy(update={"engine": engine, "engine_version": None, "util": None, "calibration": None})


def refused(sel: Selection, reason: str, running: Sequence[Engine], page: Mapping[str, str | list[str]]) -> None:
    """The engine's refusal as text, then a link per engine that runs the same set-up on this page, its own
    settings (``page``) kept (:func:`on_engine`)."""
    st.error(as_text(reason), icon=":material/block:")
    release = answers.release_loading(sel)
    if release is not None:  # the same engine at a release that loads the model, every other setting kept
        later = sel.model_copy(update={"engine_version": release})
        st.markdown(
            f"[Open this set-up under {get_engine(sel.engine).label} {release}]({links.query_string(later, page)})"
        )
    for engine in running:
        st.markdown(f"[Open this set-up under {engine.label}]({links.query_string(on_engine(sel, engine.name), page)})")


def offering_engines(render: Callable[[Selection], None]) -> Callable[[Selection], None]:
    """``render``, and where it stops at a refusal of the selection's engine, :func:`refused` with the engines that
    run the set-up; any other error goes on to the guard (:func:`ui.guard.guarded`) as it was."""

    def drawn(sel: Selection) -> None:
        try:
            render(sel)
        except PlannerError as exc:
            running = answers.engines_running(sel, None)
            if not running and answers.release_loading(sel) is None:
                raise
            refused(sel, str(exc), running, {})

    return drawn
