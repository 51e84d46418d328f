"""The Hub's JSON replies read as data: the model API entry and the safetensors index.

``GET /api/models/{repo}[/revision/{rev}]`` (the Hub's model info endpoint, as huggingface_hub
``HfApi.model_info`` reads it) gives the commit ``sha``, ``siblings`` (the repository's files), ``gated`` /
``private`` and ``safetensors`` (parameter counts by dtype, and their ``total``).
``model.safetensors.index.json`` (transformers ``save_pretrained`` with sharding) gives
``metadata.total_size``, the exact byte size of the stored tensors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from planner.hub.errors import HubResponseError

__all__ = ["ApiInfo", "index_total_size", "parse_api_info"]

_SHA = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True)
class ApiInfo:
    """What the API entry says about a repository (fields it lacks or garbles are None / empty)."""

    sha: str | None = None  # the commit every file is then read at
    siblings: frozenset[str] | None = None  # None: the entry lists no files (then every file is tried)
    gated: str | None = None
    private: bool = False
    parameters_total: int | None = None
    parameters_by_dtype: dict[str, int] = field(default_factory=dict)

    def has(self, filename: str) -> bool:
        """Whether ``filename`` may exist (the entry lists it, or lists nothing)."""
        return self.siblings is None or filename in self.siblings


def _api_parameters(info: dict[str, Any]) -> tuple[int | None, dict[str, int]]:
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


def parse_api_info(info: Any, repo_id: str) -> ApiInfo:
    """The API entry of ``repo_id`` (a parsed JSON object) as :class:`ApiInfo`."""
    if not isinstance(info, dict):
        raise HubResponseError(f"the Hub API entry of {repo_id} is not a JSON object")
    sha = info.get("sha") if isinstance(info.get("sha"), str) and _SHA.match(info["sha"]) else None
    siblings: frozenset[str] | None = None
    if isinstance(info.get("siblings"), list):
        siblings = frozenset(
            s["rfilename"] for s in info["siblings"] if isinstance(s, dict) and isinstance(s.get("rfilename"), str)
        )
    gated_raw = info.get("gated")
    total, by_dtype = _api_parameters(info)
    return ApiInfo(
        sha=sha,
        siblings=siblings,
        gated=str(gated_raw) if gated_raw not in (None, False, "false", "") else None,
        private=bool(info.get("private", False)),
        parameters_total=total,
        parameters_by_dtype=by_dtype,
    )


def index_total_size(index: Any) -> int | None:
    """``metadata.total_size`` of a safetensors index, when it is a positive number."""
    total = index.get("metadata", {}).get("total_size") if isinstance(index, dict) else None
    if isinstance(total, int | float) and not isinstance(total, bool) and total > 0:
        return int(total)
    return None
