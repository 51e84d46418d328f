"""The address bar and the widgets, kept in step (Streamlit glue over the declarations of :mod:`ui.settings`).

- On a session's first run, or when the browser's address changed under it (back/forward), every declared
  setting found in the link is parsed and put in the session under its key; an unknown parameter or a value
  that does not parse is noted with its reason, never obeyed.
- A widget is drawn with its setting's key and no default of its own: its value is the session's. When the
  session holds no value, or one the widget cannot offer (a TP the new GPU count does not allow), the
  setting's default is put there first — and a value that came from the link is named in the note. A value
  the session already holds is not put there again (:func:`put`: the browser then keeps the widget it shows).
- At the end of every run the address bar is rewritten with every setting of the view, explicitly, so that
  whatever is on screen is what the address (and the share link) opens cold.

Widgets are not bound with Streamlit's ``bind="query-params"``: it drops a parameter whenever its widget holds
its default, and defaults that depend on other settings (the TP a GPU count allows) then open another view.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
from streamlit.runtime.state import get_session_state

from model_catalog import alias_note
from ui.settings import BY_URL, STREAMLIT_PARAMETERS, Setting

T = TypeVar("T")
LOADED_KEY = "_url_loaded"
WRITTEN_KEY = "_url_written"
IGNORED_KEY = "_url_ignored"
ALIASED_KEY = "_url_aliased"  # what a link's model alias is planned as (model_catalog.alias_note)
FROM_URL_KEY = "_url_pending"  # settings whose session value came from the link and is not yet checked
PAGE_VALUES_KEY = "_page_values"  # page settings kept across page switches (Streamlit drops unrendered widgets)
VIEW_PARAMS_KEY = "_view_params"  # what this run's view puts in the address bar
HELD_KEY = "_held"  # widget keys whose value this run left in place (put), kept at its end when not drawn
MAX_PARAMETERS = 64  # a link with more parameters than every setting twice is not one Headroom made
MAX_QUERY_CHARS = 16_000


class Ignored(NamedTuple):
    """A link parameter that was not used, and why."""

    name: str
    reason: str
    value: str = ""  # what the link gave, where it could not be read (shown as plain text: ui.frame.safe_name)


def _current_query() -> dict[str, list[str]]:
    return {key: st.query_params.get_all(key) for key in st.query_params}


def _note(name: str, reason: str, value: str = "") -> None:
    ignored: list[Ignored] = st.session_state.setdefault(IGNORED_KEY, [])
    if all(item.name != name for item in ignored):
        ignored.append(Ignored(name, reason, value))


def load_from_url() -> None:
    """Copy the link's settings into the session (first run, or the address changed under the session)."""
    query = _current_query()
    written = st.session_state.get(WRITTEN_KEY)
    if st.session_state.get(LOADED_KEY) and (not query or query == written):
        return
    st.session_state[LOADED_KEY] = True
    st.session_state[IGNORED_KEY] = []
    pending: set[str] = set()
    size = sum(len(k) + sum(len(v) for v in values) for k, values in query.items())
    if len(query) > MAX_PARAMETERS or size > MAX_QUERY_CHARS:
        _note("link", f"longer than any link Headroom makes ({len(query)} parameters, {size:,} characters)")
        query = {}
    st.session_state[ALIASED_KEY] = [note for note in map(alias_note, query.get("model", [])[-1:]) if note]
    for name, raw in query.items():
        if name in STREAMLIT_PARAMETERS:
            continue
        setting = BY_URL.get(name)
        if setting is None:
            _note(name, "not a Headroom setting")
            continue
        try:
            value = setting.parse_values(raw)
        except (ValueError, TypeError) as exc:
            _note(name, str(exc), raw[-1] if raw else "")  # the value parsed (parse_values reads the last)
            continue
        st.session_state[setting.url] = value
        st.session_state.setdefault(PAGE_VALUES_KEY, {})[setting.url] = value
        pending.add(setting.url)
    st.session_state[FROM_URL_KEY] = pending


def ensure(setting: Setting, valid: Callable[[Any], bool], default: Any, reason: str = "not offered here") -> Any:
    """The session's value of ``setting`` when ``valid``, else ``default`` (noted when the link had asked for it)."""
    pending: set[str] = st.session_state.setdefault(FROM_URL_KEY, set())
    kept: dict[str, Any] = st.session_state.setdefault(PAGE_VALUES_KEY, {})
    if setting.url not in st.session_state and setting.url in kept:
        st.session_state[setting.url] = kept[setting.url]  # a page setting from an earlier visit of the page
    value = st.session_state.get(setting.url, default)
    if setting.url in st.session_state and not valid(value):
        if setting.url in pending:
            _note(setting.url, reason)
        value = default
    pending.discard(setting.url)
    put(setting.url, value)
    kept[setting.url] = value
    return value


def put(key: str, value: Any) -> None:
    """Put ``value`` in the session under a widget's key, unless the session already holds that value.

    A widget whose key the script sets in a run is sent with "set this value" (Streamlit 1.67: ``set_value`` and
    ``has_one_shot_effect``), and the browser then builds it anew instead of keeping the element it shows: when
    every setting was put again on every run, every widget of the page was rebuilt after every change (the
    set-up's select boxes rebuild their option lists; ``make bench``, slider to chart). A value the session holds
    already (the widget's own, or one put by an earlier run) leaves the widget's message unchanged, so the browser
    keeps it; a changed value is put, and the widget shows it. A value left in place is put again at the run's end
    when its widget was not drawn (:func:`keep_held`)."""
    if key in st.session_state and _same(st.session_state[key], value):
        st.session_state.setdefault(HELD_KEY, set()).add(key)
        return
    st.session_state[key] = value


def held(key: str) -> bool:
    """Whether this run left the widget's value in place (:func:`put`) and nothing else set it this run (the link
    read on a session's first run, a callback): the widget may be given it as its own default then. Streamlit
    warns of a default beside a value the run set (``check_session_state_rules``, the same test)."""
    return key in st.session_state.get(HELD_KEY, set()) and not get_session_state().is_new_state_value(key)


def keep_held() -> None:
    """At the run's end, put again each value :func:`put` left in place whose widget this run did not draw (a
    stand-in that is never drawn, :mod:`ui.deferred`; a closed section): Streamlit drops an undrawn widget's value
    when the run ends, and the session keeps every setting, as it did when every value was put on every run. A
    drawn widget keeps its own value (and its key may not be set once it is drawn)."""
    held: set[str] = st.session_state.get(HELD_KEY, set())
    ctx = get_script_run_ctx(suppress_warning=True)
    for key in sorted(held):
        drawn = ctx is not None and key in ctx.shared.widget_user_keys_this_run
        if not drawn and key in st.session_state:
            st.session_state[key] = st.session_state[key]
    held.clear()


def _same(held: Any, value: Any) -> bool:
    """The same value of the same type (``1 == 1.0 == True`` in Python, and a widget keeps the type it was given)."""
    return type(held) is type(value) and bool(held == value)


def current(url: str, default: Any) -> Any:
    """A setting's value before its widget is drawn: the session's, else the one kept from an earlier visit of
    its page (:func:`ensure` restores it when the widget is drawn), else ``default``."""
    kept: dict[str, Any] = st.session_state.get(PAGE_VALUES_KEY, {})
    return st.session_state.get(url, kept.get(url, default))


def drawn(setting: Setting) -> Any:
    """A widget's value: its session state, which is what the widget returns once drawn and what it will show
    when its drawing is put off to the end of the run (:mod:`ui.deferred`)."""
    return st.session_state[setting.url]


def record(setting: Setting, value: Any) -> Any:
    """Put ``value`` in this run's address bar (every widget helper does: a drawn setting is always in the link;
    an optional setting that is unset is left out: nothing, or no text; a 0 or a ``false`` it holds is said)."""
    if setting.optional and (value is None or value == ""):
        return value
    set_view_params({setting.url: setting.to_url(value)})
    return value


def choose(where: Any, setting: Setting, options: Sequence[T], default: T, **kwargs: Any) -> T:
    """A select box over ``options`` holding the setting's value (shown in the setting's words, when it has some)."""
    value = ensure(setting, lambda v: v in options, default)
    if setting.words and "format_func" not in kwargs:
        kwargs["format_func"] = setting.word
    if held(setting.url):  # its own default is the value it holds: drawn first (the set-up's editor opened), it is
        kwargs["index"] = list(options).index(value)  # sent without "set this value", and kept by the next run
    where.selectbox(setting.label, list(options), key=setting.url, help=setting.help, **kwargs)
    return record(setting, drawn(setting))  # type: ignore[no-any-return]


def choose_many(
    where: Any, setting: Setting, options: Sequence[str], default: Sequence[str], **kwargs: Any
) -> list[str]:
    """A multiselect over ``options``; values it cannot offer are dropped (and noted when from the link)."""
    limit = kwargs.get("max_selections")

    def valid(value: Any) -> bool:
        return isinstance(value, list) and all(v in options for v in value) and (limit is None or len(value) <= limit)

    current = st.session_state.get(setting.url)
    if isinstance(current, list) and not valid(current):
        kept = [v for v in current if v in options][: limit or None]
        if setting.url in st.session_state.get(FROM_URL_KEY, set()):
            _note(setting.url, "some values are not offered here")
        st.session_state[setting.url] = kept
        st.session_state.get(FROM_URL_KEY, set()).discard(setting.url)
    ensure(setting, valid, list(default))
    where.multiselect(setting.label, list(options), key=setting.url, help=setting.help, **kwargs)
    return record(setting, drawn(setting))  # type: ignore[no-any-return]


def number(where: Any, setting: Setting, low: float, high: float, default: float, **kwargs: Any) -> Any:
    """A number box within ``[low, high]`` holding the setting's value."""
    value = ensure(
        setting, lambda v: isinstance(v, int | float) and low <= v <= high, default, f"outside {low:g}–{high:g}"
    )
    if held(setting.url) and "value" not in kwargs and type(value) is type(low):  # as choose(): kept when first drawn
        kwargs["value"] = value
    where.number_input(setting.label, min_value=low, max_value=high, key=setting.url, help=setting.help, **kwargs)
    return record(setting, drawn(setting))


def toggle(where: Any, setting: Setting, default: bool) -> bool:
    ensure(setting, lambda v: isinstance(v, bool), default)
    where.toggle(setting.label, key=setting.url, help=setting.help)
    return record(setting, drawn(setting))  # type: ignore[no-any-return]


def segmented(where: Any, setting: Setting, options: Sequence[str], default: str) -> str:
    """A segmented control that always holds one of ``options``."""
    held_value = ensure(setting, lambda v: v in options, default)
    own = {"default": held_value} if held(setting.url) else {}  # as choose(): kept when first drawn
    where.segmented_control(setting.label, list(options), key=setting.url, help=setting.help, **own)
    value = drawn(setting)
    if value is None:  # a second click deselects: keep the setting's value explicit
        value = default
    return str(record(setting, str(value)))


def text(where: Any, setting: Setting, default: str, **kwargs: Any) -> str:
    ensure(setting, lambda v: isinstance(v, str), default)
    where.text_input(setting.label, key=setting.url, help=setting.help, **kwargs)
    return record(setting, drawn(setting))  # type: ignore[no-any-return]


def value_of(setting: Setting, default: Any = None) -> Any:
    """A setting without a widget (``spec``, ``calib``): its session value, else ``default``."""
    st.session_state.get(FROM_URL_KEY, set()).discard(setting.url)
    return st.session_state.get(setting.url, default)


def set_value(setting: Setting, value: Any) -> None:
    """Change a setting that has no widget (``calib``); the address bar follows at the end of the run, and an
    optional setting set to nothing leaves the link."""
    if value is None:
        st.session_state.pop(setting.url, None)
    else:
        st.session_state[setting.url] = value
    if setting.optional and not value:
        st.session_state.get(VIEW_PARAMS_KEY, {}).pop(setting.url, None)
    else:
        record(setting, value)


def scrub(setting: Setting, reason: str) -> None:
    """Empty a widget's value before it is drawn (a token pasted into the repository field): it never reaches
    the widget, the address bar or the share link, and the note says why without repeating it."""
    st.session_state[setting.url] = ""
    st.session_state.get(PAGE_VALUES_KEY, {}).pop(setting.url, None)
    st.session_state.get(VIEW_PARAMS_KEY, {}).pop(setting.url, None)
    _note(setting.url, reason)


def drop_from_url(setting: Setting, reason: str) -> None:
    """A setting the link carried that turned out unusable (a damaged model description): note and forget it."""
    if setting.url in st.session_state.get(FROM_URL_KEY, set()) or setting.url in st.session_state:
        _note(setting.url, reason)
    st.session_state.pop(setting.url, None)


def set_view_params(params: Mapping[str, str | list[str]]) -> None:
    """What this run's view puts in the address bar (the sidebar's settings and the page's)."""
    st.session_state.setdefault(VIEW_PARAMS_KEY, {}).update(params)


def view_params() -> dict[str, str | list[str]]:
    """Every parameter this run's view has put in the address bar so far."""
    return dict(st.session_state.get(VIEW_PARAMS_KEY, {}))


def begin_run() -> None:
    st.session_state[VIEW_PARAMS_KEY] = {}
    st.session_state[HELD_KEY] = set()


def write_url() -> None:
    """The address bar becomes exactly this view's settings."""
    params: dict[str, str | list[str]] = st.session_state.get(VIEW_PARAMS_KEY, {})
    if not params:
        return
    normalized = {k: (v if isinstance(v, list) else [v]) for k, v in params.items()}
    if normalized != _current_query():
        st.query_params.from_dict(params)
    st.session_state[WRITTEN_KEY] = normalized


def ignored_parameters() -> list[Ignored]:
    """The link parameters this session did not use (also those a page found unusable)."""
    return list(st.session_state.get(IGNORED_KEY, []))


def aliased_models() -> list[str]:
    """What the link's model, named by a catalog alias, is planned as (one sentence, or none)."""
    return list(st.session_state.get(ALIASED_KEY, []))
