"""Models from outside the catalog: a Hub import (cached one hour across sessions, failures never cached)
and a hand-described model carried in the link. Streamlit glue over :mod:`planner.sources.hub`."""

from __future__ import annotations

import hashlib
import os

import streamlit as st

from planner.sources.hub import HubModel, fetch_model, parse_repo_ref
from planner.sources.hub.errors import TOKEN_PATTERN

HUB_TTL_SECONDS = 3600


@st.cache_data(ttl=HUB_TTL_SECONDS, show_spinner="Reading the repository from the Hugging Face Hub…", max_entries=256)
def _fetch_cached(
    repo: str, revision: str | None, token_fingerprint: str, _token: str | None, server_token: bool = False
) -> HubModel:
    """One fetch per (repo, revision, access token) per hour. The token itself is not part of the cache key
    (arguments starting with ``_`` are not hashed), only a fingerprint of it, so a gated repository read
    with one user's token is never served to a session without that token. Errors raise: never cached.
    ``server_token``: the server's HF_TOKEN may stand in for a visitor without one (the operator's opt-in)."""
    return fetch_model(repo, revision, token=_token, use_env_token=server_token)


def import_from_hub(reference: str, token: str | None) -> HubModel:
    """Parse ``owner/name[@revision]`` or a Hub URL and fetch it (raises HubError / PlannerError).

    The server's ``HF_TOKEN`` is used for visitors only if the operator sets HEADROOM_SHARE_SERVER_TOKEN=1."""
    repo, revision = parse_repo_ref(reference)
    fingerprint = hashlib.sha256(token.encode()).hexdigest()[:16] if token else ""
    server_token = os.environ.get("HEADROOM_SHARE_SERVER_TOKEN") == "1"
    return _fetch_cached(repo, revision, fingerprint, token or None, server_token)


def looks_like_token(text: str) -> bool:
    """Whether ``text`` holds something shaped like a Hugging Face access token (``hf_…``)."""
    return TOKEN_PATTERN.search(text) is not None
