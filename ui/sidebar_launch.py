"""The sidebar's launch settings: the flags people start an engine with (``--max-num-seqs``, ``--enforce-eager``,
``--kv-cache-memory-bytes`` …), drawn for the engine that takes them (:func:`planner.engines.registry.settings_taken`).
A link's value for a flag the chosen engine has no use for is dropped and said so; an unset box is the engine's
own default, as when the flag is not given."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from planner.bounds.errors import PlannerError
from planner.core.units import GiB
from planner.engines.registry import engine_names, get_engine
from planner.engines.settings import ENGINE_SETTINGS, EngineSetting, is_given, profile_values, shown_name, switch_words
from ui import binding, settings, state
from ui.guard import as_text
from ui.settings.launch import MIN_GIB
from ui.text import sentence

OPEN_KEY = "launch_open"  # whether the Launch settings expander is open: a view state, not a setting
# What the settings hold while the box is closed (not drawn): every flag unticked, every number and switch not given.
DEFAULTS: dict[str, object] = {shown_name(d): (False if d.kind == "flag" else None) for d in ENGINE_SETTINGS}


def _valid(declared: EngineSetting) -> Callable[[object], bool]:
    """Whether a session value is one the setting's box can hold (``None``: not given)."""

    def valid(value: object) -> bool:
        if value is None:
            return True
        if declared.kind in ("flag", "switch"):
            return isinstance(value, bool)
        if declared.kind == "choice":
            return value in declared.choices
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if declared.kind == "bytes":
            return MIN_GIB <= value <= declared.high / GiB
        return isinstance(value, int) and declared.low <= value <= declared.high

    return valid


def _draw(box: Any, declared: EngineSetting, label: str) -> Any:
    """One launch setting's widget, labelled by the engine's own flag; returns what it holds (``None``: not
    given)."""
    setting = settings.LAUNCH_BY_NAME[declared.name]
    value = binding.ensure(setting, _valid(declared), None, "outside what the engine accepts")
    if declared.kind == "flag":  # a box ticked or not: unticked is the flag not given
        binding.put(setting.url, bool(value))
        box.checkbox(label, key=setting.url, help=setting.help)
        return binding.record(setting, True if binding.drawn(setting) else None)
    if declared.kind == "switch":  # on, off (its --no- form) or not chosen: the release's default
        box.selectbox(
            label, (True, False), index=None, key=setting.url, help=setting.help, placeholder="release default",
            format_func=lambda on: switch_words(label, on),
        )  # fmt: skip
    elif declared.kind == "choice":
        box.selectbox(
            label, declared.choices, index=None, key=setting.url, help=setting.help, placeholder="engine default"
        )
    elif declared.kind == "bytes":
        box.number_input(
            label + " (a size in GiB)", min_value=MIN_GIB, max_value=declared.high / GiB, value=None, step=0.5,
            format="%.2f",
            key=setting.url, help=setting.help, placeholder="not set: from the fraction",
        )  # fmt: skip
    else:
        box.number_input(
            label, min_value=declared.low, max_value=declared.high, value=None, step=1, key=setting.url,
            help=setting.help, placeholder="engine default",
        )  # fmt: skip
    return binding.record(setting, binding.drawn(setting))


def _refuse(engine: str, declared: EngineSetting) -> None:
    """A link's value for a setting ``engine`` does not take is dropped, with the reason."""
    setting = settings.LAUNCH_BY_NAME[declared.name]
    why = get_engine(engine).untaken(declared.name) if engine in engine_names() else None
    binding.ensure(setting, lambda v: v is None, None, why or f"The {engine} profile has no {declared.flag} setting")


def render_launch(sb: Any, engine: str, version: str | None, calibration: str | None) -> dict[str, Any]:
    """The launch settings for ``engine`` (by the names a link and the CLI use: ``kv_cache_memory_gib``), the
    ones it does not take dropped; a combination the engine refuses is said and left out."""
    taken = {declared.name for declared in state.launch_settings_taken(engine)}
    for declared in ENGINE_SETTINGS:
        if declared.name not in taken:
            _refuse(engine, declared)
    if not taken:
        return {}
    is_set = any(is_given(d, st.session_state.get(shown_name(d))) for d in ENGINE_SETTINGS)
    # Streamlit's lazy expander (``on_change="rerun"``; its state is the session's ``OPEN_KEY``, readable before the
    # sidebar is drawn, :mod:`ui.deferred`): closed with every flag at the engine's default, its boxes are not drawn,
    # so a run does not send and the browser does not re-render them (make bench: the slider).
    box = sb.expander("Launch settings", icon=":material/terminal:", expanded=is_set, on_change="rerun", key=OPEN_KEY)
    if not (is_set or st.session_state.get(OPEN_KEY)):
        return {}
    if calibration:
        box.caption("A calibration measured the overheads with its log's own launch settings: these are not used.")
    flags = get_engine(engine) if engine in engine_names() else None
    values = {
        shown_name(d): _draw(box, d, flags.flag_for(d.name, version) if flags else d.flag)
        for d in ENGINE_SETTINGS
        if d.name in taken
    }
    try:
        state.overhead_for(engine, None, None, version, profile_values(values))
    except PlannerError as exc:
        box.error(as_text(f"{sentence(str(exc))} Planned without the launch settings."), icon=":material/error:")
        return {}
    return values
