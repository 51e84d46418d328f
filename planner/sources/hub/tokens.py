"""The access token: where it may come from, what it may contain, and how it is held so that it never prints.

- **Where from**: the caller's token, or ``HF_TOKEN`` only when the caller allows it (:func:`resolve_token`).
  The command line runs as the operator and allows it; the dashboard does not by default, so an operator's
  token never reads gated repositories for anonymous visitors (``HEADROOM_SHARE_SERVER_TOKEN=1`` opts in).
- **What**: HTTP header values are Latin-1 bytes (RFC 9110 section 5.5; ``http.client`` encodes them so), and a
  Hugging Face token is ASCII letters, digits and ``_``. Surrounding whitespace is stripped; anything else
  outside printable ASCII (a pasted zero-width space, a smart quote, an inner space) is refused up front
  with a message that names the problem and never the token.
- **How held**: a :class:`_Secret`, whose ``repr``/``str`` show ``***`` and which refuses to be pickled.
"""

from __future__ import annotations

import os
from typing import Any

from planner.sources.hub.audience import server_token_name
from planner.sources.hub.errors import HubAccessError

__all__ = ["MAX_TOKEN_CHARS", "_Secret", "check_token", "resolve_token"]

MAX_TOKEN_CHARS = 1_000  # Hugging Face tokens are 37 characters; an OAuth or JWT-style token stays well below


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


def check_token(raw: str, source: str = "the access token") -> _Secret | None:
    """``raw`` without surrounding whitespace, held as a :class:`_Secret`; None when empty.

    >>> check_token("  hf_abc  ")
    '***'
    >>> check_token("hf_abc\\u200b")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    planner.sources.hub.errors.HubAccessError: the access token contains a space or a character ...
    """
    value = raw.strip()
    if not value:
        return None
    if len(value) > MAX_TOKEN_CHARS:
        raise HubAccessError(f"{source} is {len(value):,} characters long: that is not an access token")
    if not all("!" <= c <= "~" for c in value):
        raise HubAccessError(
            f"{source} contains a space or a character that is not printable ASCII (often a zero-width space "
            "or a smart quote pasted with it): paste it again, as plain text"
        )
    return _Secret(value)


def resolve_token(explicit: str | None, allow_env: bool) -> _Secret | None:
    """The token to send: ``explicit`` when given, else ``HF_TOKEN`` when ``allow_env``, else none."""
    if explicit is not None:
        return check_token(explicit)
    if allow_env:
        return check_token(os.environ.get("HF_TOKEN") or "", source=server_token_name())
    return None
