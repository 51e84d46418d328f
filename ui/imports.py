"""Models from outside the catalog: a Hub import (cached one hour across sessions, failures never cached)
and a hand-described model carried in the link. Streamlit glue over :mod:`planner.hub`."""

from __future__ import annotations

import hashlib

import streamlit as st

from planner.hub import HubModel, fetch_model, parse_repo_ref
from planner.hub.errors import TOKEN_PATTERN

HUB_TTL_SECONDS = 3600


@st.cache_data(ttl=HUB_TTL_SECONDS, show_spinner="Reading the repository from the Hugging Face Hub…", max_entries=256)
def _fetch_cached(repo: str, revision: str | None, token_fingerprint: str, _token: str | None) -> HubModel:
    """One fetch per (repo, revision, access token) per hour. The token itself is not part of the cache key
    (arguments starting with ``_`` are not hashed), only a fingerprint of it, so a gated repository read
    with one user's token is never served to a session without that token. Errors raise: never cached."""
    return fetch_model(repo, revision, token=_token)


def import_from_hub(reference: str, token: str | None) -> HubModel:
    """Parse ``owner/name[@revision]`` or a Hub URL and fetch it (raises HubError / PlannerError)."""
    repo, revision = parse_repo_ref(reference)
    fingerprint = hashlib.sha256(token.encode()).hexdigest()[:16] if token else ""
    return _fetch_cached(repo, revision, fingerprint, token or None)


def looks_like_token(text: str) -> bool:
    """Whether ``text`` holds something shaped like a Hugging Face access token (``hf_…``)."""
    return TOKEN_PATTERN.search(text) is not None
