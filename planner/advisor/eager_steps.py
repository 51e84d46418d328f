"""Steps an engine runs outside its CUDA graphs (eagerly): each launches every kernel of the forward pass from the
host, a time a decode step replayed from a graph does not pay. Where the engine replays graphs, and what an eager
pass adds for a set-up, are the engine's facts (:mod:`planner.engines.graphs`, with their sources): priced where a
public source measured the set-up, nowhere else. Nothing fitted.
"""

from __future__ import annotations

from model_catalog import get_gpu
from planner.advisor.benchmarks import BenchmarkRow
from planner.advisor.drain import NO_EAGER, Eager
from planner.engines.graphs import eager_forward_seconds, graph_max_batch
from planner.engines.registry import engine_labelled


def eager_forward(row: BenchmarkRow) -> Eager:
    """The eager time of ``row``'s set-up under the engine and release it names
    (:func:`planner.engines.graphs.eager_forward_seconds`) and the largest decode batch that engine replays from a
    graph on the row's GPU (:func:`planner.engines.graphs.graph_max_batch`, by ``nvidia-smi``'s MiB);
    :data:`planner.advisor.drain.NO_EAGER` where either is unknown."""
    engine = engine_labelled(row.engine)
    reported = get_gpu(row.gpu_id).memory_reported_bytes
    if engine is None or reported is None:
        return NO_EAGER
    release, gpus = row.engine_version, row.gpus_per_replica
    seconds = eager_forward_seconds(engine.name, release, row.model_id, row.gpu_id, gpus)
    limit = graph_max_batch(engine.name, release, reported // 2**20, gpus)
    return NO_EAGER if seconds is None or limit is None else Eager(seconds, limit)
