"""Every widget of every page is a declared setting (or a named exception), and after any interaction the
address bar opens the identical view cold (issue "one answer": the advisor dropped its workload from the
link; the address bar lost `tp`)."""

from __future__ import annotations

from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from planner.engines.registry import settings_taken
from planner.engines.settings import ENGINE_SETTINGS, shown_name
from tests.app.conftest import CALIBRATE, COMMANDS, PAGES, SOURCES, figures, plain, run_page
from ui import advisor_settings, deployment, settings, sidebar_launch
from ui.page_registry import plans_hardware

WIDGET_KINDS = (
    "selectbox",
    "multiselect",
    "number_input",
    "text_input",
    "text_area",
    "slider",
    "select_slider",
    "toggle",
    "checkbox",
    "radio",
    "button_group",
    "date_input",
    "time_input",
    "color_picker",
)
# Widgets that are not settings, and why.
UNBOUND = {
    "hf_token_session": "an access token: for the session only, never in a link",
    "startup_log": "a pasted log: the measured figures it gives travel as `calib`",
    "custom_upload": "an uploaded config.json: the model it describes travels as `spec`",
    "nvidia_smi_paste": "a pasted nvidia-smi table: the memory in use it gives travels as `used_mem`",
}
UNBOUND_PREFIXES = {"custom_form.": "the custom-model form: the model it describes travels as `spec` on submit"}
DECLARED = {key for s in settings.SETTINGS for key in s.widget_keys}
# Set-up settings without a widget of their own: the context is drawn as its two views (a slider and a box), the
# custom model and the calibration travel in the link only.
NO_WIDGET = {settings.CONTEXT.url, settings.CUSTOM_SPEC.url, settings.CALIBRATION.url}
# The sidebar's hardware settings: not drawn on a page that plans every set-up under its own (the advisor).
S = settings
HARDWARE_SETTINGS = {
    s.url for s in (S.GPU, S.GPUS, S.TP, S.PP, S.WEIGHTS, S.KV, S.ENGINE, S.ENGINE_VERSION, S.UTIL, *S.LAUNCH_SETTINGS)
}
# Each page with a link that draws all of its widgets.
OPENED: dict[str, dict[str, str | list[str]]] = {
    "memory": {"engine": "vllm"},
    "what_if": {"curves": ["bf16/bf16", "fp8/fp8"]},
    "compare": {},
    "advisor": {"preset": "custom"},
    "catalog": {},
    "custom": {},
}


def _open_sections(at: AppTest) -> AppTest:
    """Open the lazy sections (closed, with every setting at its default, they draw no widget) so that their
    widgets are checked too: the Memory page's Deployment section, Launch commands, Calibrate from my log (its text
    area: an unbound widget) and sources, the sidebar's Launch settings and the advisor's settings expanders."""
    keys = [
        deployment.OPEN_KEY,
        COMMANDS,
        CALIBRATE,
        SOURCES,
        sidebar_launch.OPEN_KEY,
        *advisor_settings.BOX_KEYS.values(),
    ]
    closed = [k for k in keys if k in at.session_state and not at.session_state[k]]
    for key in closed:
        at.session_state[key] = True
    if closed:
        at.run()
    return at


def _widgets(at: AppTest) -> list[Any]:
    found = []
    for kind in WIDGET_KINDS:
        found.extend(getattr(at, kind))
    return found


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_widget_is_a_declared_setting(page: str) -> None:
    at = _open_sections(run_page(page, OPENED.get(page, {}), editor=True))
    assert not at.exception
    keys = {widget.key for widget in _widgets(at)}
    # the advisor plans every set-up under its own hardware: its sidebar draws the workload alone (and keeps the rest)
    drawn = NO_WIDGET | (set() if plans_hardware(page) else HARDWARE_SETTINGS)
    # a launch setting the page's engine does not take (TensorRT-LLM's attention window under vLLM) is not drawn
    engine = at.session_state["_selection"].engine
    taken = {shown_name(declared) for declared in settings_taken(engine)}
    drawn |= {shown_name(declared) for declared in ENGINE_SETTINGS} - taken
    assert {s.url for s in settings.SIDEBAR_SETTINGS if s.url not in drawn} <= keys, "the set-up not drawn"
    if page == "memory":
        assert {s.url for s in settings.DEPLOYMENT_SETTINGS} <= keys | {settings.STAGE_GPUS.url}, "section not drawn"
        assert "startup_log" in keys, "Calibrate from my log not drawn"
    for widget in _widgets(at):
        key = widget.key
        if key in UNBOUND or any(str(key).startswith(p) for p in UNBOUND_PREFIXES):
            continue
        assert key in DECLARED, (
            f"{page}: the widget {widget.label!r} (key {key!r}) is not bound to the link; declare a Setting in "
            "ui/settings.py and draw it with a ui.binding helper, or name it in UNBOUND with the reason"
        )


def _fingerprint(at: AppTest) -> dict[str, object]:
    """What a reader sees: the title, the verdicts, the metrics, and every setting the page holds."""
    return {
        "title": [t.value for t in at.title],
        "alerts": sorted(plain(str(e.value)) for e in (*at.success, *at.warning, *at.error, *at.info)),
        "metrics": figures(at),
        # a closed Deployment section or Launch settings box draws no widget: its settings then hold their defaults
        "settings": {
            **deployment.DEFAULTS,
            **sidebar_launch.DEFAULTS,
            **{k: at.session_state[k] for k in settings.BY_URL if k in at.session_state},
        },
    }


def _reopened(at: AppTest, page: str) -> AppTest:
    params = {k: v for k, v in at.query_params.items()}
    return run_page(page, params)


def _change(widget: Any) -> bool:
    """Move a widget to another value it offers; False when it has nothing else to offer."""
    kind = type(widget).__name__
    if kind == "SelectSlider":  # options are shown formatted ("32k"); the context slider holds token counts
        widget.set_value(32768 if widget.value != 32768 else 4096)
        return True
    if kind in ("Selectbox", "ButtonGroup"):
        options = [o for o in widget.options if o != widget.format_func(widget.value)] if kind != "ButtonGroup" else []
        if kind == "ButtonGroup":
            values = [getattr(o, "content", o) for o in widget.options]
            other = [v for v in values if v != widget.value]
            if not other:
                return False
            widget.set_value([other[-1]] if isinstance(widget.value, list) else other[-1])
            return True
        if not options:
            return False
        widget.set_value(widget.options[widget.options.index(options[-1])] if kind == "Selectbox" else options[-1])
        return True
    if kind == "NumberInput":
        value = widget.value
        target = widget.max if widget.max is not None and value != widget.max else widget.min
        if isinstance(value, float):
            target = round((value or 0) + 0.05, 2) if value < 0.9 else 0.5
        widget.set_value(target)
        return True
    if kind == "Multiselect":
        other = [o for o in widget.options if o not in widget.value][:1]
        if not other:
            return False
        widget.set_value([*widget.value, *other])
        return True
    if kind == "Toggle":
        widget.set_value(not widget.value)
        return True
    return False


# The settings changed one at a time on each page (the sidebar's on the Memory page).
CHANGED: dict[str, tuple[str, ...]] = {
    "memory": (
        *("model", "gpu", "gpus", "tp", "weights", "kv", "engine", "util", "context_pick", "users", "unit"),
        *("loras", "spec_method", "used_mem", "mig", "kv_offload", "cpu_offload", "stage_gpus"),
    ),
    "what_if": ("curves", "curve_gpus", "contiguous"),
    "compare": ("combos",),
    "advisor": ("preset", "plan_at", "pricing", "budget", "prefix", "min_tps", "gpu_filter"),
}


@pytest.mark.parametrize(("page", "key"), [(p, k) for p, keys in CHANGED.items() for k in keys])
def test_after_any_change_the_address_bar_opens_the_same_view(page: str, key: str) -> None:
    start = {"model": "meta-llama/Llama-3.1-70B", "gpus": "2", "weights": "fp8", "kv": "fp8", "users": "50"}
    at = run_page(page, {**start, **OPENED.get(page, {})}, editor=True)
    at = _open_sections(at)
    widget = next((w for w in _widgets(at) if w.key == key), None)
    assert widget is not None, f"{page}: no widget {key}"
    before = _fingerprint(at)
    if not _change(widget):
        pytest.skip(f"{key} offers one value here")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert _fingerprint(at)["settings"] != before["settings"], f"changing {key} changed no setting"
    cold = _reopened(at, page)
    assert not cold.exception
    assert _fingerprint(cold) == _fingerprint(at)
