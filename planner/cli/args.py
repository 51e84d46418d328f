"""Argument types of every command: each number parsed strictly (ASCII digits, a bounded length, finite) and within
the bounds of :mod:`planner.bounds.limits`, so that a hostile argument is one line naming it (argparse prints
``error: argument --gpus: ...`` and exits with status 2) before any work."""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable

from planner.core.context_text import parse_context
from planner.core.overhead import check_release

_WHOLE = re.compile(r"[-+]?[0-9]{1,20}")
_DECIMAL = re.compile(r"[-+]?(?:[0-9]{1,20}(?:\.[0-9]{0,20})?|\.[0-9]{1,20})(?:[eE][-+]?[0-9]{1,3})?")
_SHOWN = 24  # characters of a refused argument quoted back


def _shown(text: str) -> str:
    return repr(text[:_SHOWN] + ("…" if len(text) > _SHOWN else ""))


def whole(low: int, high: int) -> Callable[[str], int]:
    """A whole number in ``[low, high]``."""

    def parse(text: str) -> int:
        if not _WHOLE.fullmatch(text.strip()):
            raise argparse.ArgumentTypeError(f"expected a whole number from {low:,} to {high:,}, got {_shown(text)}")
        return _within(int(text), low, high)

    return parse


def _within(value: int, low: int, high: int) -> int:
    """``value`` when in ``[low, high]``, else the one line argparse prints."""
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"{value:,} is outside {low:,} to {high:,}")
    return value


def tokens(low: int, high: int) -> Callable[[str], int]:
    """A token count in ``[low, high]``, in digits or as the dashboard labels it (``32k``, ``1M``:
    :func:`planner.core.context_text.parse_context`, the links' parser too).

    >>> tokens(1, 2**20)("32k"), tokens(1, 2**20)("131072"), tokens(1, 2**20)("+8192")
    (32768, 131072, 8192)
    """

    signed = whole(low, high)

    def parse(text: str) -> int:
        if text.strip()[:1] in ("+", "-"):
            return signed(text)  # a signed number, as whole() reads it
        try:
            value = parse_context(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected a token count from {low:,} to {high:,} (digits, or 32k, 1M), got {_shown(text)}"
            ) from None
        return _within(value, low, high)

    return parse


def decimal(low: float, high: float, *, above_low: bool = False, below_high: bool = False) -> Callable[[str], float]:
    """A finite number between ``low`` and ``high`` (each bound included unless ``above_low`` / ``below_high``)."""
    left, right = "(" if above_low else "[", ")" if below_high else "]"
    span = f"{left}{low:g}, {high:g}{right}"

    def parse(text: str) -> float:
        if not _DECIMAL.fullmatch(text.strip()):
            raise argparse.ArgumentTypeError(f"expected a number in {span}, got {_shown(text)}")
        value = float(text)
        too_low = value <= low if above_low else value < low
        too_high = value >= high if below_high else value > high
        if not math.isfinite(value) or too_low or too_high:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is outside {span}")
        return value

    return parse


def release(text: str) -> str:
    """An engine release (``0.19.0``, ``b6000``): a short version pattern."""
    try:
        return check_release(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
