"""One bounded JSON loader for everything that comes from outside: Hub replies, config uploads, link parameters.

:func:`json.loads` alone trusts its input more than untrusted input deserves (Python ``json`` docs,
"Infinite and NaN Number Values" and the ``parse_int`` notes; CPython's integer string conversion limit):

- **size**: it reads whatever it is given; :func:`load_json` refuses more than ``max_bytes`` before decoding;
- **nesting**: it recurses once per ``[`` / ``{`` and raises :class:`RecursionError` near 1,000 levels;
  :func:`load_json` measures the depth first, without recursion, and refuses more than ``max_depth``;
- **integers**: a literal over 4,300 digits raises a bare :class:`ValueError` (``sys.int_info``); real data
  needs far fewer, so :func:`load_json` refuses more than ``max_int_digits`` through ``parse_int``;
- **NaN, Infinity, -Infinity**: accepted by default though not JSON (RFC 8259 section 6), and ``1e999`` becomes
  ``inf``; :func:`load_json` refuses both, so every number it returns is finite.

Every refusal is a :class:`PlannerError` whose message names ``what`` was read and the problem:

>>> load_json(b'{"layers": 32, "ratio": 0.5}', what="config.json", max_bytes=1_000)
{'layers': 32, 'ratio': 0.5}
>>> load_json("[" * 100 + "]" * 100, what="config.json", max_bytes=1_000)
Traceback (most recent call last):
planner.bounds.errors.PlannerError: config.json is nested deeper than 64 levels; refused
>>> load_json('{"total": ' + "9" * 50 + "}", what="the API entry", max_bytes=1_000)
Traceback (most recent call last):
planner.bounds.errors.PlannerError: the API entry has an integer of 50 digits (at most 40 are accepted); refused
>>> load_json('{"total_size": NaN}', what="the index", max_bytes=1_000)
Traceback (most recent call last):
planner.bounds.errors.PlannerError: the index contains NaN, which is not a JSON number; refused
>>> load_json('{"total_size": 1e999}', what="the index", max_bytes=1_000)
Traceback (most recent call last):
planner.bounds.errors.PlannerError: the index has a number too large for a float (1e999); refused
>>> load_json(b"x" * 2_000, what="a link parameter", max_bytes=1_000)
Traceback (most recent call last):
planner.bounds.errors.PlannerError: a link parameter is 2,000 bytes, over the 1,000-byte limit; refused
>>> load_json(b'{"a": ', what="config.json", max_bytes=1_000)
Traceback (most recent call last):
planner.bounds.errors.PlannerError: config.json is not valid JSON (line 1, column 7: Expecting value)
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any, NoReturn

from planner.bounds.errors import PlannerError

__all__ = ["load_json", "nesting_depth"]

# A JSON string (escapes included) or a stray escape: removed before brackets are counted, so a bracket
# inside a string never counts. Possessive quantifiers keep the scan linear on any input.
_STRINGS = re.compile(r'"(?:[^"\\]++|\\.)*+"|\\.', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]++")
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_SHOWN = 20  # characters of an offending literal quoted in a message


def _refuse(message: str) -> NoReturn:
    raise PlannerError(message)


def nesting_depth(text: str) -> int:
    """The deepest nesting of ``[`` / ``{`` in JSON ``text``, outside strings, found without recursion.

    Exact for valid JSON; for invalid JSON an upper bound of what a parser would reach before failing.

    >>> nesting_depth('{"a": [1, {"b": "[[["}]}')
    3
    """
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    return max(accumulate(_DEPTH_STEP[c] for c in brackets), default=0)


def load_json(data: bytes | str, *, what: str, max_bytes: int, max_depth: int = 64, max_int_digits: int = 40) -> Any:
    """``data`` parsed as JSON, or a :class:`PlannerError` naming ``what`` and the problem.

    ``max_bytes`` bounds the size (characters, for a ``str``) before anything else is done; ``max_depth`` the
    nesting of arrays and objects; ``max_int_digits`` the digits of an integer literal. NaN, Infinity and
    numbers that overflow a float are refused, so every number returned is finite.
    """
    if len(data) > max_bytes:
        _refuse(f"{what} is {len(data):,} bytes, over the {max_bytes:,}-byte limit; refused")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            _refuse(f"{what} is not UTF-8 text")
    if nesting_depth(data) > max_depth:
        _refuse(f"{what} is nested deeper than {max_depth} levels; refused")

    def parse_int(literal: str) -> int:
        digits = len(literal.lstrip("-"))
        if digits > max_int_digits:
            _refuse(f"{what} has an integer of {digits:,} digits (at most {max_int_digits} are accepted); refused")
        return int(literal)

    def parse_float(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):
            _refuse(f"{what} has a number too large for a float ({literal[:_SHOWN]}); refused")
        return value

    def parse_constant(name: str) -> NoReturn:
        _refuse(f"{what} contains {name}, which is not a JSON number; refused")

    try:
        return json.loads(data, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant)
    except json.JSONDecodeError as exc:
        _refuse(f"{what} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")
    except RecursionError:  # not reached after the depth check; kept so that no input escapes as one
        _refuse(f"{what} is nested too deeply to parse; refused")
