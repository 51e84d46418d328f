"""The errors of the Hub client, and the redaction every message and log record passes through.

Every failure raises a :class:`HubError` (a :class:`PlannerError`), so the dashboard never caches a failure
as a result. A message says what failed and what to do, and never holds a token: :class:`HubError` runs
its message through :func:`redact`, and so does every record of the ``planner.sources.hub`` logger.
"""

from __future__ import annotations

import logging
import re

from planner.bounds.errors import PlannerError

__all__ = [
    "MAX_MESSAGE_CHARS",
    "HubAccessError",
    "HubConnectionError",
    "HubError",
    "HubNotFoundError",
    "HubResponseError",
    "clip",
    "logger",
    "redact",
]

# One logger for the whole package: a filter on "planner.sources.hub" does not see records of child loggers.
logger = logging.getLogger("planner.sources.hub")

# Hugging Face user access tokens are "hf_" and 34 letters and digits (huggingface_hub docs, "User access
# tokens"); anything from 8 characters on is scrubbed, so a truncated or mistyped one is caught too.
# The longest message or note: ten lines of the dashboard's error box. A hostile server's text (a tensor name,
# an error body, a redirect target) is clipped where it is quoted, and every message once more here.
MAX_MESSAGE_CHARS = 1_000
TOKEN_PATTERN = re.compile(r"\bhf_[A-Za-z0-9]{8,}")


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with each secret, and anything shaped like a Hugging Face token (``hf_…``), replaced."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return TOKEN_PATTERN.sub("hf_***", text)


def clip(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` cut to at most ``limit`` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    kept = max(0, limit - len(f"… ({len(text):,} characters cut)"))
    return text[:kept] + f"… ({len(text) - kept:,} characters cut)"


class HubError(PlannerError):
    """The Hub could not be read. The message says what failed and what to do; it never holds a token.

    The message is redacted (:func:`redact`), then clipped to :data:`MAX_MESSAGE_CHARS`.
    """

    def __init__(self, message: str) -> None:
        super().__init__(clip(redact(message)))


class HubConnectionError(HubError):
    """Offline, DNS failure, connection refused or a time-out."""


class HubAccessError(HubError):
    """401/403: a gated or private repository, or a rejected token."""


class HubNotFoundError(HubError):
    """404: no such repository, or no such revision in it."""


class HubResponseError(HubError):
    """The Hub answered, but not usably: malformed JSON, an oversized response, a lying safetensors header."""


class _RedactingFilter(logging.Filter):
    """Scrubs token-shaped strings from every record of the ``planner.sources.hub`` logger (a second line of
    defence)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


logger.addFilter(_RedactingFilter())
