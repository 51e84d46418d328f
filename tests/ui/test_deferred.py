"""The sidebar drawn after the page (ui.deferred): calls recorded in order, made on the real container once, with
columns and expanders resolved when drawn."""

from __future__ import annotations

from typing import Any

from ui.deferred import Deferred


class Recorder:
    """A stand-in container that logs every call and makes child containers."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name, self.log = name, log

    def __getattr__(self, method: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            self.log.append(f"{self.name}.{method}{args}")
            return Recorder(f"{self.name}/{method}", self.log)

        return call

    def columns(self, spec: int | list[float]) -> list[Recorder]:
        self.log.append(f"{self.name}.columns({spec})")
        return [Recorder(f"{self.name}/col{i}", self.log) for i in range(spec if isinstance(spec, int) else len(spec))]


def test_calls_are_made_in_order_when_drawn_and_once() -> None:
    log: list[str] = []
    sidebar = Deferred(lambda: Recorder("sidebar", log))
    sidebar.markdown("### Set-up")
    left, right = sidebar.columns(2)
    right.selectbox("TP")
    left.selectbox("GPUs")
    sidebar.expander("Token").text_input("Hugging Face token")
    assert sidebar.caption("drawn later") is None  # a recorded call returns nothing: values come from the session
    assert log == []  # nothing drawn yet: the page comes first
    sidebar.draw()
    assert log == [
        "sidebar.markdown('### Set-up',)",
        "sidebar.columns(2)",
        "sidebar/col1.selectbox('TP',)",
        "sidebar/col0.selectbox('GPUs',)",
        "sidebar.expander('Token',)",
        "sidebar/expander.text_input('Hugging Face token',)",
        "sidebar.caption('drawn later',)",
    ]
    sidebar.draw()
    assert len(log) == 7  # drawn once


def test_alerts_are_known_across_containers() -> None:
    """The set-up's summary is drawn only when the recorded sidebar says nothing (ui.setup_summary)."""
    quiet = Deferred(lambda: Recorder("sidebar", []))
    quiet.markdown("### Set-up")
    quiet.columns(2)[1].caption("TP")
    assert not quiet.alerts()
    said = Deferred(lambda: Recorder("sidebar", []))
    said.columns(3)[2].selectbox("PP")
    said.expander("Token").warning("a release without a public log")
    assert said.alerts()
