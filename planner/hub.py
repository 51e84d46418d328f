"""Plan any model on the Hugging Face Hub: read its metadata, ``config.json`` and safetensors index over HTTP.

Pure Python (no Streamlit): the dashboard caches :func:`fetch_model` with ``st.cache_data``. Every failure
raises :class:`HubError` (a :class:`PlannerError`), so a failure is never cached as a result.

What is fetched, from the configured endpoint only (``HF_ENDPOINT``, default https://huggingface.co):

- ``GET /api/models/{repo}[/revision/{rev}]``: gated/private flags, the commit ``sha`` (every file below is
  read at that commit, so one result describes one snapshot), ``siblings`` and ``safetensors`` (parameter
  counts by dtype and their ``total``);
- ``GET /{repo}/resolve/{sha}/config.json`` (at most 1 MB), parsed as data by :mod:`planner.hf_config`;
  nothing a repository serves is executed (no ``trust_remote_code``);
- ``model.safetensors.index.json``: ``metadata.total_size`` is the exact byte size of the stored tensors;
- without an index (a single-file checkpoint), the header of ``model.safetensors`` by HTTP Range: 8 bytes
  little-endian header length, then a JSON header with every tensor's dtype, shape and byte offsets.

Redirects are followed by hand (at most 5), under one rule: to the endpoint's own origin (same scheme, host
and port: the Hub redirects renamed repos that way) for every request, and, for file downloads
(``/resolve/``) only, to a CDN host: ``https`` on ``hf.co`` / ``huggingface.co`` or their subdomains
(``cdn-lfs.hf.co``, ``cas-bridge.xethub.hf.co``), or a host given in ``cdn_hosts``. A CDN target must not
downgrade ``https`` to ``http``. Anything else is refused with a clear error. The token is sent in the
``Authorization`` header to the endpoint's origin only, never to a CDN (its URLs are pre-signed).

The token never appears in a URL, a log line, an exception message, a ``repr`` or the returned data: it
lives in a :class:`_Secret`, and every message passes through :func:`redact` (the exact token, and
anything shaped like a Hugging Face token, ``hf_…``), as does every record of the ``planner.hub`` logger.
"""

from __future__ import annotations

import json
import logging
import os
import re
import struct
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast, get_args
from urllib.parse import quote, unquote, urljoin, urlsplit

import requests
from pydantic import BaseModel, Field, ValidationError

from planner.errors import PlannerError
from planner.hf_config import (
    MAX_CONFIG_BYTES,
    quantization_precision,
    spec_from_hf_config,
    text_config_key,
    with_family_defaults,
)
from planner.model import AttachedModule, ModelSpec
from planner.params import parameter_breakdown
from planner.precision import TORCH_DTYPE_NAMES, WeightPrecision

__all__ = [
    "DEFAULT_ENDPOINT",
    "HubAccessError",
    "HubConnectionError",
    "HubError",
    "HubModel",
    "HubNotFoundError",
    "HubResponseError",
    "MissingField",
    "QuantizationInfo",
    "SourcedCount",
    "detect_quantization",
    "fetch_model",
    "parse_repo_ref",
    "parse_safetensors_header",
    "redact",
    "resolve_endpoint",
]

logger = logging.getLogger(__name__)

DEFAULT_ENDPOINT = "https://huggingface.co"
MAX_API_BYTES = 10_000_000  # /api/models responses (DeepSeek-V3, with 170 siblings, is ~30 kB)
MAX_INDEX_BYTES = 50_000_000  # model.safetensors.index.json (DeepSeek-V3's 91k tensors: ~9 MB)
MAX_HEADER_BYTES = 100_000_000  # a safetensors header (the format's own reader caps it at 100 MB)
HEADER_PREFETCH = 65_536  # first Range request: the length prefix and, usually, the whole header
MAX_REDIRECTS = 5
DEFAULT_TIMEOUT = (5.0, 20.0)  # (connect, read) seconds
DEFAULT_TOTAL_TIMEOUT = 120.0  # seconds for one response body, however slowly it trickles
MAX_RETRY_AFTER = 10.0
CDN_HOST_SUFFIXES = ("hf.co", "huggingface.co")
USER_AGENT = "headroom-planner (+config.json and safetensors metadata only)"

INDEX_FILE = "model.safetensors.index.json"
SINGLE_FILE = "model.safetensors"

# Bytes per element of each safetensors dtype (safetensors Dtype enum); F4/F6 pack below one byte.
DTYPE_BYTES: dict[str, float] = {
    "BOOL": 1,
    "U8": 1,
    "I8": 1,
    "F8_E4M3": 1,
    "F8_E5M2": 1,
    "F8_E8M0": 1,
    "E8M0": 1,
    "I16": 2,
    "U16": 2,
    "F16": 2,
    "BF16": 2,
    "I32": 4,
    "U32": 4,
    "F32": 4,
    "I64": 8,
    "U64": 8,
    "F64": 8,
    "F4": 0.5,
    "F6_E2M3": 0.75,
    "F6_E3M2": 0.75,
}
# Top-level prefixes (after an optional "model.") of a vision tower and its projector in multimodal checkpoints.
VISION_PREFIXES = (
    "vision_tower.",
    "vision_model.",
    "visual.",
    "vision_encoder.",
    "vision.",
    "multi_modal_projector.",
    "mm_projector.",
    "vision_embed_tokens.",
    "embed_vision.",
    "image_newline",
    "vision_projection.",
    "connector.",
    "mlp1.",
)
# Config keys that announce a vision tower.
VISION_CONFIG_KEYS = ("vision_config", "vision_tower_config", "visual")
REQUIRED_FIELDS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("num_hidden_layers", ("num_hidden_layers", "n_layer", "num_layers"), "number of decoder layers"),
    ("hidden_size", ("hidden_size", "n_embd", "d_model"), "model width"),
    ("num_attention_heads", ("num_attention_heads", "n_head"), "query heads"),
    ("vocab_size", ("vocab_size",), "vocabulary size (embedding and lm_head rows)"),
)
PREFILL_FIELDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    *((name, keys) for name, keys, _ in REQUIRED_FIELDS),
    ("num_key_value_heads", ("num_key_value_heads", "n_head_kv", "num_kv_heads")),
    ("head_dim", ("head_dim",)),
    ("intermediate_size", ("intermediate_size", "ffn_hidden_size")),
    ("max_position_embeddings", ("max_position_embeddings", "n_positions", "seq_length")),
    ("tie_word_embeddings", ("tie_word_embeddings",)),
    ("sliding_window", ("sliding_window",)),
    ("model_type", ("model_type",)),
)
_TOKEN_PATTERN = re.compile(r"\bhf_[A-Za-z0-9]{8,}")
_REPO_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,254}$")
_SHA = re.compile(r"^[0-9a-f]{40}$")
_RESERVED_OWNERS = {"datasets", "spaces", "api", "models", "docs", "blog", "settings", "organizations"}


# -- errors --------------------------------------------------------------------------------------------
def redact(text: str, *secrets: str | None) -> str:
    """``text`` with each secret, and anything shaped like a Hugging Face token (``hf_…``), replaced."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return _TOKEN_PATTERN.sub("hf_***", text)


class HubError(PlannerError):
    """The Hub could not be read. The message says what failed and what to do; it never holds a token."""

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))


class HubConnectionError(HubError):
    """Offline, DNS failure, connection refused or a time-out."""


class HubAccessError(HubError):
    """401/403: a gated or private repository, or a rejected token."""


class HubNotFoundError(HubError):
    """404: no such repository, or no such revision in it."""


class HubResponseError(HubError):
    """The Hub answered, but not usably: malformed JSON, an oversized response, a lying safetensors header."""


class _RedactingFilter(logging.Filter):
    """Scrubs token-shaped strings from every record of the ``planner.hub`` logger (a second line of defence)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


logger.addFilter(_RedactingFilter())


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


# -- result --------------------------------------------------------------------------------------------
class SourcedCount(BaseModel, frozen=True, extra="forbid"):
    """A number and where it came from (``"safetensors index total_size"``, ``"API safetensors.total"``, …)."""

    value: int = Field(ge=0)
    source: str


class MissingField(BaseModel, frozen=True, extra="forbid"):
    """A ModelSpec field config.json does not give: ask for it in a custom form."""

    field: str
    reason: str


class QuantizationInfo(BaseModel, frozen=True, extra="forbid"):
    """The checkpoint's quantization, from ``quantization_config`` (or an old GPTQ ``quantize_config.json``)."""

    method: str  # quant_method as written: awq, gptq, fp8, compressed-tensors, mxfp4, bitsandbytes, …
    precision: WeightPrecision | None  # the planner's weight precision name; None when not recognised
    bits: int | None = None
    group_size: int | None = None
    source: str


class HubModel(BaseModel, frozen=True, extra="forbid"):
    """What the Hub says about one model at one commit, ready to plan (``spec``) or to complete by hand."""

    repo_id: str
    revision: str | None  # as requested (None: the default branch)
    sha: str | None  # the commit every file was read at
    endpoint: str
    url: str  # the repository page
    gated: str | None = None  # "auto" / "manual" when access must be requested
    private: bool = False
    model_type: str | None = None
    architectures: tuple[str, ...] = ()
    multimodal: bool = False
    spec: ModelSpec | None  # None when config.json lacks what a plan needs: see `missing` and `prefill`
    missing: tuple[MissingField, ...] = ()
    prefill: dict[str, int | float | str | bool] = Field(default_factory=dict)
    parameters: SourcedCount | None = None  # the count the plan uses (see `notes` when sources disagree)
    checkpoint_parameters: SourcedCount | None = None  # stored elements: packed ints and scales count too
    computed_parameters: SourcedCount | None = None  # from config.json (+ attached vision tower)
    parameters_by_dtype: dict[str, int] = Field(default_factory=dict)
    stored_bytes: SourcedCount | None = None  # the checkpoint's tensor bytes (the weights' download size)
    stored_bytes_by_dtype: dict[str, int] = Field(default_factory=dict)
    quantization: QuantizationInfo | None = None
    weight_precision: WeightPrecision | None = None  # what the UI should pre-select
    vision: AttachedModule | None = None
    notes: tuple[str, ...] = ()

    @property
    def plannable(self) -> bool:
        return self.spec is not None


# -- input ---------------------------------------------------------------------------------------------
def resolve_endpoint(endpoint: str | None = None) -> str:
    """The endpoint URL: the argument, else ``HF_ENDPOINT``, else https://huggingface.co (no trailing slash)."""
    raw = (endpoint or os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).strip().rstrip("/")
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise HubError(f"HF_ENDPOINT must be an http(s) URL such as {DEFAULT_ENDPOINT}, not {raw!r}")
    if parts.username or parts.password:
        raise HubError("HF_ENDPOINT must not contain credentials; set HF_TOKEN instead")
    return raw


def _check_repo_id(repo_id: str) -> str:
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


def _check_revision(revision: str) -> str:
    if not _REVISION.match(revision) or ".." in revision or "//" in revision or revision.endswith("/"):
        raise HubError(
            f"{revision!r} is not a valid revision: a branch, tag or commit sha (letters, digits, '.', '_', '-', '/')"
        )
    return revision


def _endpoint_hosts(endpoint: str) -> set[str]:
    host = (urlsplit(endpoint).netloc or "").lower()
    hosts = {host}
    if host in ("huggingface.co", "hf.co", "www.huggingface.co"):
        hosts |= {"huggingface.co", "hf.co", "www.huggingface.co"}
    return hosts


def parse_repo_ref(text: str, endpoint: str | None = None) -> tuple[str, str | None]:
    """``(repo_id, revision)`` from ``owner/name``, ``owner/name@rev`` or a repository URL on the endpoint.

    URLs: ``https://<endpoint host>/owner/name``, ``…/tree/<rev>``, ``…/blob/<rev>/<file>`` and
    ``…/resolve/<rev>/<file>``. A URL on any other host is refused: only the configured endpoint is read.
    """
    ref = text.strip()
    if not ref:
        raise HubError("give a model repository: owner/name, owner/name@revision or its Hub URL")
    base = resolve_endpoint(endpoint)
    hosts = _endpoint_hosts(base)
    if "://" not in ref and ref.split("/", 1)[0].lower() in hosts:
        ref = f"{urlsplit(base).scheme}://{ref}"
    if "://" in ref:
        parts = urlsplit(ref)
        if parts.scheme not in ("http", "https") or (parts.netloc or "").lower() not in hosts:
            raise HubError(
                f"only repository URLs on {base} can be read (HF_ENDPOINT), not {parts.scheme}://{parts.netloc}/…"
            )
        prefix = urlsplit(base).path.strip("/")
        path = parts.path.strip("/")
        if prefix:
            if not path.startswith(prefix + "/"):
                raise HubError(f"the URL is not under {base}")
            path = path[len(prefix) + 1 :]
        segments = [s for s in path.split("/") if s]
        if len(segments) >= 1 and segments[0] in ("datasets", "spaces"):
            raise HubError("only model repositories can be planned (not datasets or spaces)")
        if len(segments) < 2:
            raise HubError(f"the URL does not name a repository: expected {base}/owner/name")
        repo_id = _check_repo_id(f"{segments[0]}/{segments[1]}")
        rest = segments[2:]
        if not rest:
            return repo_id, None
        if rest[0] in ("tree", "blob", "resolve") and len(rest) >= 2:
            return repo_id, _check_revision(unquote(rest[1]))
        raise HubError(
            f"the URL is not a repository page: expected {base}/owner/name, …/tree/<revision> or "
            "…/blob/<revision>/<file>"
        )
    repo_part, sep, revision = ref.partition("@")
    repo_id = _check_repo_id(repo_part.strip())
    if sep:
        return repo_id, _check_revision(revision.strip())
    return repo_id, None


# -- HTTP ----------------------------------------------------------------------------------------------
def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return parts.scheme, (parts.hostname or "").lower(), port


@dataclass
class _Client:
    """One endpoint, one optional token, one session: GETs with caps, time-outs, one retry and the redirect rule."""

    endpoint: str
    token: _Secret | None
    session: requests.Session
    timeout: tuple[float, float] = DEFAULT_TIMEOUT
    total_timeout: float = DEFAULT_TOTAL_TIMEOUT
    retries: int = 1
    backoff: float = 1.0
    cdn_hosts: frozenset[str] = field(default_factory=frozenset)

    def __repr__(self) -> str:
        return f"_Client(endpoint={self.endpoint!r}, token={'***' if self.token else None})"

    # -- messages
    def _redact(self, text: str) -> str:
        return redact(text, self.token.reveal() if self.token else None)

    def _log(self, message: str, *args: object) -> None:
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(self._redact(message % args if args else message))

    # -- redirect rule
    def _allowed_target(self, target: str, file_download: bool) -> bool | None:
        """True: follow with the token (endpoint origin); False: follow without it (CDN); None: refuse."""
        if _origin(target) == _origin(self.endpoint):
            return True
        if not file_download:
            return None
        scheme, host, port = _origin(target)
        if scheme not in ("http", "https") or (urlsplit(self.endpoint).scheme == "https" and scheme != "https"):
            return None
        if scheme == "https" and any(host == s or host.endswith("." + s) for s in CDN_HOST_SUFFIXES):
            return False
        if host in self.cdn_hosts or f"{host}:{port}" in self.cdn_hosts:
            return False
        return None

    def _headers(self, with_token: bool, extra: Mapping[str, str] | None) -> dict[str, str | None]:
        headers: dict[str, str | None] = {"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, identity"}
        # None removes a session-level Authorization header from requests that leave the endpoint.
        headers["Authorization"] = f"Bearer {self.token.reveal()}" if (with_token and self.token) else None
        headers.update(extra or {})
        return headers

    def _send(self, url: str, with_token: bool, what: str, extra: Mapping[str, str] | None) -> requests.Response:
        """One GET with one retry on 429/5xx (honouring Retry-After up to 10 s), errors mapped to HubError."""
        attempt = 0
        while True:
            try:
                # requests drops a header whose per-request value is None; its stubs do not say so.
                headers = cast("dict[str, str]", self._headers(with_token, extra))
                response = self.session.get(
                    url,
                    headers=headers,
                    timeout=self.timeout,
                    allow_redirects=False,
                    stream=True,
                )
            except requests.RequestException as exc:
                raise self._connection_error(exc, what) from None
            self._log("GET %s -> %s", url, response.status_code)
            if (response.status_code == 429 or response.status_code >= 500) and attempt < self.retries:
                attempt += 1
                wait = self.backoff * attempt
                retry_after = response.headers.get("Retry-After", "")
                if retry_after.strip().isdigit():
                    wait = min(float(retry_after), MAX_RETRY_AFTER)
                response.close()
                self._log("retrying %s in %.2f s after HTTP %s", what, wait, response.status_code)
                time.sleep(wait)
                continue
            return response

    def _connection_error(self, exc: requests.RequestException, what: str) -> HubError:
        host = urlsplit(self.endpoint).netloc
        text = str(exc)
        if isinstance(exc, requests.Timeout) or "timed out" in text.lower():
            phase = "connecting to" if isinstance(exc, requests.ConnectTimeout) else "waiting for"
            return HubConnectionError(
                f"timed out {phase} {host} while reading {what}: the Hub is slow or unreachable; try again later"
            )
        if isinstance(exc, requests.ConnectionError):
            lowered = text.lower()
            if any(
                s in lowered
                for s in (
                    "name or service not known",
                    "nodename nor servname",
                    "name resolution",
                    "getaddrinfo failed",
                    "no address associated",
                )
            ):
                return HubConnectionError(
                    f"cannot resolve {host} (DNS failure) while reading {what}: are you offline? Set HF_ENDPOINT "
                    "to a reachable mirror, or pick a catalog model"
                )
            if "refused" in lowered:
                return HubConnectionError(
                    f"connection to {host} refused while reading {what}: is HF_ENDPOINT right and the server up?"
                )
            return HubConnectionError(f"cannot connect to {host} while reading {what}: are you offline?")
        return HubConnectionError(f"request to {host} failed while reading {what} ({type(exc).__name__})")

    def get(
        self, path: str, *, what: str, file_download: bool, extra: Mapping[str, str] | None = None
    ) -> requests.Response:
        """GET ``path`` on the endpoint, following redirects under the rule in the module docstring."""
        url = self.endpoint + path
        with_token = True
        for _ in range(MAX_REDIRECTS + 1):
            response = self._send(url, with_token, what, extra)
            if response.status_code not in (301, 302, 303, 307, 308):
                return response
            location = response.headers.get("Location", "")
            response.close()
            target = urljoin(url, location)
            allowed = self._allowed_target(target, file_download)
            if not location or allowed is None:
                scheme, host, port = _origin(target)
                raise HubResponseError(
                    f"refusing to follow a redirect for {what} to {scheme}://{host}:{port}: only {self.endpoint} "
                    "and, for file downloads, its CDN hosts are contacted"
                )
            with_token = with_token and allowed
            url = target
        raise HubResponseError(f"too many redirects while reading {what}")

    def read(self, response: requests.Response, *, what: str, limit: int, exact: int | None = None) -> bytes:
        """The body, at most ``limit`` bytes (more is an error), or exactly the first ``exact`` bytes."""
        length = response.headers.get("Content-Length", "")
        if (
            exact is None
            and length.isdigit()
            and int(length) > limit
            and "gzip" not in response.headers.get("Content-Encoding", "")
        ):
            response.close()
            raise HubResponseError(f"{what} is {int(length):,} bytes, over the {limit:,}-byte limit; refused")
        deadline = time.monotonic() + self.total_timeout
        chunks: list[bytes] = []
        size = 0
        cap = exact if exact is not None else limit + 1
        try:
            for chunk in response.iter_content(chunk_size=65_536):
                chunks.append(chunk)
                size += len(chunk)
                if size >= cap:
                    break
                if time.monotonic() > deadline:
                    raise HubConnectionError(f"timed out reading {what}: the server sends too slowly")
        except requests.RequestException as exc:
            raise self._connection_error(exc, what) from None
        finally:
            response.close()
        body = b"".join(chunks)
        if exact is not None:
            return body[:exact]
        if len(body) > limit:
            raise HubResponseError(f"{what} is larger than the {limit:,}-byte limit; refused")
        return body


# -- status mapping ------------------------------------------------------------------------------------
def _error_detail(response: requests.Response) -> str:
    detail = response.headers.get("X-Error-Message", "")
    if not detail:
        try:
            body = response.raw.read(2000, decode_content=True) if response.raw else b""
            data = json.loads(body.decode("utf-8", "replace"))
            detail = str(data.get("error", "")) if isinstance(data, dict) else ""
        except (ValueError, OSError, AttributeError):
            detail = ""
    return detail[:200]


def _raise_for_status(
    response: requests.Response, *, client: _Client, repo_id: str, revision: str | None, what: str
) -> None:
    status = response.status_code
    if 200 <= status < 300:
        return
    code = response.headers.get("X-Error-Code", "")
    detail = _error_detail(response)
    response.close()
    page = f"{client.endpoint}/{repo_id}"
    if status == 401 or (status == 403 and code == "GatedRepo"):
        if code == "GatedRepo":
            if client.token is None:
                raise HubAccessError(
                    f"{repo_id} is gated: request access at {page} and set HF_TOKEN to a token of the approved account"
                )
            raise HubAccessError(
                f"{repo_id} is gated and this token's account has no access yet: request access at {page} "
                "(approval can take a while), then retry"
            )
        if client.token is None:
            raise HubAccessError(
                f"{repo_id} is private or gated, or does not exist: if you have access, request it at {page} "
                "and set HF_TOKEN"
            )
        raise HubAccessError(
            f"{repo_id}: the token was rejected (HTTP 401: invalid, expired, or without read access to this repo); "
            f"check HF_TOKEN and access at {page}"
        )
    if status == 403:
        raise HubAccessError(
            f"{repo_id}: access forbidden (HTTP 403) while reading {what}; request access at {page} and set "
            "HF_TOKEN to a token with read permission"
        )
    if status == 404:
        if code == "RevisionNotFound" or (revision and code != "RepoNotFound" and "rev" in detail.lower()):
            raise HubNotFoundError(f"revision {revision!r} not found in {repo_id}: check the branch, tag or sha")
        if code == "EntryNotFound":
            raise HubNotFoundError(f"{what} not found in {repo_id}")
        raise HubNotFoundError(
            f"model repository {repo_id} not found on {client.endpoint}: check the spelling (owner/name)"
            + (f" and the revision {revision!r}" if revision and code != "RepoNotFound" else "")
        )
    if status == 429:
        raise HubConnectionError(f"the Hub is rate-limiting requests (HTTP 429) while reading {what}; try later")
    if status >= 500:
        raise HubConnectionError(f"the Hub failed (HTTP {status}) while reading {what}, twice; try again later")
    raise HubResponseError(f"unexpected HTTP {status} while reading {what} of {repo_id}")


def _parse_json(body: bytes, what: str) -> Any:
    try:
        return json.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise HubResponseError(f"{what} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise HubResponseError(f"{what} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None


# -- safetensors header --------------------------------------------------------------------------------
class SafetensorsSummary(BaseModel, frozen=True, extra="forbid"):
    """What a safetensors header says: element counts and bytes by dtype, and the vision tower's share."""

    parameters_by_dtype: dict[str, int]
    bytes_by_dtype: dict[str, int]
    tensor_count: int
    data_bytes: int  # the end of the last tensor's data
    vision_parameters: int = 0
    lm_head_parameters: int = 0  # lm_head.weight, when stored (a tied model may store a copy)

    @property
    def parameters(self) -> int:
        return sum(self.parameters_by_dtype.values())

    @property
    def stored_bytes(self) -> int:
        return sum(self.bytes_by_dtype.values())


def _is_vision_tensor(name: str) -> bool:
    bare = name.removeprefix("model.")
    return bare.startswith(VISION_PREFIXES)


def parse_safetensors_header(header: Any, what: str = "safetensors header") -> SafetensorsSummary:
    """Summarise a parsed safetensors header (``{name: {dtype, shape, data_offsets}}``, plus ``__metadata__``)."""
    if not isinstance(header, dict):
        raise HubResponseError(f"{what}: expected a JSON object")
    params: dict[str, int] = {}
    nbytes: dict[str, int] = {}
    vision = lm_head = 0
    end_max = 0
    count = 0
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(entry, dict):
            raise HubResponseError(f"{what}: tensor {name!r} is not an object")
        dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
        if (
            not isinstance(dtype, str)
            or not isinstance(shape, list)
            or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)
            or not isinstance(offsets, list)
            or len(offsets) != 2
            or not all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
            or not 0 <= offsets[0] <= offsets[1]
        ):
            raise HubResponseError(f"{what}: tensor {name!r} has a malformed dtype, shape or data_offsets")
        numel = 1
        for dim in shape:
            numel *= dim
        size = offsets[1] - offsets[0]
        per = DTYPE_BYTES.get(dtype)
        if per is not None and size != int(numel * per + 0.999):
            raise HubResponseError(
                f"{what}: tensor {name!r} claims {size:,} bytes for {numel:,} {dtype} values; the header is "
                "inconsistent"
            )
        params[dtype] = params.get(dtype, 0) + numel
        nbytes[dtype] = nbytes.get(dtype, 0) + size
        end_max = max(end_max, offsets[1])
        count += 1
        if _is_vision_tensor(name):
            vision += numel
        if (
            name.removeprefix("model.") in ("lm_head.weight", "language_model.lm_head.weight")
            or name == "lm_head.weight"
        ):
            lm_head += numel
    return SafetensorsSummary(
        parameters_by_dtype=params,
        bytes_by_dtype=nbytes,
        tensor_count=count,
        data_bytes=end_max,
        vision_parameters=vision,
        lm_head_parameters=lm_head,
    )


def _content_range_total(response: requests.Response) -> int | None:
    value = response.headers.get("Content-Range", "")
    match = re.match(r"^bytes\s+\d+-\d+/(\d+)$", value.strip())
    if match:
        return int(match.group(1))
    length = response.headers.get("Content-Length", "")
    if response.status_code == 200 and length.isdigit():
        return int(length)
    return None


def _read_safetensors_header(
    client: _Client, repo_id: str, revision: str, filename: str, requested: str | None
) -> SafetensorsSummary | None:
    """The header of a single-file checkpoint by HTTP Range; None when the file does not exist."""
    path = f"/{repo_id}/resolve/{quote(revision, safe='')}/{quote(filename)}"
    what = f"{filename} header"
    response = client.get(
        path,
        what=what,
        file_download=True,
        extra={"Range": f"bytes=0-{HEADER_PREFETCH - 1}", "Accept-Encoding": "identity"},
    )
    if response.status_code == 404:
        response.close()
        return None
    if response.status_code == 416:
        response.close()
        raise HubResponseError(f"{filename} is empty or shorter than a safetensors header")
    _raise_for_status(response, client=client, repo_id=repo_id, revision=requested, what=what)
    file_size = _content_range_total(response)
    first = client.read(response, what=what, limit=HEADER_PREFETCH, exact=HEADER_PREFETCH)
    if len(first) < 8:
        raise HubResponseError(f"{filename} is {len(first)} bytes: too short to be a safetensors file")
    (length,) = struct.unpack("<Q", first[:8])
    if length > MAX_HEADER_BYTES:
        raise HubResponseError(
            f"{filename} claims a {length:,}-byte header, over the {MAX_HEADER_BYTES:,}-byte limit: not a "
            "valid safetensors file"
        )
    if file_size is not None and 8 + length > file_size:
        raise HubResponseError(
            f"{filename} claims a {length:,}-byte header but the file is only {file_size:,} bytes: the header "
            "length is wrong (corrupt or not a safetensors file)"
        )
    if 8 + length <= len(first):
        raw = first[8 : 8 + length]
    else:
        response = client.get(
            path,
            what=what,
            file_download=True,
            extra={"Range": f"bytes=8-{8 + length - 1}", "Accept-Encoding": "identity"},
        )
        _raise_for_status(response, client=client, repo_id=repo_id, revision=requested, what=what)
        if response.status_code == 200:  # Range ignored: the body starts at byte 0
            raw = client.read(response, what=what, limit=8 + length, exact=8 + length)[8:]
        else:
            raw = client.read(response, what=what, limit=length, exact=length)
    if len(raw) < length:
        raise HubResponseError(
            f"{filename} claims a {length:,}-byte header but the server sent only {len(raw):,} bytes: the "
            "header length is wrong (corrupt or truncated file)"
        )
    summary = parse_safetensors_header(_parse_json(raw, f"{filename} header"), f"{filename} header")
    if file_size is not None and 8 + length + summary.data_bytes > file_size:
        raise HubResponseError(
            f"{filename}: the header lists {summary.data_bytes:,} bytes of tensor data but the file holds only "
            f"{file_size - 8 - length:,}: the header is wrong"
        )
    return summary


# -- quantization and config ---------------------------------------------------------------------------
def detect_quantization(
    config: Mapping[str, Any], source: str = "config.json quantization_config"
) -> QuantizationInfo | None:
    """The checkpoint's quantization and the planner's precision name for it (AWQ, GPTQ, FP8, MXFP4, …)."""
    quant = config.get("quantization_config")
    if not isinstance(quant, dict):
        return None
    method = str(quant.get("quant_method") or quant.get("quant_type") or "unknown").lower()
    precision = quantization_precision({"quantization_config": quant})
    if precision is None:
        fp8_modelopt = method in ("modelopt", "nvfp4") and "FP8" in str(quant.get("quant_algo", "")).upper()
        if method in ("fbgemm_fp8", "fp8_e4m3", "ptpc_fp8") or fp8_modelopt:
            precision = "fp8"
        elif method in ("eetq", "int8"):
            precision = "int8"
    bits = quant.get("bits") or quant.get("w_bit") or quant.get("num_bits")
    if bits is None and method == "compressed-tensors":
        for group in (quant.get("config_groups") or {}).values():
            if isinstance(group, dict) and isinstance(group.get("weights"), dict):
                bits = group["weights"].get("num_bits")
                break
    if bits is None and method == "bitsandbytes":
        bits = 8 if quant.get("load_in_8bit") else 4
    group_size = quant.get("group_size") or quant.get("q_group_size")
    return QuantizationInfo(
        method=method,
        precision=_precision_name(precision),
        bits=bits if isinstance(bits, int) and not isinstance(bits, bool) else None,
        group_size=group_size if isinstance(group_size, int) and not isinstance(group_size, bool) else None,
        source=source,
    )


def _lookup(config: Mapping[str, Any], keys: Iterable[str]) -> Any:
    key = text_config_key(config)
    scopes = [config[key], config] if key else [config]
    for scope in scopes:
        for name in keys:
            if scope.get(name) is not None:
                return scope[name]
    return None


def _prefill(config: Mapping[str, Any]) -> dict[str, int | float | str | bool]:
    out: dict[str, int | float | str | bool] = {}
    for name, keys in PREFILL_FIELDS:
        value = _lookup(config, keys)
        if isinstance(value, int | float | str | bool):
            out[name] = value
    return out


def _missing_fields(config: Mapping[str, Any], error: str) -> tuple[MissingField, ...]:
    missing = [
        MissingField(field=name, reason=f"config.json has no {'/'.join(keys)} ({what})")
        for name, keys, what in REQUIRED_FIELDS
        if not isinstance(_lookup(config, keys), int) or isinstance(_lookup(config, keys), bool)
    ]
    moe = _lookup(config, ("num_local_experts", "n_routed_experts", "num_experts"))
    if not moe and _lookup(config, ("intermediate_size", "ffn_hidden_size")) is None:
        missing.append(
            MissingField(field="intermediate_size", reason="config.json has no intermediate_size (MLP width)")
        )
    if not missing:
        missing.append(MissingField(field="config", reason=error))
    return tuple(missing)


def _is_multimodal(config: Mapping[str, Any]) -> bool:
    return text_config_key(config) is not None or any(isinstance(config.get(k), dict) for k in VISION_CONFIG_KEYS)


def _has_vision(config: Mapping[str, Any]) -> bool:
    return any(isinstance(config.get(k), dict) for k in VISION_CONFIG_KEYS)


def _api_parameters(info: Mapping[str, Any]) -> tuple[int | None, dict[str, int]]:
    st = info.get("safetensors")
    if not isinstance(st, dict):
        return None, {}
    by_dtype = {
        str(k): int(v)
        for k, v in (st.get("parameters") or {}).items()
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0
    }
    total = st.get("total")
    if isinstance(total, int) and not isinstance(total, bool) and total > 0:
        return total, by_dtype
    return (sum(by_dtype.values()) or None), by_dtype


def _precision_name(name: str | None) -> WeightPrecision | None:
    return cast("WeightPrecision", name) if name in get_args(WeightPrecision) else None


def _sourced(value: int | None, source: str) -> SourcedCount | None:
    return SourcedCount(value=value, source=source) if value is not None and value >= 0 else None


# -- the fetch -----------------------------------------------------------------------------------------
def fetch_model(
    repo: str,
    revision: str | None = None,
    token: str | None = None,
    endpoint: str | None = None,
    session: requests.Session | None = None,
    *,
    timeout: tuple[float, float] = DEFAULT_TIMEOUT,
    total_timeout: float = DEFAULT_TOTAL_TIMEOUT,
    retries: int = 1,
    backoff: float = 1.0,
    cdn_hosts: Iterable[str] = (),
) -> HubModel:
    """Read ``repo`` (``owner/name``, ``owner/name@rev`` or its URL) from the Hub into a :class:`HubModel`.

    ``token`` defaults to ``HF_TOKEN``, ``endpoint`` to ``HF_ENDPOINT``. Deterministic for one commit (files
    are read at the ``sha`` the API reports), so the UI may cache it; every failure raises :class:`HubError`.
    ``cdn_hosts`` adds hosts (``host`` or ``host:port``) that file downloads may be redirected to.
    """
    base = resolve_endpoint(endpoint)
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        raise HubConnectionError("HF_HUB_OFFLINE is set: the Hub is not contacted; pick a catalog model or a config")
    repo_id, ref_revision = parse_repo_ref(repo, base)
    if revision is not None:
        revision = _check_revision(revision.strip())
        if ref_revision is not None and ref_revision != revision:
            raise HubError(f"two revisions given: {ref_revision!r} in the reference and {revision!r}")
    revision = revision or ref_revision
    raw_token = token if token is not None else os.environ.get("HF_TOKEN")
    secret = _Secret(raw_token.strip()) if raw_token and raw_token.strip() else None
    own_session = session is None
    client = _Client(
        endpoint=base,
        token=secret,
        session=session or requests.Session(),
        timeout=timeout,
        total_timeout=total_timeout,
        retries=retries,
        backoff=backoff,
        cdn_hosts=frozenset(h.strip().lower() for h in cdn_hosts if h.strip()),
    )
    try:
        return _fetch(client, repo_id, revision)
    except HubError as exc:
        raise type(exc)(client._redact(str(exc))) from None
    finally:
        if own_session:
            client.session.close()


def _get_json(
    client: _Client,
    path: str,
    *,
    what: str,
    limit: int,
    repo_id: str,
    revision: str | None,
    file_download: bool,
    optional: bool = False,
) -> Any:
    response = client.get(path, what=what, file_download=file_download)
    if (
        optional
        and response.status_code == 404
        and response.headers.get("X-Error-Code", "EntryNotFound") in ("EntryNotFound", "")
    ):
        response.close()
        return None
    _raise_for_status(response, client=client, repo_id=repo_id, revision=revision, what=what)
    return _parse_json(client.read(response, what=what, limit=limit), what)


def _fetch(client: _Client, repo_id: str, revision: str | None) -> HubModel:
    notes: list[str] = []
    api_path = f"/api/models/{repo_id}" + (f"/revision/{quote(revision, safe='')}" if revision else "")
    info = _get_json(
        client,
        api_path,
        what=f"the Hub API entry of {repo_id}",
        limit=MAX_API_BYTES,
        repo_id=repo_id,
        revision=revision,
        file_download=False,
    )
    if not isinstance(info, dict):
        raise HubResponseError(f"the Hub API entry of {repo_id} is not a JSON object")
    sha = info.get("sha") if isinstance(info.get("sha"), str) and _SHA.match(info["sha"]) else None
    file_rev = sha or revision or "main"
    siblings: set[str] | None = None
    if isinstance(info.get("siblings"), list):
        siblings = {
            s["rfilename"] for s in info["siblings"] if isinstance(s, dict) and isinstance(s.get("rfilename"), str)
        }

    def has(name: str) -> bool:
        return siblings is None or name in siblings

    def file_path(name: str) -> str:
        return f"/{repo_id}/resolve/{quote(file_rev, safe='')}/{quote(name)}"

    config: dict[str, Any] | None = None
    if has("config.json"):
        loaded = _get_json(
            client,
            file_path("config.json"),
            what="config.json",
            limit=MAX_CONFIG_BYTES,
            repo_id=repo_id,
            revision=revision,
            file_download=True,
            optional=True,
        )
        if loaded is not None and not isinstance(loaded, dict):
            raise HubResponseError("config.json: expected a JSON object at the top level")
        config = loaded
    if config is None:
        notes.append(
            "the repository has no config.json (GGUF-only or a non-transformers layout): give the shape by hand"
        )
    quant: QuantizationInfo | None = None
    if config is not None:
        quant = detect_quantization(config)
        if quant is None and siblings is not None and "quantize_config.json" in siblings:
            legacy = _get_json(
                client,
                file_path("quantize_config.json"),
                what="quantize_config.json",
                limit=100_000,
                repo_id=repo_id,
                revision=revision,
                file_download=True,
                optional=True,
            )
            if isinstance(legacy, dict):
                legacy = {"quant_method": "gptq", **legacy}
                config = {**config, "quantization_config": legacy}
                quant = detect_quantization(config, source="quantize_config.json (AutoGPTQ)")

    index_total: int | None = None
    header: SafetensorsSummary | None = None
    if has(INDEX_FILE):
        index = _get_json(
            client,
            file_path(INDEX_FILE),
            what=INDEX_FILE,
            limit=MAX_INDEX_BYTES,
            repo_id=repo_id,
            revision=revision,
            file_download=True,
            optional=True,
        )
        if index is not None:
            total = index.get("metadata", {}).get("total_size") if isinstance(index, dict) else None
            if isinstance(total, int | float) and not isinstance(total, bool) and total > 0:
                index_total = int(total)
            else:
                notes.append(f"{INDEX_FILE} has no metadata.total_size")
    if index_total is None and has(SINGLE_FILE):
        header = _read_safetensors_header(client, repo_id, file_rev, SINGLE_FILE, revision)

    api_total, api_by_dtype = _api_parameters(info)
    return _assemble(
        client, info, repo_id, revision, sha, config, quant, index_total, header, api_total, api_by_dtype, notes
    )


def _assemble(
    client: _Client,
    info: Mapping[str, Any],
    repo_id: str,
    revision: str | None,
    sha: str | None,
    config: dict[str, Any] | None,
    quant: QuantizationInfo | None,
    index_total: int | None,
    header: SafetensorsSummary | None,
    api_total: int | None,
    api_by_dtype: dict[str, int],
    notes: list[str],
) -> HubModel:
    # -- checkpoint counts
    if header is not None:
        checkpoint = _sourced(header.parameters, "safetensors header (model.safetensors)")
        by_dtype = dict(header.parameters_by_dtype)
    else:
        checkpoint = _sourced(api_total, "API safetensors.total")
        by_dtype = api_by_dtype
    if index_total is not None:
        stored = _sourced(index_total, "safetensors index total_size")
    elif header is not None:
        stored = _sourced(header.stored_bytes, "safetensors header (model.safetensors)")
    elif api_by_dtype and all(k in DTYPE_BYTES for k in api_by_dtype):
        stored = _sourced(
            round(sum(n * DTYPE_BYTES[k] for k, n in api_by_dtype.items())),
            "estimated from API safetensors.parameters x dtype size",
        )
    else:
        stored = None
    quantized = quant is not None
    if quant is not None and quant.precision is None:
        notes.append(
            f"quantization {quant.method!r} is not one the planner models: choose the weight precision by hand"
        )

    # -- the spec
    spec: ModelSpec | None = None
    missing: tuple[MissingField, ...] = ()
    prefill: dict[str, int | float | str | bool] = {}
    vision: AttachedModule | None = None
    computed: SourcedCount | None = None
    parameters: SourcedCount | None = None
    multimodal = config is not None and _is_multimodal(config)
    if config is not None:
        filled, default_notes = with_family_defaults(config)
        notes.extend(default_notes)
        prefill = _prefill(filled)
        try:
            spec = spec_from_hf_config(filled, repo_id)
        except PlannerError as exc:
            missing = _missing_fields(filled, str(exc))
            notes.append(f"config.json cannot be planned as is ({exc}); complete the missing fields")
        except (ValidationError, TypeError, ValueError, AttributeError) as exc:
            missing = _missing_fields(filled, f"config.json has unexpected values ({type(exc).__name__})")
    else:
        missing = tuple(
            MissingField(field=name, reason="no config.json in the repository") for name, _, _ in REQUIRED_FIELDS
        )
    if spec is not None and quant is not None and quant.precision is not None and spec.native_dtype != quant.precision:
        spec = ModelSpec.model_validate({**spec.model_dump(), "native_dtype": quant.precision})

    if spec is not None:
        text_total = parameter_breakdown(spec).total
        if multimodal and config is not None and _has_vision(config):
            if header is not None and header.vision_parameters:
                vision = AttachedModule(
                    name="vision tower + projector",
                    parameters=header.vision_parameters,
                    loaded_for_serving=True,
                    source="safetensors header: tensors named vision_tower.* / multi_modal_projector.* (and similar)",
                )
            elif checkpoint is not None and not quantized and checkpoint.value > text_total:
                vision = AttachedModule(
                    name="vision tower + projector",
                    parameters=checkpoint.value - text_total,
                    loaded_for_serving=True,
                    source=f"{checkpoint.source} minus the text decoder computed from config.json",
                )
            else:
                notes.append("the vision tower's size is unknown (no exact checkpoint count): it is not counted")
            if vision is not None:
                spec = ModelSpec.model_validate(
                    {
                        **spec.model_dump(),
                        "attached_modules": [*spec.model_dump()["attached_modules"], vision.model_dump()],
                    }
                )
        total = parameter_breakdown(spec).total
        computed = SourcedCount(
            value=total,
            source="computed from config.json" + (f" + vision tower ({vision.source})" if vision else ""),
        )
        parameters = computed
        if quantized and checkpoint is not None and checkpoint.value != total:
            notes.append(
                f"{checkpoint.source} {checkpoint.value:,} counts the stored elements of the "
                f"{quant.method if quant else ''} checkpoint (packed weights, scales, zero points); the plan uses "
                f"{total:,}, computed from config.json"
            )
        if checkpoint is not None and not quantized and checkpoint.value != total:
            diff = checkpoint.value - total
            vocab_h = (spec.vocab_size or 0) * (spec.hidden_size or 0)
            if spec.tie_word_embeddings and (
                (header is not None and header.lm_head_parameters == diff) or (header is None and diff == vocab_h)
            ):
                notes.append(
                    f"the checkpoint also stores lm_head.weight ({diff:,} values), a copy of the tied embedding: "
                    f"{checkpoint.source} {checkpoint.value:,} counts it, servers load one copy; the plan uses "
                    f"{total:,}"
                )
            else:
                notes.append(
                    f"{checkpoint.source} gives {checkpoint.value:,} parameters, config.json computes {total:,} "
                    f"(difference {diff:+,}); the plan uses the checkpoint's count"
                )
                spec = ModelSpec.model_validate({**spec.model_dump(), "num_parameters": checkpoint.value})
                parameters = checkpoint
        elif checkpoint is not None and not quantized:
            parameters = checkpoint
    elif checkpoint is not None:
        parameters = checkpoint
        if not quantized:
            prefill["num_parameters"] = checkpoint.value

    precision: WeightPrecision | None = None
    if quant is not None and quant.precision is not None:
        precision = quant.precision
    elif spec is not None:
        precision = spec.native_dtype
    elif config is not None:
        dtype = _lookup(config, ("torch_dtype", "dtype"))
        precision = _precision_name(TORCH_DTYPE_NAMES.get(str(dtype), "")) if dtype else None
    if precision is not None and spec is None:
        prefill["native_dtype"] = precision

    gated_raw = info.get("gated")
    gated = str(gated_raw) if gated_raw not in (None, False, "false", "") else None
    architectures = tuple(str(a) for a in (config or {}).get("architectures") or () if isinstance(a, str))
    model_type = str(config["model_type"]) if config and config.get("model_type") else None
    result = HubModel(
        repo_id=repo_id,
        revision=revision,
        sha=sha,
        endpoint=client.endpoint,
        url=f"{client.endpoint}/{repo_id}",
        gated=gated,
        private=bool(info.get("private", False)),
        model_type=model_type,
        architectures=architectures,
        multimodal=multimodal,
        spec=spec,
        missing=missing,
        prefill=prefill,
        parameters=parameters,
        checkpoint_parameters=checkpoint,
        computed_parameters=computed,
        parameters_by_dtype=by_dtype,
        stored_bytes=stored,
        stored_bytes_by_dtype=dict(header.bytes_by_dtype) if header is not None else {},
        quantization=quant,
        weight_precision=precision,
        vision=vision,
        notes=tuple(client._redact(n) for n in notes),
    )
    logger.debug(
        "read %s at %s: %s parameters",
        repo_id,
        sha or revision or "main",
        parameters.value if parameters else "unknown",
    )
    return result
