"""The ``--json`` output of ``fit``, ``advise``, ``inspect`` and ``calibrate`` as published JSON Schema documents
(draft 2020-12), so a script can check what it reads; ``python -m planner schema COMMAND`` prints one, and
``docs/schema/COMMAND.json`` holds each (generated: ``python -m planner schema --write``).

Every output carries ``schema_version``. Version history (a renamed or removed field bumps it; an old name is kept,
with the same figure, for one more version and listed under ``deprecated`` with its replacement):

- 1: ``fit --json`` until d95c81f (``kv_budget_tokens``, ``max_concurrency``, ``gpu_blocks``,
  ``max_concurrency_exact``, ``max_concurrency_contiguous``);
- 2: those renamed with their scope (``kv_budget_tokens_per_replica``, ``max_concurrency_total``,
  ``gpu_blocks_per_replica``, ``max_concurrency_contiguous_total``); the verdict, its tone and sentence; the old
  names kept until version 3; later additions within it: ``kv_accuracy``, ``kv_accuracy_unchecked``, an advise
  option's ``experts_shared``, an advise ranking's ``beyond_reach``; an advise option's ``power_watts`` is null for a
  rental (nothing is bought, its ``purchase_unit`` says what is rented).

The documents are generated from the models below, which mirror what each command prints; the tests validate real
outputs against the published files (``tests/cli/test_schema.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from planner.advisor.options import Ranking
from planner.advisor.recommend import Verdict
from planner.assessment.assess import VerdictState
from planner.assessment.summary import DecodeBound
from planner.calibration import CalibrationSetup, Unit
from planner.core.inspection import ModelInspection
from planner.deploy.host import HostOs
from planner.engines.accuracy import KvAccuracy
from planner.engines.vllm.calibrated import Calibrated
from planner.sources.logs import ParsedLog

SCHEMA_VERSION = 2
DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_DIR = Path(__file__).resolve().parents[2] / "docs" / "schema"
REMOVED_IN = SCHEMA_VERSION + 1
# fit --json names of version 1, kept with the same figure for one version: old name -> (new name, note).
DEPRECATED_FIT_NAMES: dict[str, str] = {
    "kv_budget_tokens": "kv_budget_tokens_per_replica",
    "max_concurrency": "max_concurrency_total",
    "gpu_blocks": "gpu_blocks_per_replica",
    "max_concurrency_contiguous": "max_concurrency_contiguous_total",
}


def deprecation_notes() -> dict[str, str]:
    """``deprecated`` in ``fit --json``: each old name, what replaces it, and when it goes."""
    return {
        old: f"renamed {new} in schema version {SCHEMA_VERSION} (the same figure); removed in version {REMOVED_IN}"
        for old, new in DEPRECATED_FIT_NAMES.items()
    }


def with_deprecated_names(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (fit's) with the version, the old names beside the new ones and the note that says so."""
    old = {name: data[new] for name, new in DEPRECATED_FIT_NAMES.items()}
    return {"schema_version": SCHEMA_VERSION, **data, **old, "deprecated": deprecation_notes()}


class _Doc(BaseModel, frozen=True, extra="forbid"):
    pass


class KvTierDoc(_Doc):
    host_bytes: int
    shm_bytes: int
    per_rank_bytes: int
    tokens: int
    conversations: int
    working_set_bytes: int


class StageGpuDoc(_Doc):
    name: str
    memory_bytes: int
    layers: list[int] = Field(min_length=2, max_length=2)


class DeploymentDoc(_Doc):
    gpu_layers: int | None
    cpu_moe_layers: int
    cpu_offload_bytes_per_gpu: int
    decode: DecodeBound | None
    kv_offload: KvTierDoc | None
    used_memory_bytes_per_gpu: int  # as given; what others hold, the host's default included: other_bytes_per_gpu
    host: HostOs
    mig_profile: str | None
    stage_gpus: list[StageGpuDoc]
    layer_split: list[int]
    launch_settings: list[str]


class ColocatedDoc(_Doc):
    model: str
    gpu_memory_utilization: float | None
    footprint_bytes_per_gpu: int
    starts: bool
    verdict: VerdictState


def _deprecated(new: str) -> Any:
    return Field(default=None, deprecated=f"renamed {new}; removed in schema version {REMOVED_IN}")


class KvAccuracyDoc(KvAccuracy, frozen=True, extra="forbid"):
    """``fit --json``'s ``kv_accuracy``: the public start-ups like the set-up (planner.engines.accuracy) and what
    its pool holds after their 90th-percentile miss (the worst, below ten start-ups)."""

    conversations_after_miss: int | None = Field(ge=0)  # None: a fixed-slot engine, or a pool that does not start
    sentence: str


class NearestDoc(_Doc):
    """One nearest set-up that fits (or meets the target): what it changes, what it holds, its verdict."""

    change: str
    conversations: int = Field(ge=0)
    sentence: str


class FitDocument(_Doc):
    """``fit --json``: bytes per GPU of the limiting stage as the engine leaves it unless named otherwise."""

    schema_version: Literal[2]
    model: str
    fits: bool
    fit_status: str
    verdict: VerdictState
    verdict_tone: Literal["success", "warning", "error"]
    verdict_sentence: str
    target_users: int | None
    weights: str
    kv_dtype: str
    gpu_count: int = Field(ge=1)
    tensor_parallel: int = Field(ge=1)  # llama.cpp: the GPUs its layer split spans (split says so)
    pipeline_parallel: int = Field(ge=1)
    split: Literal["tensor", "layer"]  # every layer over the TP ranks, or whole layers a GPU (llama.cpp)
    layers_per_gpu: list[int] | None = None  # llama.cpp: the decoder layers each GPU holds, as it places them
    replicas: int = Field(ge=1)
    context_tokens: int = Field(ge=1)
    gpu_memory_bytes: int
    weights_bytes_per_gpu: int
    kv_cache_bytes_per_gpu: int = Field(ge=0)
    activation_bytes_per_gpu: int
    overhead_bytes_per_gpu: int
    reserved_bytes_per_gpu: int
    headroom_bytes_per_gpu: int  # signed: the shortfall when negative
    weights_bytes_total: int
    kv_bytes_per_token: int
    kv_bytes_per_sequence: int
    kv_budget_tokens_per_replica: int = Field(ge=0)
    kv_budget_tokens_total: int = Field(ge=0)
    conversations_per_replica: int = Field(ge=0)
    conversations_total: int = Field(ge=0)
    max_concurrency_total: float = Field(ge=0)
    max_concurrency_contiguous_total: int = Field(ge=0)
    gpu_blocks_per_replica: int = Field(ge=0)
    parameters_total: int
    parameters_active: int
    warnings: list[str]
    lora_bytes_per_gpu: int
    draft_bytes_per_gpu: int
    other_bytes_per_gpu: int
    offloaded_weights_bytes_per_gpu: int
    host_weights_bytes: int
    kv_offload_host_bytes: int
    kv_offload_shm_bytes: int
    lora_host_bytes: int
    deployment: DeploymentDoc | None
    # with --engine: what it prints at start-up
    engine: str | None = None
    engine_version: str | None = None
    engine_starts: bool | None = None
    engine_failure: str | None = None
    # sequences one replica runs at once (--max-num-seqs, max_running_requests, max_batch_size, -np): it bounds
    # conversations_per_replica as the KV pool does
    engine_max_running_per_replica: int | None = None
    available_kv_cache_bytes_per_gpu: int | None = None
    max_model_len: int | None = None
    estimated_max_model_len: int | None = None
    engine_lines: list[str] | None = None
    engine_notes: list[str] | None = None
    # how close the planner has been on public start-ups like this one (None: no engine, or none like it)
    kv_accuracy: KvAccuracyDoc | None = None
    # where no public start-up is like it (TensorRT-LLM): that its memory figure is unchecked, and what the widest
    # miss measured on that kind of GPU would leave (planner.assessment.accuracy.unchecked_sentence)
    kv_accuracy_unchecked: str | None = None
    # answers to the deployment flags (planner.assessment.search.deployment_answers)
    gpu_layers_that_fit: int | None = None
    cpu_offload_gib_needed: int | None = None
    cpu_offload_needs: str | None = None  # the setting the offload needs (vLLM before 0.28: VLLM_USE_V2_MODEL_RUNNER=0)
    memory_fraction_that_starts: float | None = None
    colocated: list[ColocatedDoc] | None = None
    # the nearest set-ups that fit, or meet the target when it is missed (the Memory page's; none when it is met)
    nearest: list[NearestDoc]
    # version 1's names, the same figures
    kv_budget_tokens: int | None = _deprecated("kv_budget_tokens_per_replica")
    max_concurrency: float | None = _deprecated("max_concurrency_total")
    gpu_blocks: int | None = _deprecated("gpu_blocks_per_replica")
    max_concurrency_contiguous: int | None = _deprecated("max_concurrency_contiguous_total")
    deprecated: dict[str, str]


class TopPickDoc(_Doc):
    label: str
    line: str  # what it buys, engine, precisions, split, whole-system price, conversations, speed (the page's words)
    why: str | None  # why it beats the next pick (None for the last)


class AdviseExtras(_Doc):
    """``advise --json``: the ranking, its recommendation in words, its verdict, the caveats that keep it from
    green, the five-line summary and the top picks with why each beats the next."""

    schema_version: Literal[2]
    recommendation: str
    verdict: Verdict
    caveats: list[str]
    summary: list[str]
    top_picks: list[TopPickDoc]
    rejection_counts: dict[str, int]


class InspectDocument(ModelInspection, frozen=True, extra="forbid"):
    """``inspect --json``: a model's counts and KV cost."""

    schema_version: Literal[2]


class ComparisonDoc(_Doc):
    name: str
    unit: Unit
    predicted: float | None
    printed: float | None
    difference: float | None


class CalibrateDocument(_Doc):
    """``calibrate --json``: every figure predicted and printed, the start-up verdicts, the calibrated profile."""

    schema_version: Literal[2]
    setup: CalibrationSetup
    comparisons: list[ComparisonDoc]
    predicted_failure: str | None
    printed_failure: str | None
    calibrated: Calibrated
    calibration_token: str
    calibrated_kv_gib: float
    parsed: ParsedLog
    notes: list[str]


# Each command's document: the model of what it prints, with the model whose fields it adds alongside (advise prints
# the ranking's own fields beside its extras).
DOCUMENTS: dict[str, tuple[type[BaseModel], type[BaseModel] | None]] = {
    "fit": (FitDocument, None),
    "advise": (AdviseExtras, Ranking),
    "inspect": (InspectDocument, None),
    "calibrate": (CalibrateDocument, None),
}


def _merged(extra: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """Two object schemas as one: every property of both, required by either, their definitions together."""
    return {
        **base,
        "properties": {**base["properties"], **extra["properties"]},
        "required": sorted({*base.get("required", ()), *extra.get("required", ())}),
        "$defs": {**base.get("$defs", {}), **extra.get("$defs", {})},
    }


def schema(command: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``command``'s ``--json`` output."""
    document, alongside = DOCUMENTS[command]
    body = document.model_json_schema(mode="serialization")
    if alongside is not None:
        body = _merged(body, alongside.model_json_schema(mode="serialization"))
    return {
        "$schema": DIALECT,
        "$id": f"https://headroom.invalid/schema/{command}.json",
        "title": f"python -m planner {command} --json",
        "description": (document.__doc__ or "").strip().splitlines()[0],
        **{k: v for k, v in body.items() if k not in ("title", "description")},
    }


def schema_text(command: str) -> str:
    return json.dumps(schema(command), indent=2, sort_keys=True) + "\n"


def write_schemas(folder: Path = SCHEMA_DIR) -> list[Path]:
    """Write ``docs/schema/COMMAND.json`` for every command; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for command in DOCUMENTS:
        path = folder / f"{command}.json"
        path.write_text(schema_text(command), encoding="utf-8")
        written.append(path)
    return written
