"""Who reads a Hub message, and what it may tell them.

The command line runs as the operator: it reads ``HF_ENDPOINT`` and ``HF_TOKEN``, so its messages name the
endpoint's address and say which variable to set. A visitor of the dashboard can set neither, and the endpoint may
be an internal mirror whose address is the operator's business: inside :func:`for_visitors`, messages name the
public Hub (huggingface.co) or "the Hub this server reads", and the advice is what a visitor can do (give an
access token in the page, try later, pick a catalog model). A :class:`contextvars.ContextVar`, like the import's
deadline (:mod:`planner.sources.hub.deadline`): the dashboard wraps its whole import in it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from urllib.parse import urlsplit

__all__ = [
    "DEFAULT_ENDPOINT",
    "endpoint_advice",
    "for_visitors",
    "hub_name",
    "repo_page",
    "server_token_name",
    "to_a_visitor",
    "token_advice",
]

DEFAULT_ENDPOINT = "https://huggingface.co"
_VISITOR: ContextVar[bool] = ContextVar("headroom_hub_visitor", default=False)


@contextmanager
def for_visitors() -> Iterator[None]:
    """Messages raised in this block are for a visitor of the dashboard, not for the server's operator."""
    token = _VISITOR.set(True)
    try:
        yield
    finally:
        _VISITOR.reset(token)


def to_a_visitor() -> bool:
    """Whether the message being written is for a visitor (inside :func:`for_visitors`)."""
    return _VISITOR.get()


def _public(endpoint: str) -> bool:
    return endpoint.rstrip("/") == DEFAULT_ENDPOINT


def hub_name(endpoint: str) -> str:
    """The Hub as a message names it: the endpoint's host for the operator and for the public Hub; for a visitor
    of a server reading another endpoint (a mirror), "the Hub this server reads".

    >>> hub_name("http://mirror.internal:8080")
    'mirror.internal:8080'
    >>> with for_visitors():
    ...     hub_name("http://mirror.internal:8080"), hub_name("https://huggingface.co")
    ('the Hub this server reads', 'huggingface.co')
    """
    if to_a_visitor() and not _public(endpoint):
        return "the Hub this server reads"
    return urlsplit(endpoint).netloc


def repo_page(endpoint: str, repo_id: str) -> str:
    """Where access to ``repo_id`` is requested: on the endpoint for the operator; on huggingface.co for a visitor
    (a mirror serves the Hub's repositories; its address is not theirs to see)."""
    return f"{DEFAULT_ENDPOINT if to_a_visitor() else endpoint.rstrip('/')}/{repo_id}"


def token_advice(kind: str = "a token with read permission") -> str:
    """What to do for an access token: set ``HF_TOKEN`` (the operator), or give one on the page (a visitor)."""
    if to_a_visitor():
        return f"give {kind} in the access-token box"
    return f"set HF_TOKEN to {kind}"


def endpoint_advice() -> str:
    """What to do when the endpoint cannot be reached: check ``HF_ENDPOINT`` (the operator), or try later."""
    if to_a_visitor():
        return "the server cannot reach the Hub right now; try again later or pick a catalog model"
    return "are you offline? Check HF_ENDPOINT (a reachable Hub or mirror, its server up), or pick a catalog model"


def server_token_name() -> str:
    """``HF_TOKEN`` as a message names it (a visitor sees "the server's access token")."""
    return "the server's access token" if to_a_visitor() else "HF_TOKEN"
