"""An engine release as a comparable triple (:func:`parse_version`), for the rules that change by release."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=256)  # pure, called per stage of every plan; keyed by a release string: bounded
def parse_version(version: str) -> tuple[int, int, int]:
    """An engine release as a comparable triple; missing parts are 0.

    >>> parse_version("0.19.0")
    (0, 19, 0)
    >>> parse_version("v0.10.2rc1")
    (0, 10, 2)
    >>> parse_version("~0.10")
    (0, 10, 0)
    """
    parts: list[int] = []
    for piece in version.strip().lstrip("v~").split(".")[:3]:
        digits = ""
        for char in piece:
            if char not in "0123456789":  # str.isdigit() also accepts "²", which int() refuses
                break
            digits += char
        parts.append(int(digits) if digits else 0)
    while len(parts) < 3:
        parts.append(0)
    return parts[0], parts[1], parts[2]
