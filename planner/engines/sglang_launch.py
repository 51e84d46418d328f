"""What SGLang says at launch about its own settings (:mod:`planner.engines.sglang`'s report adds these lines and
notes): the warning for a ``--max-total-tokens`` above the profiled pool, and what ``--disable-cuda-graph`` frees
release by release (:func:`planner.engines.sglang_rules.reserved_mb`)."""

from __future__ import annotations

from typing import Protocol

from planner.engines.sglang_rules import FractionInputs, reserved_mb, sglang_defaults


class SglangProfile(Protocol):
    """The launch settings these messages read (:class:`planner.engines.sglang.SglangProfile` has them)."""

    @property
    def engine_version(self) -> str: ...
    @property
    def max_total_tokens(self) -> int | None: ...
    @property
    def disable_cuda_graph(self) -> bool: ...
    @property
    def mem_fraction_static(self) -> float | None: ...
    @property
    def chunked_prefill_size(self) -> int | None: ...
    @property
    def cuda_graph_max_bs(self) -> int | None: ...


def launch_lines(profile: SglangProfile, profiled: int) -> list[str]:
    """SGLang's warning for a ``--max-total-tokens`` above the profiled pool (``model_runner.py:1691-1695``)."""
    cap = profile.max_total_tokens
    if cap is None or cap <= profiled:
        return []
    return [f"max_total_tokens={cap} is larger than the profiled value {profiled}. Use the profiled value instead."]


def launch_notes(
    profile: SglangProfile, gpu_memory_bytes: int, tensor_parallel: int, pipeline_parallel: int, inputs: FractionInputs
) -> list[str]:
    """What ``--disable-cuda-graph`` changes: no graph is captured (``model_runner.py:2046``), and the graphs' share
    of the default fraction's reserve (:func:`planner.engines.sglang_rules.reserved_mb`): kept until 0.5.13, the
    prefill graphs' dropped from 0.5.14, the decode graphs' too from 0.5.15."""
    if not profile.disable_cuda_graph:
        return []
    if profile.mem_fraction_static is not None:
        return ["--disable-cuda-graph: no CUDA graph is captured; the KV pool is the same (the fraction sizes it)"]
    version = profile.engine_version
    chunk, graph_bs = sglang_defaults(gpu_memory_bytes, tensor_parallel, version)
    chunk, graph_bs = profile.chunked_prefill_size or chunk, profile.cuda_graph_max_bs or graph_bs
    sizes = (gpu_memory_bytes, tensor_parallel, pipeline_parallel, version, chunk, graph_bs)
    freed = reserved_mb(*sizes, inputs._replace(disable_cuda_graph=False)) - reserved_mb(*sizes, inputs)
    if freed <= 0:
        return [
            f"--disable-cuda-graph: no CUDA graph is captured, but SGLang {version}'s default fraction reserves "
            f"memory for graphs either way ({graph_bs} x 2 MB for the decode graphs), so the KV pool is the same and "
            "that reserve stays free"
        ]
    return [
        f"--disable-cuda-graph: no CUDA graph is captured, and SGLang {version}'s default fraction reserves "
        f"{freed:,.0f} MB less for them (the prefill graphs' share from 0.5.14, the decode graphs' from 0.5.15): "
        "the KV pool grows by it"
    ]
