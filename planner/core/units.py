"""Byte units. Everything inside the planner is an ``int`` number of bytes; these helpers format at the edge.

GB is the SI gigabyte (10**9 bytes, as GPU vendors market memory); GiB is 2**30 bytes (as ``nvidia-smi``,
PyTorch and every serving engine report memory). A displayed number always says which one it is.
"""

from __future__ import annotations

from typing import Literal

KiB = 2**10
MiB = 2**20
GiB = 2**30
KB = 10**3
MB = 10**6
GB = 10**9

MemoryUnit = Literal["GiB", "GB"]
UNIT_BYTES: dict[str, int] = {"GiB": GiB, "GB": GB, "MiB": MiB, "MB": MB, "KiB": KiB, "KB": KB}


def to_unit(n_bytes: float, unit: str) -> float:
    """``n_bytes`` expressed in ``unit`` (``"GiB"``, ``"GB"``, ``"MiB"``, …).

    >>> to_unit(80 * 10**9, "GB"), round(to_unit(80 * 10**9, "GiB"), 2)
    (80.0, 74.51)
    """
    return n_bytes / UNIT_BYTES[unit]


def format_bytes(n_bytes: float, unit: str = "GiB", digits: int = 2) -> str:
    """A fixed unit, so numbers on one page compare.

    >>> format_bytes(85_520_809_984)
    '79.65 GiB'
    >>> format_bytes(85_520_809_984, "GB", 1)
    '85.5 GB'
    """
    return f"{to_unit(n_bytes, unit):,.{digits}f} {unit}"


def format_bytes_auto(n_bytes: float, binary: bool = True) -> str:
    """Human size with the unit picked by magnitude (like humanize's ``naturalsize(n, binary=True)``).

    >>> format_bytes_auto(131_072), format_bytes_auto(131_072, binary=False)
    ('128.00 KiB', '131.07 KB')
    """
    units = ("B", "KiB", "MiB", "GiB", "TiB") if binary else ("B", "KB", "MB", "GB", "TB")
    base = 1024 if binary else 1000
    value = float(n_bytes)
    for unit in units:
        if abs(value) < base or unit == units[-1]:
            return f"{value:,.0f} {unit}" if unit == "B" else f"{value:,.2f} {unit}"
        value /= base
    raise AssertionError("unreachable")  # pragma: no cover


def format_tokens(n_tokens: float) -> str:
    """Token counts in a sentence: exact below a million, then in millions spelled out, so that no count reads as a
    context name ("32k" is 32,768 tokens, :func:`planner.assessment.words.context_label`; a count of "32.8 k" beside
    it was 1,000-based).

    >>> format_tokens(1_234_567), format_tokens(32_768), format_tokens(4_096), format_tokens(217_648)
    ('1.23 million', '32,768', '4,096', '217,648')
    """
    if abs(n_tokens) >= 1e6:
        return f"{n_tokens / 1e6:.2f} million"
    return f"{n_tokens:,.0f}"
