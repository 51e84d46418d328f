"""Models from outside the catalog: a Hub import (cached one hour across sessions; a failure cached with its error
for a few minutes) and a hand-described model carried in the link. Streamlit glue over :mod:`planner.sources.hub`.

A failed import is remembered (:class:`FailureMemo`): a link to a repository that fails (a hostile index of tens of
megabytes, a missing repository) is read from the Hub once per :data:`HUB_FAILURE_TTL_SECONDS`, however many
sessions open it, instead of once per run (issue 25: eight sessions looping one such link downloaded it 33 times).
Streamlit runs one computation per cache key at a time (``compute_value_lock``), so sessions opening the same link
together wait for the one import and then share its answer, success or failure. Messages are written for a
visitor (:func:`planner.sources.hub.audience.for_visitors`): never the server's Hub address or its variables.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from planner.bounds.errors import PlannerError
from planner.bounds.walltime import BudgetExceeded
from planner.sources.hub import HubModel, fetch_model, parse_repo_ref
from planner.sources.hub.audience import for_visitors
from planner.sources.hub.errors import TOKEN_PATTERN, HubConnectionError
from ui.turns import shares_work

HUB_TTL_SECONDS = 3600
# A failure is kept this long: long enough that a looping link costs one download per period, short enough that a
# repository fixed upstream (or access granted) is read again soon. A connection failure (offline, rate-limited,
# a time-out) is more often transient: kept a shorter while.
HUB_FAILURE_TTL_SECONDS = 300
HUB_CONNECTION_FAILURE_TTL_SECONDS = 30
MAX_FAILURES = 256  # as many as the successes cached (``max_entries``)

FailureKey = tuple[str, str | None, str, bool]


@dataclass(frozen=True)
class _Failure:
    kind: type[PlannerError]
    message: str
    at: float  # FailureMemo.clock()
    ttl: float


class FailureMemo:
    """Failed imports by (repo, revision, token fingerprint, server token), each with its error, for a while."""

    def __init__(self, max_entries: int = MAX_FAILURES, clock: Callable[[], float] = time.monotonic) -> None:
        self._entries: OrderedDict[FailureKey, _Failure] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_entries
        self.clock = clock  # seconds, monotonic (a test moves it on)

    def check(self, key: FailureKey) -> None:
        """Raise the error remembered for ``key``, saying how old it is; nothing when none is."""
        with self._lock:
            failure = self._entries.get(key)
            if failure is not None and self.clock() - failure.at >= failure.ttl:
                del self._entries[key]
                failure = None
        if failure is not None:
            age = self.clock() - failure.at
            raise failure.kind(
                f"{failure.message.rstrip('.')} (the Hub's answer {age:.0f} s ago; it is asked again after "
                f"{failure.ttl:.0f} s)"
            )

    def remember(self, key: FailureKey, error: PlannerError) -> None:
        ttl = HUB_CONNECTION_FAILURE_TTL_SECONDS if isinstance(error, HubConnectionError) else HUB_FAILURE_TTL_SECONDS
        with self._lock:
            self._entries[key] = _Failure(type(error), str(error), self.clock(), ttl)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


FAILURES = FailureMemo()


@st.cache_data(ttl=HUB_TTL_SECONDS, show_spinner="Reading the repository from the Hugging Face Hub…", max_entries=256)
@shares_work
def _fetch_cached(
    repo: str, revision: str | None, token_fingerprint: str, _token: str | None, server_token: bool = False
) -> HubModel:
    """One fetch per (repo, revision, access token) per hour. The token itself is not part of the cache key
    (arguments starting with ``_`` are not hashed), only a fingerprint of it, so a gated repository read
    with one user's token is never served to a session without that token. A failure raises, and is remembered
    by :data:`FAILURES` (st.cache_data never caches an exception).
    ``server_token``: the server's HF_TOKEN may stand in for a visitor without one (the operator's opt-in)."""
    key: FailureKey = (repo, revision, token_fingerprint, server_token)
    FAILURES.check(key)
    try:
        return fetch_model(repo, revision, token=_token, use_env_token=server_token)
    except BudgetExceeded:  # the page's budget ran out, not the repository's fault: not remembered
        raise
    except PlannerError as exc:
        FAILURES.remember(key, exc)
        raise


def import_from_hub(reference: str, token: str | None) -> HubModel:
    """Parse ``owner/name[@revision]`` or a Hub URL and fetch it (raises HubError / PlannerError, for a visitor).

    The server's ``HF_TOKEN`` is used for visitors only if the operator sets HEADROOM_SHARE_SERVER_TOKEN=1."""
    with for_visitors():
        repo, revision = parse_repo_ref(reference)
        fingerprint = hashlib.sha256(token.encode()).hexdigest()[:16] if token else ""
        server_token = os.environ.get("HEADROOM_SHARE_SERVER_TOKEN") == "1"
        return _fetch_cached(repo, revision, fingerprint, token or None, server_token)


def looks_like_token(text: str) -> bool:
    """Whether ``text`` holds something shaped like a Hugging Face access token (``hf_…``)."""
    return TOKEN_PATTERN.search(text) is not None
