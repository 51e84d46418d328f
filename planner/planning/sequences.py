"""The bytes one sequence takes on one GPU of each pipeline stage: exact, paged in blocks, its shared prefix's
full blocks, and what a contiguous engine reserves (the per-sequence side of :mod:`planner.planning.plan`'s capacity).
A deployment's layers kept off the GPU (llama.cpp ``-ngl``) hold no GPU cache; a speculative proposer on the last
stage adds its own cache and look-ahead slots (:mod:`planner.deploy`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from planner.core.kv import kv_bytes_per_sequence
from planner.deploy.speculative import drafter_sequence_bytes
from planner.planning.extras import kv_layers, stage_drafter
from planner.planning.request import PlanRequest


class SequenceBytes(NamedTuple):
    """Bytes one sequence takes on one GPU of a pipeline stage (window caps and fixed states included)."""

    exact: int  # context_tokens
    paged: int  # context_tokens rounded up to whole blocks
    shared_prefix: int  # the shared prefix's full blocks (stored once per replica with prefix caching)
    reserved: int  # max(max_model_len, context_tokens): what a contiguous engine reserves up front (proposer too)


class SequenceSizes(NamedTuple):
    """One sequence of ``context_tokens``: its bytes per GPU of each stage, and for the whole model."""

    context_tokens: int
    whole_model_bytes: int  # all layers on one GPU, no TP split (the figure CapacityAt reports)
    per_stage: tuple[SequenceBytes, ...]


def sequence_sizes(
    request: PlanRequest, tensor_parallel: int, stage_ranges: Sequence[tuple[int, int]], context_tokens: int
) -> SequenceSizes:
    """The bytes one sequence of ``context_tokens`` takes on one GPU of each stage: exact, paged in blocks of
    ``request.block_size``, its shared prefix's full blocks, and the contiguous reservation; the layers keep what
    the engine caches of them (``request.overhead.kv_model``: TensorRT-LLM keeps every token of windowed layers)."""
    model, kv_dtype, block = request.overhead.kv_model(request.model), request.resolved_kv_dtype, request.block_size
    max_len = max(request.max_model_len or context_tokens, context_tokens)
    paged = math.ceil(context_tokens / block) * block
    shared = (request.shared_prefix_tokens // block) * block
    per_stage = []
    for index, (start, stop) in enumerate(stage_ranges):
        layers = kv_layers(request, range(start, stop))
        proposer = stage_drafter(request, tensor_parallel, index == len(stage_ranges) - 1, stages=len(stage_ranges))
        draft = [drafter_sequence_bytes(proposer, tokens) for tokens in (context_tokens, paged, max_len)]
        per_stage.append(
            SequenceBytes(
                exact=kv_bytes_per_sequence(model, kv_dtype, context_tokens, tensor_parallel, layers) + draft[0],
                paged=kv_bytes_per_sequence(model, kv_dtype, paged, tensor_parallel, layers) + draft[1],
                shared_prefix=kv_bytes_per_sequence(model, kv_dtype, shared, tensor_parallel, layers),
                reserved=kv_bytes_per_sequence(model, kv_dtype, max_len, tensor_parallel, layers) + draft[2],
            )
        )
    return SequenceSizes(
        context_tokens=context_tokens,
        whole_model_bytes=kv_bytes_per_sequence(model, kv_dtype, context_tokens),
        per_stage=tuple(per_stage),
    )
