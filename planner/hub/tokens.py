"""The access token: held in a :class:`_Secret` that does not print, pickle or appear in a ``repr``."""

from __future__ import annotations

from typing import Any

__all__ = ["_Secret"]


class _Secret:
    """A token that does not print: ``repr``/``str`` show ``***``."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "'***'"

    __str__ = __repr__

    def __reduce__(self) -> Any:
        raise TypeError("a token is not picklable")
