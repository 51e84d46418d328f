"""The function names llama.cpp starts its start-up lines with, by build: what a reader greps a log for.

- b6000 (a public log, ``tests/fidelity/cases/llamacpp-partial-offload-mistral-7b.json``): ``load_tensors:``,
  ``llama_kv_cache_unified:`` for the KV buffers and their size line, ``llama_context:`` for the compute buffer.
- b9849 (public logs, ``tests/fidelity/test_logparse.py``): ``load_tensors:``, ``llama_kv_cache:``,
  ``sched_reserve:`` for the compute buffer.

A build between the two is printed with b6000's names (no log of one was read). The names before 2025
(``llm_load_tensors``, ``llama_kv_cache_init``, ``llama_new_context_with_model``) belong to builds the planner does
not offer.

>>> log_names("b6000").kv, log_names("b9849").compute
('llama_kv_cache_unified', 'sched_reserve')
"""

from __future__ import annotations

from typing import NamedTuple

from planner.deploy.offload import llamacpp_build

NEWEST_NAMES_BUILD = 9849  # the first build read with llama_kv_cache / sched_reserve (its public logs)


class LogNames(NamedTuple):
    tensors: str  # the model buffers and the offloaded layers
    kv: str  # the KV buffers and the cache's size line
    compute: str  # the compute buffer


def log_names(build: str) -> LogNames:
    """The names ``build`` prints (module docstring)."""
    if llamacpp_build(build) >= NEWEST_NAMES_BUILD:
        return LogNames("load_tensors", "llama_kv_cache", "sched_reserve")
    return LogNames("load_tensors", "llama_kv_cache_unified", "llama_context")
