"""Type checks for the fields read from a Hub reply: each wrong field is a :class:`HubResponseError` naming it.

A reply is parsed by :func:`planner.bounds.safe_json.load_json` (bounded size, depth and integers, finite numbers),
then every field the planner uses is checked here before it is used: a count is a whole number in a sane
range, a name is short printable text, an object is an object. Nothing a server sends can then surface as a
``TypeError``, ``AttributeError``, ``OverflowError`` or a number no real checkpoint has.
"""

from __future__ import annotations

from typing import Any

from planner.sources.hub.errors import HubResponseError

__all__ = ["MAX_COUNT", "describe", "mapping", "optional_count", "quoted", "short_text", "whole_number"]

# The largest parameter, element or byte count accepted: 2^53 (~9.0e15), the largest integer a float holds
# exactly (the plan's arithmetic goes through floats), over 1,000 times the largest checkpoints on the Hub
# (~2e12 parameters, ~8e12 bytes in fp32).
MAX_COUNT = 2**53
_QUOTED = 80  # characters of a server's text quoted in a message


def quoted(text: str, limit: int = _QUOTED) -> str:
    """``repr(text)``, cut to about ``limit`` characters: a server's text inside a message."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"… ({len(text):,} characters)"


def describe(value: Any) -> str:
    """A short description of a JSON value for a message (never the whole value, never a huge number)."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return f"{value:,}" if value.bit_length() <= 128 else f"an integer of {value.bit_length():,} bits"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return quoted(value, 40)
    if isinstance(value, list):
        return "a list"
    return "an object" if isinstance(value, dict) else type(value).__name__


def whole_number(value: Any, field: str, where: str, low: int = 0, high: int = MAX_COUNT) -> int:
    """``value`` as an int in ``[low, high]``: an integer, or a float with no fraction (JSON has one number type)."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    if number is None or not low <= number <= high:
        raise HubResponseError(
            f"{where}: {field} must be a whole number from {low:,} to {high:,}, not {describe(value)}"
        )
    return number


def optional_count(value: Any, field: str, where: str) -> int | None:
    """A count that may be absent (``None``); 0 is read as absent too (the Hub writes 0 for "unknown")."""
    if value is None:
        return None
    return whole_number(value, field, where) or None


def short_text(value: Any, field: str, where: str, limit: int = 100) -> str:
    """``value`` as printable text of at most ``limit`` characters (a name, a dtype, a method)."""
    if not isinstance(value, str) or len(value) > limit or not value.isprintable():
        raise HubResponseError(
            f"{where}: {field} must be printable text of at most {limit} characters, not {describe(value)}"
        )
    return value


def mapping(value: Any, field: str, where: str) -> dict[str, Any] | None:
    """``value`` if it is a JSON object, None if absent (``null``); anything else names the field."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise HubResponseError(f"{where}: {field} must be an object, not {describe(value)}")
    return value
