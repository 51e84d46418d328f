"""planner.bounds.safe_json: the bounded JSON loader every outside input goes through (its doctests run here too)."""

from __future__ import annotations

import doctest
import time

import pytest

import planner.bounds.safe_json
import planner.sources.hub.tokens
from planner.bounds.errors import PlannerError
from planner.bounds.safe_json import load_json, nesting_depth


@pytest.mark.parametrize("module", [planner.bounds.safe_json, planner.sources.hub.tokens])
def test_doctests(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0


def test_depth_limit_is_exact() -> None:
    assert load_json("[" * 64 + "]" * 64, what="x", max_bytes=1_000) is not None
    with pytest.raises(PlannerError, match="x is nested deeper than 64 levels"):
        load_json("[" * 65 + "]" * 65, what="x", max_bytes=1_000)
    assert load_json('{"a": ' * 3 + "1" + "}" * 3, what="x", max_bytes=1_000, max_depth=3) == {"a": {"a": {"a": 1}}}


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ('"[[[["', 0),
        ('["\\"[[", {"k]": "}}"}]', 2),
        ('"\\\\"', 0),
        ("[1, [2, [3]], {}]", 3),
        ("", 0),
    ],
)
def test_brackets_inside_strings_do_not_count(text: str, depth: int) -> None:
    assert nesting_depth(text) == depth


def test_integer_digits_are_bounded_signs_aside() -> None:
    assert load_json("-" + "9" * 40, what="x", max_bytes=100) == -int("9" * 40)
    with pytest.raises(PlannerError, match="41 digits"):
        load_json("-" + "9" * 41, what="x", max_bytes=100)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "[1e400]", "-1e400"])
def test_non_finite_numbers_are_refused(literal: str) -> None:
    with pytest.raises(PlannerError, match="the reply"):
        load_json(literal, what="the reply", max_bytes=100)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [(b"\xff\xfe{}", "is not UTF-8"), ("\ufeff{}", "is not valid JSON"), (b'{"a": 1,}', "is not valid JSON (line 1")],
)
def test_malformed_input_names_what(data: bytes | str, fragment: str) -> None:
    with pytest.raises(PlannerError) as info:
        load_json(data, what="config.json", max_bytes=100)
    assert str(info.value).startswith(f"config.json {fragment}")


def test_hostile_inputs_are_refused_in_linear_time() -> None:
    inputs = ['"' + '\\"' * 500_000, '["' * 500_000, "[" * 1_000_000, "\\" * 1_000_000, "1" * 1_000_000]
    start = time.monotonic()
    for text in inputs:
        with pytest.raises(PlannerError):
            load_json(text, what="x", max_bytes=2_000_000)
    assert time.monotonic() - start < 3.0
