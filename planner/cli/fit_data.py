"""What ``fit --json`` prints (:func:`fit_data`): the same figures and verdict as every page, the engine's start-up
lines, how close the planner has been on public start-ups like it, and the nearest set-ups."""

from __future__ import annotations

from typing import Any

from planner.assessment.accuracy import accuracy_of, unchecked_sentence
from planner.assessment.assess import Assessment
from planner.assessment.trial import Alternative
from planner.cli.deploy import deployment_data
from planner.engines.base import EngineReport
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult


def fit_data(a: Assessment, unit: str = "GiB") -> dict[str, Any]:
    """What ``fit --json`` prints: the same figures and verdict as every page
    (:func:`planner.assessment.assess.assess`).
    Bytes are per GPU of the limiting stage unless named otherwise, as the engine leaves it (no KV pool when it
    refuses to start: :attr:`Assessment.allocated`); per-replica and total figures say which."""
    result, gpu = a.result, a.allocated.per_gpu
    status = a.report.failure_kind if a.report is not None and a.report.failure_kind else None
    return {
        "model": result.model_id,
        "fits": a.fits,
        "fit_status": status or ("fits" if a.fits else a.state.value),
        "verdict": a.state.value,
        "verdict_tone": a.tone,
        "verdict_sentence": a.sentence(unit),
        "target_users": a.target_users,
        "weights": result.weights,
        "kv_dtype": result.kv_dtype,
        "gpu_count": result.gpu_count,
        **parallel_fields(a.request, result),
        "replicas": result.replicas,
        "context_tokens": result.context_tokens,
        "gpu_memory_bytes": gpu.gpu_memory_bytes,
        "weights_bytes_per_gpu": gpu.weights_bytes,
        "kv_cache_bytes_per_gpu": gpu.kv_cache_bytes,
        "activation_bytes_per_gpu": gpu.activation_bytes,
        "overhead_bytes_per_gpu": gpu.framework_bytes,
        "reserved_bytes_per_gpu": gpu.reserved_bytes,
        "headroom_bytes_per_gpu": gpu.headroom_bytes,
        "weights_bytes_total": result.weights_bytes_total,
        "kv_bytes_per_token": result.kv_bytes_per_token,
        "kv_bytes_per_sequence": result.capacity.kv_bytes_per_sequence,
        "kv_budget_tokens_per_replica": a.kv_budget_tokens_per_replica,
        "kv_budget_tokens_total": a.kv_budget_tokens,
        "conversations_per_replica": a.conversations_per_replica,
        "conversations_total": a.conversations,
        "max_concurrency_total": a.concurrency,
        "max_concurrency_contiguous_total": result.capacity.sequences_contiguous,
        "gpu_blocks_per_replica": a.report.gpu_blocks if a.report is not None else result.gpu_blocks,
        "parameters_total": result.parameters_total,
        "parameters_active": result.parameters_active,
        "warnings": list(result.warnings),
        **deployment_data(a),
        **(engine_data(a.report) if a.report is not None else {}),
        "kv_accuracy": accuracy_data(a, unit),
        "kv_accuracy_unchecked": unchecked_sentence(a),
    }


def accuracy_data(a: Assessment, unit: str = "GiB") -> dict[str, Any] | None:
    """How close the planner has been on public start-ups like this set-up (:func:`accuracy_of`)."""
    note = accuracy_of(a, unit)
    if note is None:
        return None
    after = note.conversations_after_miss
    return {**note.group.model_dump(), "conversations_after_miss": after, "sentence": note.sentence}


def engine_data(report: EngineReport) -> dict[str, Any]:
    """What ``fit --engine E --json`` adds: what the engine prints at start-up, and why it would not start."""
    return {
        "engine": report.engine,
        "engine_version": report.engine_version,
        "engine_starts": report.fits,
        "engine_failure": report.failure,
        "engine_max_running_per_replica": report.max_running,
        "available_kv_cache_bytes_per_gpu": report.available_kv_cache_bytes_per_gpu,
        "max_model_len": report.max_model_len,
        "estimated_max_model_len": report.estimated_max_model_len,
        "engine_lines": list(report.lines),
        "engine_notes": list(report.notes),
    }


def parallel_fields(request: PlanRequest, result: PlanResult) -> dict[str, object]:
    """TP, PP and the split as the command takes them: llama.cpp's one llama-server over N GPUs is ``--tp N`` (it has
    no pipeline size), each GPU a stage of whole layers (``layers_per_gpu``, as llama.cpp places them)."""
    if not request.overhead.splits_layers:
        return {
            "tensor_parallel": result.tensor_parallel,
            "pipeline_parallel": result.pipeline_parallel,
            "split": "tensor",
        }
    layers = [stop - start for start, stop in (stage.layers for stage in result.stages)]
    gpus = result.tensor_parallel * result.pipeline_parallel
    return {"tensor_parallel": gpus, "pipeline_parallel": 1, "split": "layer", "layers_per_gpu": layers}


def nearest_data(alt: Alternative) -> dict[str, Any]:
    """One nearest set-up (:func:`planner.assessment.alternatives.nearest_for`): what it changes and its verdict
    against the target (``--users``, the dashboard's 32 when not given)."""
    return {"change": alt.change, "conversations": alt.assessment.conversations, "sentence": alt.assessment.sentence()}
