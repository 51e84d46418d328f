"""Which Hub, and which repository on it: the endpoint, repository ids, revisions and repository URLs.

Repository ids follow the Hub's naming rule (huggingface_hub ``validate_repo_id``: letters, digits, ``-``,
``_`` and ``.``, no ``--`` or ``..``, at most 96 characters per part); revisions are a branch, tag or commit
sha. Only the configured endpoint (``HF_ENDPOINT``, default https://huggingface.co) is ever read, so a URL
on any other host is refused here, before anything is contacted.

A reference holding something shaped like an access token (``hf_`` and 30 or more letters and digits: real
tokens have 34) is refused without quoting it: pasted into the model field by mistake, it would otherwise
travel to the Hub in a URL path, and into a shared link.
"""

from __future__ import annotations

import os
import re
from urllib.parse import unquote, urlsplit

from planner.sources.hub.audience import DEFAULT_ENDPOINT, hub_name, to_a_visitor
from planner.sources.hub.errors import HubAccessError, HubError

__all__ = ["DEFAULT_ENDPOINT", "check_repo_id", "check_revision", "parse_repo_ref", "resolve_endpoint"]

_REPO_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,254}$")
_RESERVED_OWNERS = {"datasets", "spaces", "api", "models", "docs", "blog", "settings", "organizations"}
_HF_HOSTS = {"huggingface.co", "hf.co", "www.huggingface.co"}
_TOKEN_IN_REFERENCE = re.compile(r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}")


def resolve_endpoint(endpoint: str | None = None) -> str:
    """The endpoint URL: the argument, else ``HF_ENDPOINT``, else https://huggingface.co (no trailing slash)."""
    raw = (endpoint or os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).strip().rstrip("/")
    try:
        parts = urlsplit(raw)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port or 0) >= 0
    except ValueError:  # a port that is not a number, an unclosed IPv6 bracket
        valid = False
    if (not valid or parts.query or parts.fragment or parts.username or parts.password) and to_a_visitor():
        raise HubError("this server's Hub address is misconfigured: tell its operator, or pick a catalog model")
    if not valid or parts.query or parts.fragment:
        raise HubError(f"HF_ENDPOINT must be an http(s) URL such as {DEFAULT_ENDPOINT}, not {raw!r}")
    if parts.username or parts.password:
        raise HubError("HF_ENDPOINT must not contain credentials; set HF_TOKEN instead")
    return raw


def check_repo_id(repo_id: str) -> str:
    """``repo_id`` if it is ``owner/name`` under the Hub's naming rule, else a :class:`HubError` saying why."""
    parts = repo_id.split("/")
    if len(parts) != 2:
        raise HubError(
            f"{repo_id!r} is not a model repository id: give owner/name (e.g. meta-llama/Llama-3.1-8B), "
            "owner/name@revision, or the repository's URL"
        )
    owner, name = parts
    for part in parts:
        if not _REPO_PART.match(part) or "--" in part or ".." in part or part.endswith((".", "-")):
            raise HubError(
                f"{repo_id!r} is not a valid repository id: owner and name use letters, digits, '-', '_' "
                "and '.', start with a letter or digit, and are at most 96 characters"
            )
    if owner.lower() in _RESERVED_OWNERS:
        raise HubError(f"{repo_id!r}: only model repositories can be planned (not datasets or spaces)")
    if name.endswith(".git"):
        raise HubError(f"{repo_id!r}: give the repository id without .git")
    return repo_id


def check_revision(revision: str) -> str:
    """``revision`` if it can be a branch, tag or commit sha (no ``..``, no empty path segment)."""
    if not _REVISION.match(revision) or ".." in revision or "//" in revision or revision.endswith("/"):
        raise HubError(
            f"{revision!r} is not a valid revision: a branch, tag or commit sha (letters, digits, '.', '_', '-', '/')"
        )
    return revision


def _endpoint_hosts(endpoint: str) -> set[str]:
    host = (urlsplit(endpoint).netloc or "").lower()
    return {host} | (_HF_HOSTS if host in _HF_HOSTS else set())


def parse_repo_ref(text: str, endpoint: str | None = None) -> tuple[str, str | None]:
    """``(repo_id, revision)`` from ``owner/name``, ``owner/name@rev`` or a repository URL on the endpoint.

    URLs: ``https://<endpoint host>/owner/name``, ``…/tree/<rev>``, ``…/blob/<rev>/<file>`` and
    ``…/resolve/<rev>/<file>``. A URL on any other host is refused: only the configured endpoint is read.
    """
    ref = text.strip()
    if not ref:
        raise HubError("give a model repository: owner/name, owner/name@revision or its Hub URL")
    if _TOKEN_IN_REFERENCE.search(unquote(ref)):
        raise HubAccessError(
            "the model reference contains an access token (hf_…): paste tokens only into the access-token "
            "field, never into the model field or a link; if it was shared, revoke it in your Hub settings"
        )
    base = resolve_endpoint(endpoint)
    if "://" not in ref and ref.split("/", 1)[0].lower() in _endpoint_hosts(base):
        ref = f"{urlsplit(base).scheme}://{ref}"
    if "://" in ref:
        return _parse_url(ref, base)
    repo_part, sep, revision = ref.partition("@")
    repo_id = check_repo_id(repo_part.strip())
    if sep:
        return repo_id, check_revision(revision.strip())
    return repo_id, None


def _shown(base: str) -> str:
    """The endpoint as a message shows it: its URL, or for a visitor of a server reading a mirror, its name."""
    name = hub_name(base)
    return base if name == urlsplit(base).netloc else name


def _url_segments(ref: str, base: str) -> list[str]:
    """The path segments of a URL on the endpoint, below the endpoint's own path prefix."""
    try:
        parts = urlsplit(ref)
        _ = parts.port
    except ValueError:  # a port that is not a number, an unclosed IPv6 bracket
        raise HubError("the reference is not a valid URL: give owner/name or the repository's Hub URL") from None
    if parts.scheme not in ("http", "https") or (parts.netloc or "").lower() not in _endpoint_hosts(base):
        if to_a_visitor():
            raise HubError(f"only repository URLs on {hub_name(base)} can be read: give owner/name instead")
        raise HubError(
            f"only repository URLs on {base} can be read (HF_ENDPOINT), not {parts.scheme}://{parts.netloc}/…"
        )
    prefix = urlsplit(base).path.strip("/")
    path = parts.path.strip("/")
    if prefix:
        if not path.startswith(prefix + "/"):
            raise HubError(f"the URL is not under {_shown(base)}")
        path = path[len(prefix) + 1 :]
    return [s for s in path.split("/") if s]


def _parse_url(ref: str, base: str) -> tuple[str, str | None]:
    """A repository page URL (``/owner/name``, ``…/tree|blob|resolve/<rev>…``) as ``(repo_id, revision)``."""
    segments = _url_segments(ref, base)
    if len(segments) >= 1 and segments[0] in ("datasets", "spaces"):
        raise HubError("only model repositories can be planned (not datasets or spaces)")
    if len(segments) < 2:
        raise HubError(f"the URL does not name a repository: expected {_shown(base)}/owner/name")
    repo_id = check_repo_id(f"{segments[0]}/{segments[1]}")
    rest = segments[2:]
    if not rest:
        return repo_id, None
    if rest[0] in ("tree", "blob", "resolve") and len(rest) >= 2:
        return repo_id, check_revision(unquote(rest[1]))
    raise HubError(
        f"the URL is not a repository page: expected {_shown(base)}/owner/name, …/tree/<revision> or "
        "…/blob/<revision>/<file>"
    )
