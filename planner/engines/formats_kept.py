"""What an engine runs on a GPU family for a model kind (:func:`planner.engines.registry.formats_run`,
:func:`planner.engines.registry.kv_dtypes_run`), kept: it reads the engine's frozen support table
(:attr:`planner.engines.base.Engine.support`, a class constant), the family and the kind alone, and every page run
asks it for the sidebar's choices (~470 ``EngineSupport.runs`` a run for Llama-3.1-70B on an H100, ~10 ms of an
advisor slider move's run: issue 24). Keyed by the engine object, so an engine registered under a name another
had is another key (:func:`planner.engines.registry.register`); ``None``: a generic profile, which runs every
format. A few engines, families, kinds and dtypes: the bound is never reached by the catalog."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from planner.core.kv_formats import KV_FORMATS
from planner.core.precision import WEIGHT_FORMATS, weight_format
from planner.engines.support import Family, ModelKind

if TYPE_CHECKING:
    from planner.engines.base import Engine

KEPT = 4096  # entries of each memo


@lru_cache(maxsize=KEPT)
def formats_of(
    engine: Engine | None, fam: Family | None, kind: ModelKind, compared: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The weight formats of the model's kind the engine runs with some KV dtype, and those of ``compared`` it keeps
    with one of them."""
    layouts = tuple(w for w in WEIGHT_FORMATS if layout_fits(w, kind.moe))
    if engine is None:
        return layouts, compared
    support = engine.support
    weights = tuple(w for w in layouts if any(support.runs(w, k, fam, kind) for k in support.kv_dtypes()))
    kvs = tuple(k for k in compared if any(support.runs(w, k, fam, kind) for w in weights))
    return weights, kvs


@lru_cache(maxsize=KEPT)
def kv_dtypes_of(engine: Engine | None, weights: str, fam: Family | None, kind: ModelKind) -> tuple[str, ...]:
    """Every KV dtype (:data:`planner.core.kv_formats.KV_FORMATS`) the engine keeps with ``weights``."""
    if engine is None:
        return tuple(KV_FORMATS)
    return tuple(k for k in KV_FORMATS if engine.support.runs(weights, k, fam, kind))


def layout_fits(weights: str, experts: bool) -> bool:
    """Whether a model with (or without) routed experts has checkpoints of the layout ``weights``: a MoE
    checkpoint's layout (``moe_only``) or one read from a dense checkpoint (``dense_only``) only on its kind."""
    fmt = weight_format(weights)
    return not ((fmt.moe_only and not experts) or (fmt.dense_only and experts))
