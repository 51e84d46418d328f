"""Context lengths as people write them: ``32k`` is 32,768 tokens and ``1M`` 1,048,576 (binary units, as the
slider, model cards and engines quote them). One label and one parser, so a length the page shows can be typed
back into a link, the CLI or a field (:func:`context_label`, :func:`parse_context`)."""

from __future__ import annotations

import re

MEBI_TOKENS = 2**20  # contexts are quoted in binary units: 1k = 1,024 tokens, 1M = 1,048,576
_SHORT = re.compile(r"([0-9]{1,5})([kKmM])")
_DIGITS = re.compile(r"[0-9]{1,12}")


def context_label(tokens: int) -> str:
    """Context sizes as they are quoted (k = 1,024 tokens, M = 1,024k).

    >>> context_label(32768), context_label(1048576), context_label(10485760), context_label(1572864)
    ('32k', '1M', '10M', '1536k')
    >>> context_label(5000)
    '5,000'
    """
    if tokens >= MEBI_TOKENS and tokens % MEBI_TOKENS == 0:
        return f"{tokens // MEBI_TOKENS}M"
    if tokens >= 1024 and tokens % 1024 == 0:
        return f"{tokens // 1024}k"
    return f"{tokens:,}"


def parse_context(text: str) -> int:
    """Tokens written as ASCII digits or as :func:`context_label` writes them (a whole number of ``k`` or ``M``);
    at most 12 digits, so no text costs more than a bounded match. Bounds are the caller's.

    >>> parse_context("32k"), parse_context("1M"), parse_context(" 8192 "), parse_context(context_label(131072))
    (32768, 1048576, 8192, 131072)
    >>> parse_context("1.5k")
    Traceback (most recent call last):
    ...
    ValueError: not a token count (digits, or a whole number of k or M)
    """
    text = text.strip()
    short = _SHORT.fullmatch(text)
    if short is not None:
        return int(short.group(1)) * (1024 if short.group(2) in "kK" else MEBI_TOKENS)
    if _DIGITS.fullmatch(text):
        return int(text)
    raise ValueError("not a token count (digits, or a whole number of k or M)")
