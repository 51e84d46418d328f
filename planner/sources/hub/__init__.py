"""Plan any model on the Hugging Face Hub: read its metadata, ``config.json`` and safetensors index over HTTP.

Pure Python (no Streamlit): the dashboard caches :func:`fetch_model` with ``st.cache_data``. Every failure
raises :class:`HubError` (a :class:`PlannerError`), so a failure is never cached as a result.

The package, by concern (each module's docstring gives its rules and their sources):

- :mod:`~planner.sources.hub.errors`: :class:`HubError` and its subclasses, :func:`redact`, the log filter;
- :mod:`~planner.sources.hub.references`: the endpoint, repository ids, revisions and repository URLs;
- :mod:`~planner.sources.hub.tokens`: the access token: where from (HF_TOKEN only when allowed), what it may
  contain, held so that it never prints;
- :mod:`~planner.sources.hub.deadline`: one time limit for a whole import, enforced on every socket read;
- :mod:`~planner.sources.hub.transport`: the HTTP client (redirect rule, retries, bounded reads, status codes);
- :mod:`~planner.sources.hub.checks`: type and range checks for every field read from a reply;
- :mod:`~planner.sources.hub.replies`: the API entry, the safetensors index and the configs, read as data;
- :mod:`~planner.sources.hub.safetensors`: a safetensors header, read by HTTP Range and summarised;
- :mod:`~planner.sources.hub.quantization`: the checkpoint's quantization from ``quantization_config``;
- :mod:`~planner.sources.hub.assembly`: from what was read to a :class:`HubModel` (pure);
- :mod:`~planner.sources.hub.fetch`: :func:`fetch_model`, which reads one repository at one commit.
"""

from planner.sources.hub.errors import (
    HubAccessError,
    HubConnectionError,
    HubError,
    HubNotFoundError,
    HubResponseError,
    redact,
)
from planner.sources.hub.fetch import fetch_model
from planner.sources.hub.quantization import detect_quantization
from planner.sources.hub.references import DEFAULT_ENDPOINT, parse_repo_ref, resolve_endpoint
from planner.sources.hub.results import HubModel, MissingField, QuantizationInfo, SourcedCount
from planner.sources.hub.safetensors import SafetensorsSummary, parse_safetensors_header

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
    "SafetensorsSummary",
    "SourcedCount",
    "detect_quantization",
    "fetch_model",
    "parse_repo_ref",
    "parse_safetensors_header",
    "redact",
    "resolve_endpoint",
]
