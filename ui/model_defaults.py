"""What a set-up's settings start at when the model, engine or GPU changes: the model's serving precision, the KV
dtype the engine caches it in on the GPU, and a context the model has (the sidebar follows them:
:func:`ui.sidebar._follow`)."""

from __future__ import annotations

from typing import Any

from model_catalog import get_gpu, load_gpus
from planner.core.model import ModelSpec
from planner.core.serving import engine_kv_dtype, serving_weights
from planner.engines.registry import overhead_profile
from ui import settings
from ui.state import DEFAULT_ENGINE, default_context, engine_options


def kv_default(spec: ModelSpec, engine: object, gpu: object = None) -> str:
    """The KV dtype ``engine`` caches ``spec`` in on ``gpu`` (a catalog id; unknown: none) when none is chosen (an
    unknown engine: the default engine's): SGLang's FP8 cache for DeepSeek sparse attention on Blackwell, as the
    CLI plans it (:func:`planner.core.serving.engine_kv_dtype`; a maintainer's review, 2026-12-06)."""
    name = engine if isinstance(engine, str) and engine in engine_options() else DEFAULT_ENGINE
    device = get_gpu(gpu).platform if isinstance(gpu, str) and gpu in load_gpus() else None
    return engine_kv_dtype(spec, overhead_profile(name), device)


def model_defaults(
    spec: ModelSpec, engine: object, checkpoint_precision: str | None = None, gpu: object = None
) -> dict[str, Any]:
    """What changes with the model: its serving precision (or the checkpoint's), the KV dtype ``engine`` caches it
    in by default on ``gpu``, and a context it has."""
    return {
        settings.WEIGHTS.url: checkpoint_precision or serving_weights(spec),
        settings.KV.url: kv_default(spec, engine, gpu),
        settings.CONTEXT.url: default_context(spec),
    }
