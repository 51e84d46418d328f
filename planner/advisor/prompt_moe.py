"""A vLLM or SGLang prompt's routed experts at the engines' measured fused-MoE times, as a decode step's.

A paged engine prefills a prompt in chunks of its step budget (``Setup.prefill_chunk``: vLLM's
``max_num_batched_tokens``, SGLang's ``chunked_prefill_size``, 2,048-16,384 tokens), and each chunk runs every MoE
layer's fused kernel once over the chunk's tokens. aiconfigurator times that kernel (``vllm_fused_moe``,
``sglang_fused_moe_triton``, Marlin INT4) at 1-16,384 tokens (ai-dynamo/aiconfigurator@095f58a51
``aic-core/src/aiconfigurator_core/systems/data/<system>/moe/<vllm|sglang>/<version>/moe_perf.parquet``, the grid
``python -m bench.paged_moe_extract`` keeps: :mod:`planner.advisor.paged_moe`), so a chunk's routed experts take the
measured layer time at the chunk's tokens (:func:`planner.advisor.paged_moe.paged_moe_seconds`, interpolated by
:func:`planner.advisor.kernel_grid.along`) where the tables time the set-up, else their roofline time at the nearest
measured GPU's measured / roofline ratio (:func:`planner.advisor.moe_transfer.transferred_moe`), in place of the
experts' FLOPs at the compute rate and their bytes read once a chunk. Qwen3-235B-A22B's BF16 layer on 8 x A100 under
vLLM 0.14.0 takes 797.9 us at 2,048 tokens; its 8 experts' FLOPs a token take 248 us a GPU at the 312 TFLOPS peak.

Inside a serving run a prompt of ``L`` tokens is ``L / chunk`` of the chunks (:func:`prompt_moe_seconds`: the steps
pack prompts and decode tokens up to the budget); alone (time to first token) it runs its own passes, full chunks
then the rest (:func:`alone_moe_seconds`). ``None`` where a decode step's experts keep the rate model too.
"""

from __future__ import annotations

from collections.abc import Callable

from planner.advisor.gemm_tables import prompt_moe_seconds as fused_prompt_moe_seconds
from planner.advisor.moe_transfer import transferred_moe
from planner.advisor.paged_moe import paged_moe_seconds
from planner.advisor.throughput import Load, Setup

Roofline = Callable[[Setup, Load], float]  # the experts' roofline time (engine_speed.experts_roofline_seconds)


def chunk_experts_seconds(setup: Setup, load: Load, tokens: int, roofline: Roofline) -> float | None:
    """One GPU's routed-expert time of a step prefilling ``tokens`` of the prompt ``load``: the measured layer
    time, else the transferred one (module docstring), times the MoE layers."""
    if load.moe is None or tokens <= 0:
        return None
    at = load._replace(tokens=tokens, expert_flops=load.expert_flops * tokens / max(1, load.tokens))
    measured = paged_moe_seconds(setup, at)
    if measured is not None:
        return measured
    moved = transferred_moe(setup, at, lambda s: roofline(s, at))
    return None if moved is None else moved.seconds


def prompt_moe_seconds(setup: Setup, load: Load, chunk: int, roofline: Roofline) -> float | None:
    """A prompt's routed-expert time inside a serving run: its share, ``tokens / chunk``, of a chunk's."""
    per_chunk = chunk_experts_seconds(setup, load, chunk, roofline)
    return None if per_chunk is None else per_chunk * load.tokens / chunk


def serving_moe_seconds(setup: Setup, load: Load, chunk: int, roofline: Roofline, batch: int = 0) -> float | None:
    """A prompt's measured routed-expert time inside a serving run: vLLM's / SGLang's share of a chunk's
    (:func:`prompt_moe_seconds`), else TensorRT-LLM's time added to a step beside ``batch`` decoding sequences
    (:func:`planner.advisor.gemm_tables.prompt_moe_seconds`); ``None`` where neither is measured."""
    paged = prompt_moe_seconds(setup, load, chunk, roofline)
    return paged if paged is not None else fused_prompt_moe_seconds(setup, load, chunk, batch)


def alone_moe_seconds(setup: Setup, load: Load, chunk: int, roofline: Roofline) -> float | None:
    """A prompt's routed-expert time alone: its full chunks, then a pass over the rest."""
    full, rest = divmod(load.tokens, chunk)
    per_chunk = chunk_experts_seconds(setup, load, chunk, roofline) if full else 0.0
    last = chunk_experts_seconds(setup, load, rest, roofline) if rest else 0.0
    return None if per_chunk is None or last is None else full * per_chunk + last
