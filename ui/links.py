"""Shareable links: the query string that reproduces a view (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import urlencode, urlsplit, urlunsplit

from ui import state
from ui.state import Selection


def selection_params(sel: Selection) -> dict[str, str]:
    """Every shared setting as URL parameters (explicit, so a link survives changed defaults)."""
    return {
        state.MODEL.key: sel.model_id,
        **({state.HF.key: sel.hf} if sel.hf else {}),
        **({state.CUSTOM_SPEC.key: sel.custom_spec} if sel.custom_spec else {}),
        **({state.CALIBRATION.key: sel.calibration} if sel.calibration else {}),
        state.GPU.key: sel.gpu_id,
        state.GPUS.key: str(sel.gpu_count),
        state.TP.key: str(sel.tensor_parallel),
        state.PP.key: str(sel.pipeline_parallel),
        state.WEIGHTS.key: sel.weights,
        state.KV.key: sel.kv_dtype,
        state.ENGINE.key: sel.engine,
        state.UTIL.key: f"{sel.util:g}",
        state.CONTEXT.key: str(sel.context_tokens),
        state.USERS.key: str(sel.users),
        state.UNIT.key: sel.unit,
    }


def query_string(sel: Selection, extra: Mapping[str, str | Sequence[str]] | None = None, **changes: str) -> str:
    """``?model=…&gpu=…``: the selection, then page settings in ``extra``, then ``changes`` on top."""
    params: dict[str, str | Sequence[str]] = {**selection_params(sel), **(extra or {}), **changes}
    return "?" + urlencode(params, doseq=True)


def share_url(base_url: str | None, page_path: str, query: str) -> str:
    """An absolute link to ``page_path`` with ``query``, on the host the user is on."""
    if not base_url:
        return f"/{page_path}{query}"
    parts = urlsplit(base_url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{page_path}", query.lstrip("?"), ""))
