"""What the ranking keeps across :func:`planner.advisor.ranking.rank` calls: the parts of an option that read no
length, so a ranking at a new context (the dashboard's context slider) recomputes only what does (the plan's
sequence sizes and capacity, the engine's KV checks against ``max_model_len``, the speed, the verdicts).

Kept: :class:`GpuStages`, a candidate's memory per stage on its GPU (weights as loaded, working memory, reserve,
KV headroom), for set-ups planned under vLLM V1's profile only (:func:`stages_reusable`); the assessment's vLLM
stages are kept by the engine itself (:func:`planner.engines.vllm.stage.vllm_stage`). Why the stages read no length:

- the weights as loaded (:func:`planner.planning.plan.loaded_weights_bytes`): the overhead model reads a
  :class:`~planner.core.overhead.LoadContext`, which holds no length;
- :func:`planner.planning.plan.stage_memory` reads the request's lengths once, as the ``max_model_len`` of the
  :class:`~planner.core.overhead.StageContext` it gives ``overhead.per_gpu``; :meth:`VllmProfile.per_gpu` reads that
  only through :meth:`VllmProfile.activation_bytes` -> :meth:`VllmProfile.batch`, which reads ``max_model_len``
  only when not :attr:`VllmProfile.is_v1` (V0's ``max(max_model_len, 2048)`` profile batch and its chunked-prefill
  switch at 32,768); its non-torch memory, default CUDA graphs (``batch`` without a length) and their estimate
  read none. A subclass could read more, so only ``type(profile) is VllmProfile`` qualifies. The advisor's
  requests carry no deployment options (:func:`stage_memory_bytes` and the stage extras are then the identity).

The key is everything of the request but its two lengths (:func:`stage_key`); the memo is bounded
(:data:`MAX_ENTRIES`, least recently used out) and :func:`clear` empties it (tests compare with a cold ranking).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, NamedTuple, TypeVar

from planner.core.overhead import OverheadModel
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.stage import clear_length_free
from planner.planning.plan import PlanRequest
from planner.planning.results import StageMemory

# A ranking plans ~600 distinct (GPU, memory, split, weights, KV dtype) under vLLM per model; an entry is two
# tuples of one StageMemory each (~1 kB), so 4,096 entries (~4 MB) keep about six models' worth.
MAX_ENTRIES = 4096

K = TypeVar("K")
V = TypeVar("V")


class BoundedMemo(Generic[K, V]):
    """A dict that keeps at most ``max_entries`` entries, dropping the least recently used."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._data: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.max_entries:
            self._data.popitem(last=False)

    def clear(self) -> None:
        self._data.clear()

    def __len__(self) -> int:
        return len(self._data)


class GpuStages(NamedTuple):
    """A candidate's memory on its GPU: the weights as loaded per stage (its basis on that GPU), the stages of its
    plan, and the stages of the advisor's first check (the GPU-less basis on the GPU)."""

    weights_bytes: tuple[int, ...]
    stages: tuple[StageMemory, ...]
    fit_stages: tuple[StageMemory, ...]


StageKey = tuple[object, ...]
STAGES: BoundedMemo[StageKey, GpuStages] = BoundedMemo(MAX_ENTRIES)


def stages_reusable(overhead: OverheadModel) -> bool:
    """Whether a plan's stage memory under ``overhead`` reads no length (the module docstring)."""
    return type(overhead) is VllmProfile and overhead.is_v1


def stage_key(request: PlanRequest) -> StageKey | None:
    """Every field of ``request`` but ``context_tokens`` and ``max_model_len`` (``None``: not kept, see
    :func:`stages_reusable`; a request with deployment options is never kept)."""
    if request.deployment is not None or not stages_reusable(request.overhead):
        return None
    fields = type(request).model_fields
    return tuple(getattr(request, f) for f in fields if f not in ("context_tokens", "max_model_len"))


def clear() -> None:
    """Forget everything kept: here and the vLLM stages the engine keeps (:func:`planner.engines.vllm.stage.vllm_stage`,
    the same argument: only V1 profiles, every input but ``max_model_len``, state pages computed again)."""
    STAGES.clear()
    clear_length_free()
