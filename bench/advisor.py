"""Advisor timings: medians in milliseconds (never asserted in tests; ``make bench`` calls :func:`run`).

- the full ranking of one model over the catalog: every GPU offered by default x {1, 2, 4, 8} GPUs (every TP
  split) x the default weight precisions (the model's own and 8-bit) x 2 KV dtypes, each set-up under its own
  engine's profile (its start-up check), for a dense 8B, a dense 70B and a MoE, cold (what is kept across
  rankings, :mod:`planner.advisor.reuse`, forgotten before each); for the 8B also with one generic overhead model
  for every set-up;
- the same ranking at a new context after rankings at others, as the sidebar's context slider asks for it (the
  sidebar's length as the workload, a different one each time: what reads no length is reused);
- the overflow report of the best option (binary searches for the 1 % and 5 % counts);
- the recommendation text.

``python -m bench.advisor`` prints them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import partial

from bench.timing import median_ms
from model_catalog import get_model, load_gpus
from planner.advisor import DEFAULT_COUNTS, DEFAULT_KV_DTYPES, Workload, overflow_for, rank, recommendation
from planner.advisor.reuse import clear
from planner.advisor.suitability import default_weights
from planner.core.model import ModelSpec
from planner.engines.registry import overhead_profile

MODELS = ("meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-70B", "Qwen/Qwen3-30B-A3B")
SLIDER_CONTEXTS = tuple(2**n for n in range(10, 18))  # 1k ... 128k, the slider's snaps


def _cold(spec: ModelSpec, workload: Workload) -> Callable[[], object]:
    def ranked() -> object:
        clear()
        return rank(spec, workload)

    return ranked


def _slider(spec: ModelSpec, users: int) -> Callable[[], object]:
    contexts = itertools.cycle([c for c in SLIDER_CONTEXTS if c <= spec.max_position_embeddings])
    return lambda: rank(spec, Workload.fixed_length(next(contexts), concurrent_conversations=users))


def run(repeat: int = 7) -> dict[str, float]:
    """Median milliseconds of each advisor operation."""
    gpus = list(load_gpus().values())
    workload = Workload.from_preset("support-chat", concurrent_conversations=100)
    splits = sum(len([d for d in range(1, c + 1) if c % d == 0]) for c in DEFAULT_COUNTS)
    results: dict[str, float] = {}
    for model_id in MODELS:
        spec = get_model(model_id).spec
        combos = len(gpus) * splits * len(default_weights(spec)) * len(DEFAULT_KV_DTYPES)
        results[f"full ranking, {model_id} (up to {combos:,} set-ups)"] = median_ms(_cold(spec, workload), repeat)
        results[f"full ranking at a new context (the slider), {model_id}"] = median_ms(_slider(spec, 32), repeat)
    spec = get_model(MODELS[0]).spec
    key = f"full ranking, {MODELS[0]}, one generic overhead model for every set-up"
    results[key] = median_ms(partial(rank, spec, workload, overhead=overhead_profile("generic")), max(3, repeat // 2))
    ranking = rank(spec, workload)
    best = ranking.options[0]
    results["overflow report of the best option"] = median_ms(lambda: overflow_for(best, workload, spec), repeat)
    results["recommendation text"] = median_ms(lambda: recommendation(ranking), repeat * 5)
    return results


def main() -> int:
    rows = run()
    width = max(len(k) for k in rows)
    print(f"{'advisor benchmark (median)'.ljust(width)}  milliseconds")
    for name, value in rows.items():
        print(f"{name.ljust(width)}  {value:12.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
