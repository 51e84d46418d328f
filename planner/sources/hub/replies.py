"""The Hub's JSON replies read as data, every field type-checked: the API entry, the index, the configs.

- ``GET /api/models/{repo}[/revision/{rev}]`` (the Hub's model info endpoint, as huggingface_hub
  ``HfApi.model_info`` reads it) gives the commit ``sha``, ``siblings`` (the repository's files), ``gated``
  / ``private`` and ``safetensors`` (parameter counts by dtype, and their ``total``).
- ``model.safetensors.index.json`` (transformers ``save_pretrained`` with sharding) gives
  ``metadata.total_size``, the exact byte size of the stored tensors.
- ``config.json``: the fields read here (``model_type``, ``architectures``, ``quantization_config``); the
  shape fields are read by :mod:`planner.sources.config`, which reports what it cannot use as missing fields.
- ``quantize_config.json``: AutoGPTQ's file before quantizers wrote ``quantization_config`` into the config.

Every reply has already passed :func:`planner.bounds.safe_json.load_json`; a field of the wrong type or out of range
is a :class:`HubResponseError` naming it (:mod:`planner.sources.hub.checks`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from planner.sources.config import text_config_key
from planner.sources.hub.checks import mapping, optional_count, short_text, whole_number
from planner.sources.hub.errors import HubResponseError

__all__ = ["ApiInfo", "index_total_size", "parse_api_info", "parse_config", "parse_quantize_config"]

INDEX_FILE = "model.safetensors.index.json"
MAX_DTYPES = 64  # safetensors has ~20 dtypes; a reply listing more is not describing a checkpoint
_SHA = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True)
class ApiInfo:
    """What the API entry says about a repository (fields it lacks are None / empty)."""

    sha: str | None = None  # the commit every file is then read at
    siblings: frozenset[str] | None = None  # None: the entry lists no files (then every file is tried)
    gated: str | None = None
    private: bool = False
    parameters_total: int | None = None
    parameters_by_dtype: dict[str, int] = field(default_factory=dict)

    def has(self, filename: str) -> bool:
        """Whether ``filename`` may exist (the entry lists it, or lists nothing)."""
        return self.siblings is None or filename in self.siblings


def _siblings(value: Any, where: str) -> frozenset[str] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise HubResponseError(f"{where}: siblings must be a list of files")
    names = [s.get("rfilename") if isinstance(s, dict) else None for s in value]
    if not all(isinstance(n, str) for n in names):
        raise HubResponseError(f"{where}: siblings must be a list of {{rfilename: text}} objects")
    return frozenset(n for n in names if isinstance(n, str))


def _gated(value: Any, where: str) -> str | None:
    """``false`` (open), ``"auto"`` or ``"manual"`` (access must be requested)."""
    if value in (None, False, "false", ""):
        return None
    if value is True:
        return "true"
    return short_text(value, "gated", where, limit=20)


def _api_parameters(info: dict[str, Any], where: str) -> tuple[int | None, dict[str, int]]:
    st = mapping(info.get("safetensors"), "safetensors", where)
    if st is None:
        return None, {}
    counts = mapping(st.get("parameters"), "safetensors.parameters", where) or {}
    if len(counts) > MAX_DTYPES:
        raise HubResponseError(f"{where}: safetensors.parameters lists {len(counts):,} dtypes")
    by_dtype = {
        short_text(k, "a safetensors.parameters dtype", where, limit=32): whole_number(
            v, f"safetensors.parameters[{k[:32]!r}]", where
        )
        for k, v in counts.items()
    }
    total = optional_count(st.get("total"), "safetensors.total", where)
    if total is None and by_dtype:
        total = whole_number(sum(by_dtype.values()), "the sum of safetensors.parameters", where) or None
    return total, by_dtype


def parse_api_info(info: Any, repo_id: str) -> ApiInfo:
    """The API entry of ``repo_id`` (parsed JSON) as :class:`ApiInfo`, every field used type-checked."""
    where = f"the Hub API entry of {repo_id}"
    if not isinstance(info, dict):
        raise HubResponseError(f"{where} is not a JSON object")
    sha = info.get("sha")
    private = info.get("private", False)
    if not isinstance(private, bool):
        raise HubResponseError(f"{where}: private must be true or false")
    total, by_dtype = _api_parameters(info, where)
    return ApiInfo(
        sha=sha if isinstance(sha, str) and _SHA.match(sha) else None,  # else files are read at the revision
        siblings=_siblings(info.get("siblings"), where),
        gated=_gated(info.get("gated"), where),
        private=private,
        parameters_total=total,
        parameters_by_dtype=by_dtype,
    )


def index_total_size(index: Any) -> int | None:
    """``metadata.total_size`` of a safetensors index; None when the index does not give it."""
    if not isinstance(index, dict):
        raise HubResponseError(f"{INDEX_FILE}: expected a JSON object at the top level")
    metadata = mapping(index.get("metadata"), "metadata", INDEX_FILE) or {}
    return optional_count(metadata.get("total_size"), "metadata.total_size", INDEX_FILE)


def parse_config(config: Any) -> dict[str, Any]:
    """``config.json`` (parsed JSON), checked to be an object whose fields read here have the right types."""
    if not isinstance(config, dict):
        raise HubResponseError("config.json: expected a JSON object at the top level")
    key = text_config_key(config)
    for scope, prefix in ((config, ""), (config[key] if key else {}, f"{key}.")):
        if scope.get("model_type") is not None:
            short_text(scope["model_type"], f"{prefix}model_type", "config.json")
    architectures = config.get("architectures")
    if architectures is not None and not (
        isinstance(architectures, list) and all(isinstance(a, str) and len(a) <= 200 for a in architectures)
    ):
        raise HubResponseError("config.json: architectures must be a list of class names")
    mapping(config.get("quantization_config"), "quantization_config", "config.json")
    return config


def parse_quantize_config(legacy: Any) -> dict[str, Any]:
    """An AutoGPTQ ``quantize_config.json`` as a ``quantization_config`` (``quant_method`` gptq)."""
    if not isinstance(legacy, dict):
        raise HubResponseError("quantize_config.json: expected a JSON object at the top level")
    return {"quant_method": "gptq", **legacy}
