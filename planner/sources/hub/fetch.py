"""``fetch_model``: read one model from the Hub, file by file at one commit, into a :class:`HubModel`.

What is fetched, from the configured endpoint only (``HF_ENDPOINT``, default https://huggingface.co):

- ``GET /api/models/{repo}[/revision/{rev}]``: gated/private flags, the commit ``sha`` (every file below is
  read at that commit, so one result describes one snapshot), ``siblings`` and ``safetensors`` (parameter
  counts by dtype and their ``total``);
- ``GET /{repo}/resolve/{sha}/config.json`` (at most 1 MB), parsed as data by :mod:`planner.sources.config`;
  nothing a repository serves is executed (no ``trust_remote_code``); an old AutoGPTQ checkpoint's
  ``quantize_config.json`` when ``config.json`` names no quantization;
- ``model.safetensors.index.json``: ``metadata.total_size`` is the exact byte size of the stored tensors (read as
  a stream up to the metadata, :mod:`planner.sources.hub.index`);
- without an index (a single-file checkpoint), the header of ``model.safetensors`` by HTTP Range
  (:mod:`planner.sources.hub.safetensors`).

One import is bounded as a whole: every reply by size and by the bounded JSON loader, every field by type
(:mod:`planner.sources.hub.replies`), and all requests together by one deadline (:mod:`planner.sources.hub.deadline`).
The
token is the caller's, or ``HF_TOKEN`` when the caller allows it (:mod:`planner.sources.hub.tokens`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import requests

from planner.sources.config import MAX_CONFIG_BYTES
from planner.sources.hub.assembly import Evidence, assemble
from planner.sources.hub.audience import to_a_visitor
from planner.sources.hub.deadline import Deadline, active
from planner.sources.hub.errors import HubConnectionError, HubError
from planner.sources.hub.index import read_index_total_size
from planner.sources.hub.quantization import detect_quantization
from planner.sources.hub.references import check_revision, parse_repo_ref, resolve_endpoint
from planner.sources.hub.replies import INDEX_FILE, ApiInfo, parse_api_info, parse_config, parse_quantize_config
from planner.sources.hub.results import HubModel, QuantizationInfo
from planner.sources.hub.safetensors import SafetensorsSummary, read_safetensors_header
from planner.sources.hub.tokens import resolve_token
from planner.sources.hub.transport import DEFAULT_TIMEOUT, DEFAULT_TOTAL_TIMEOUT, _Client, new_session

__all__ = ["fetch_model"]

MAX_API_BYTES = 10_000_000  # /api/models responses (DeepSeek-V3, with 170 siblings, is ~30 kB)
MAX_QUANTIZE_CONFIG_BYTES = 100_000  # quantize_config.json (AutoGPTQ: a dozen keys)
SINGLE_FILE = "model.safetensors"


def fetch_model(
    repo: str,
    revision: str | None = None,
    token: str | None = None,
    endpoint: str | None = None,
    session: requests.Session | None = None,
    *,
    use_env_token: bool = True,
    timeout: tuple[float, float] = DEFAULT_TIMEOUT,
    total_timeout: float = DEFAULT_TOTAL_TIMEOUT,
    retries: int = 1,
    backoff: float = 1.0,
    cdn_hosts: Iterable[str] = (),
) -> HubModel:
    """Read ``repo`` (``owner/name``, ``owner/name@rev`` or its URL) from the Hub into a :class:`HubModel`.

    ``token`` is the caller's; without one, ``HF_TOKEN`` is used only if ``use_env_token`` (the command line,
    which runs as the operator; the dashboard passes False unless the operator opts in, see
    :mod:`planner.sources.hub.tokens`). ``endpoint`` defaults to ``HF_ENDPOINT``. Deterministic for one commit (files
    are read at the ``sha`` the API reports), so the UI may cache it; every failure raises :class:`HubError`.
    ``total_timeout`` bounds the whole import, every request and retry wait included (with the default
    session; a caller's ``session`` keeps its adapters, so the limit is then checked between reads).
    ``cdn_hosts`` adds hosts (``host`` or ``host:port``) that file downloads may be redirected to.
    """
    base = resolve_endpoint(endpoint)
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        raise HubConnectionError(
            "this server does not contact the Hub: pick a catalog model or describe one on the Custom model page"
            if to_a_visitor()
            else "HF_HUB_OFFLINE is set: the Hub is not contacted; pick a catalog model or a config"
        )
    repo_id, revision = _reference(repo, revision, base)
    client = _Client(
        endpoint=base,
        token=resolve_token(token, allow_env=use_env_token),
        session=session or new_session(),
        timeout=timeout,
        deadline=Deadline(total_timeout),
        retries=retries,
        backoff=backoff,
        cdn_hosts=frozenset(h.strip().lower() for h in cdn_hosts if h.strip()),
    )
    try:
        with active(client.deadline):
            return _fetch(client, repo_id, revision)
    except HubError as exc:
        raise type(exc)(client._redact(str(exc))) from None
    finally:
        if session is None:
            client.session.close()


def _reference(repo: str, revision: str | None, base: str) -> tuple[str, str | None]:
    """``(repo_id, revision)`` from the reference and the ``revision`` argument, which must agree."""
    repo_id, ref_revision = parse_repo_ref(repo, base)
    if revision is not None:
        revision = check_revision(revision.strip())
        if ref_revision is not None and ref_revision != revision:
            raise HubError(f"two revisions given: {ref_revision!r} in the reference and {revision!r}")
    return repo_id, revision or ref_revision


@dataclass(frozen=True)
class _Repo:
    """One repository at one commit: where its files are, and which exist."""

    client: _Client
    repo_id: str
    revision: str | None  # as requested
    api: ApiInfo

    @property
    def file_revision(self) -> str:
        return self.api.sha or self.revision or "main"

    def path(self, filename: str) -> str:
        return f"/{self.repo_id}/resolve/{quote(self.file_revision, safe='')}/{quote(filename)}"

    def json_file(self, filename: str, limit: int) -> Any:
        """A JSON file of the repository at the commit; None when it is not listed or does not exist."""
        if not self.api.has(filename):
            return None
        return self.client.get_json(
            self.path(filename), what=filename, limit=limit, repo_id=self.repo_id, revision=self.revision, file=True
        )


def _read_api(client: _Client, repo_id: str, revision: str | None) -> ApiInfo:
    api_path = f"/api/models/{repo_id}" + (f"/revision/{quote(revision, safe='')}" if revision else "")
    what = f"the Hub API entry of {repo_id}"
    info = client.get_json(api_path, what=what, limit=MAX_API_BYTES, repo_id=repo_id, revision=revision)
    return parse_api_info(info, repo_id)


def _read_config(repo: _Repo, notes: list[str]) -> dict[str, Any] | None:
    config = repo.json_file("config.json", MAX_CONFIG_BYTES)
    if config is None:
        notes.append(
            "the repository has no config.json (GGUF-only or a non-transformers layout): give the shape by hand"
        )
        return None
    return parse_config(config)


def _read_quantization(repo: _Repo, config: dict[str, Any]) -> tuple[dict[str, Any], QuantizationInfo | None]:
    """config.json's quantization, else an old AutoGPTQ ``quantize_config.json`` merged into the config."""
    quant = detect_quantization(config)
    if quant is not None or repo.api.siblings is None or "quantize_config.json" not in repo.api.siblings:
        return config, quant
    legacy = repo.json_file("quantize_config.json", MAX_QUANTIZE_CONFIG_BYTES)
    if legacy is None:
        return config, None
    config = {**config, "quantization_config": parse_quantize_config(legacy)}
    return config, detect_quantization(config, source="quantize_config.json (AutoGPTQ)")


def _read_checkpoint_size(repo: _Repo, notes: list[str]) -> tuple[int | None, SafetensorsSummary | None]:
    """The index's total_size; without an index, the single file's header."""
    index_total: int | None = None
    if repo.api.has(INDEX_FILE):
        found, index_total = read_index_total_size(repo.client, repo.path(INDEX_FILE), repo.repo_id, repo.revision)
        if found and index_total is None:
            notes.append(f"{INDEX_FILE} has no metadata.total_size")
    if index_total is None and repo.api.has(SINGLE_FILE):
        header = read_safetensors_header(repo.client, repo.repo_id, repo.file_revision, SINGLE_FILE, repo.revision)
        return None, header
    return index_total, None


def _fetch(client: _Client, repo_id: str, revision: str | None) -> HubModel:
    notes: list[str] = []
    repo = _Repo(client, repo_id, revision, _read_api(client, repo_id, revision))
    config = _read_config(repo, notes)
    quant: QuantizationInfo | None = None
    if config is not None:
        config, quant = _read_quantization(repo, config)
    index_total, header = _read_checkpoint_size(repo, notes)
    evidence = Evidence(
        repo_id=repo_id,
        revision=revision,
        endpoint=client.endpoint,
        api=repo.api,
        config=config,
        quantization=quant,
        index_total=index_total,
        header=header,
    )
    return assemble(evidence, notes, clean=client._redact)
