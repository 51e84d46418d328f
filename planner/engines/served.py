"""Whether some engine serves a set-up: what a generic estimate (no engine's rules, ``--engine generic``) is of.

A generic profile plans any weight format with any KV cache; FP8 weights with a q4_0 cache on an H100 planned green,
and were offered as the nearest set-up, though vLLM, SGLang, TensorRT-LLM and llama.cpp each refuse the pair (an
outside review, 2026-12-05). The pair is now said to be unserved, and the nearest set-ups are pairs some engine runs.

>>> from model_catalog import get_gpu
>>> h100 = get_gpu("h100-sxm-80gb")
>>> served_somewhere("fp8", "fp8", h100, False), served_somewhere("fp8", "int4", h100, False)
(True, False)
"""

from __future__ import annotations

from functools import lru_cache

from planner.core.gpu import GpuSpec
from planner.core.kv_formats import kv_format
from planner.core.precision import weight_format
from planner.engines.registry import engine_names, pair_runs, runs_on
from planner.engines.support import ModelKind, as_kind, kind_of
from planner.planning.plan import PlanRequest


def served_somewhere(weights: str, kv_dtype: str, gpu: GpuSpec | None, moe: bool | ModelKind) -> bool:
    """Whether some engine runs ``weights`` with a ``kv_dtype`` cache on ``gpu``; ``True`` where no engine runs
    anything on ``gpu`` (no claim either way). Asked once per precisions, GPU and kind of model (every generic
    assessment asks it: a 64-point curve went 4.9 -> 91 ms without it)."""
    return _served(weights, kv_dtype, gpu, as_kind(moe))


@lru_cache(maxsize=1024)  # a few weight formats x KV dtypes x catalog GPUs x kinds of model (frozen, hashable)
def _served(weights: str, kv_dtype: str, gpu: GpuSpec | None, moe: ModelKind) -> bool:
    names = [name for name in engine_names() if runs_on(name, gpu)]
    return not names or any(pair_runs(name, weights, kv_dtype, gpu, moe) for name in names)


def unserved_warning(request: PlanRequest) -> str | None:
    """That no engine serves the request's weights with its KV cache on its GPU (``None``: some engine does)."""
    weights, kv = request.resolved_weights, request.resolved_kv_dtype
    if served_somewhere(weights, kv, request.gpu, kind_of(request.model)):
        return None
    return (
        f"no engine the planner models runs {weight_format(weights).label} weights with the KV cache in "
        f"{kv_format(kv).label} on this GPU: the estimate is of a set-up none of them serves (choose an engine to see "
        "its reason)"
    )
