"""A container whose drawing is put off to later in the same run.

The frame reads every set-up setting from the link and the session before any widget is drawn, so it can draw the
answer first and the sidebar's widgets after it: the browser then receives the chart's element (and requests its
4.7 MB script) before the widgets' scripts, with the same page on screen at the end of the run
(``make bench``: the cold link). :class:`Deferred` stands in for ``st.sidebar``: every call on it (or on a
column, expander or container it returns) is recorded in order, and :meth:`Deferred.draw` makes them on the real
container. A recorded call returns nothing; a widget's value is its session state, which
:mod:`ui.binding` reads (the same value the widget would return).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Calls that return a container (their own calls are recorded against the container made at drawing time).
CONTAINERS = frozenset({"expander", "container", "popover", "empty"})
# Calls that tell the reader something about the set-up (a failed import, a replaced value, an extrapolated release).
ALERTS = frozenset({"error", "warning", "info", "success", "exception", "toast"})


class Deferred:
    """Calls on a container, recorded now and made by :meth:`draw`."""

    def __init__(
        self, resolve: Callable[[], Any], steps: list[Callable[[], None]] | None = None, names: list[str] | None = None
    ) -> None:
        self._resolve = resolve
        self._steps: list[Callable[[], None]] = [] if steps is None else steps
        self._names: list[str] = [] if names is None else names  # what was called, on this container or within

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args: Any, **kwargs: Any) -> Deferred | None:
            made: list[Any] = []
            self._steps.append(lambda: made.append(getattr(self._resolve(), name)(*args, **kwargs)))
            self._names.append(name)
            return Deferred(lambda: made[0], self._steps, self._names) if name in CONTAINERS else None

        return call

    def columns(self, spec: int | list[float], **kwargs: Any) -> list[Deferred]:
        """``st.columns``: one recorded container per column."""
        made: list[Any] = []
        self._steps.append(lambda: made.extend(self._resolve().columns(spec, **kwargs)))
        self._names.append("columns")
        count = spec if isinstance(spec, int) else len(spec)
        return [
            Deferred(lambda index=index: made[index], self._steps, self._names)  # type: ignore[misc]
            for index in range(count)
        ]

    def alerts(self) -> bool:
        """Whether any recorded call is an alert (:data:`ALERTS`)."""
        return not ALERTS.isdisjoint(self._names)

    def draw(self) -> None:
        """Make every recorded call, in the order recorded (once)."""
        steps, self._steps[:] = list(self._steps), []
        for step in steps:
            step()
