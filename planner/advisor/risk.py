"""The risk section of one option: its overflow report, with the pool and the per-conversation cost the planner
computes (sliding-window, chunked and linear-attention layers included), or what its fixed slots hold."""

from __future__ import annotations

from planner.advisor.options import Option
from planner.advisor.overflow import OverflowReport, overflow_report, slots_report
from planner.advisor.sums import CostCurve, deployment_overflow_probability
from planner.advisor.workload import Workload
from planner.core.blocks import LayerKind
from planner.core.kv import kinds_in, kv_bytes_per_token_per_layer, linear_state_bytes_per_layer
from planner.core.model import ModelSpec
from planner.engines.registry import engine_names, engine_profile


def cost_curve(model: ModelSpec, kv_dtype: str, tensor_parallel: int) -> CostCurve:
    """Bytes one conversation of ``L`` tokens holds on one GPU of a tensor-parallel group, as
    :func:`planner.core.kv.kv_bytes_per_sequence` counts them, as a curve: full-attention layers grow with ``L``,
    sliding-window and chunked layers up to their window, linear-attention layers keep a fixed state."""
    per_token = 0.0
    windows: dict[int, float] = {}
    fixed = 0.0
    for kind, count in kinds_in(model, 0, model.num_hidden_layers):
        if kind is LayerKind.LINEAR:
            fixed += count * (linear_state_bytes_per_layer(model) // tensor_parallel)
        elif kind is LayerKind.FULL:
            per_token += count * kv_bytes_per_token_per_layer(model, kv_dtype, tensor_parallel, kind)
        elif kind in (LayerKind.SLIDING, LayerKind.CHUNKED):
            window = model.sliding_window if kind is LayerKind.SLIDING else model.attention_chunk_size
            assert window is not None  # validated by ModelSpec
            bytes_ = count * kv_bytes_per_token_per_layer(model, kv_dtype, tensor_parallel, kind)
            windows[window] = windows.get(window, 0.0) + bytes_
    return CostCurve(per_token=per_token, windows=tuple(sorted(windows.items())), fixed=fixed)


def engine_cached(option: Option, model: ModelSpec) -> ModelSpec:
    """``model`` as the option's engine caches it at the release it was planned for
    (:meth:`planner.core.overhead.OverheadModelBase.kv_model`: TensorRT-LLM keeps every token of windowed layers),
    so the pool's cost curve is the one the plan's capacity used; an engine without a profile keeps the model's."""
    if option.engine not in engine_names():
        return model
    return engine_profile(option.engine, version=option.engine_version).kv_model(model)


def overflow_for(option: Option, workload: Workload, model: ModelSpec) -> OverflowReport:
    """Average or maximum for one option, on the pool the engine reports: its capacity at the planning length
    (the figure every surface shows) times what such a conversation costs, so the deterministic count at the
    planning length is the option's own; a fixed-slot engine gets what its slots hold instead. A shared prefix is
    not taken out here, as the engine's start-up figure counts each conversation whole (prefix caching only adds
    room)."""
    replicas = option.replicas
    if option.slots is not None:
        return slots_report(
            option.slots,
            option.context_tokens,
            option.target_concurrency,
            workload.context,
            replicas,
            option.kv_budget_tokens_per_replica,
        )
    curve = cost_curve(engine_cached(option, model), option.kv_dtype, option.tensor_parallel)
    pool = option.concurrency / replicas * curve.at(option.context_tokens)
    return overflow_report(
        pool,
        option.target_concurrency,
        workload.context,
        replicas,
        0,
        curve,
        option.kv_budget_tokens_per_replica,
        "bytes per GPU",
        option.max_running,
    )


def pool_probability(option: Option, workload: Workload, model: ModelSpec) -> float | None:
    """The chance the option's pool runs out at its target (``None`` for fixed slots: nothing is shared)."""
    if option.slots is not None:
        return None
    curve = cost_curve(engine_cached(option, model), option.kv_dtype, option.tensor_parallel)
    pool = option.concurrency / option.replicas * curve.at(option.context_tokens)
    return deployment_overflow_probability(option.target_concurrency, pool, workload.context, option.replicas, 0, curve)
