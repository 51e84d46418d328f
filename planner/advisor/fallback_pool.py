"""A fallback engine not assessed where its pool could not hold the target (:class:`FallbackPools`, a part of
:class:`planner.advisor.evaluate.Evaluator`).

A candidate its first engine does not serve is tried under the engines after it
(:meth:`planner.advisor.evaluate.Evaluator.finish`), and the first that serves it is taken; one that does not is
dropped without its reason being read. Over the catalog nearly every such try falls short: three re-ranks of
Llama-3.1-70B at new lengths assessed 812 fallbacks, of which 19 served. SGLang's and TensorRT-LLM's KV pool per
GPU reads no length (:data:`planner.advisor.reuse.LENGTH_FREE_STAGES`: the stages, the fraction in force and the
device total read none), so the pool their report gave at the engine's defaults at one length
(:class:`planner.advisor.reuse.KeptPool`) bounds the conversations at every other:

    conversations per replica <= (available + max(0, HIGHEST_FRACTION - fraction) x total) / least

``least``: the bytes one conversation of the context costs at the least (:func:`planner.core.kv.kv_bytes_per_sequence`,
no block or page padding). The pool at a raised fraction grows by at most the fraction's step times the device
total (SGLang's share of the memory free before loading, TensorRT-LLM's of the memory free after it: both at most
the total; the bound :func:`planner.advisor.levers.pool_could_hold` uses), a lowered one shrinks it, and the
engine's limit on running sequences only caps it. Where the bound falls short of the target the fallback would not
have served: it is not assessed. Only for models whose every layer attends to the full context (what a
conversation costs is then its tokens times the bytes of a token in every layer, as both engines count it) and
engines that cache the KV dtype asked for (no cache of their own, :meth:`OverheadModelBase.kv_dtype_for`).
"""

from __future__ import annotations

import math

from planner.advisor.options import Candidate
from planner.advisor.reuse import Kept, KeptPool, StageKey
from planner.assessment.assess import Assessment
from planner.assessment.search import HIGHEST_FRACTION
from planner.core.blocks import LayerKind
from planner.core.kv import kv_bytes_per_sequence
from planner.core.model import ModelSpec
from planner.core.overhead import OverheadModel
from planner.engines.base import EngineReport


class FallbackPools:
    """The bound of :class:`planner.advisor.evaluate.Evaluator`, which provides what it reads (below)."""

    model: ModelSpec
    context: int  # the tokens of each conversation
    target: int  # the conversations to hold
    full_attention: bool  # every layer of the model attends to the full context (:func:`full_attention`)
    _least: dict[tuple[str, int], int]  # a conversation's least bytes by KV dtype and split, this ranking's context

    def profile(self, engine: str) -> OverheadModel:
        raise NotImplementedError

    def kept_scopes(self, engine: str) -> Kept:
        raise NotImplementedError

    def _length_free_key(self, c: Candidate, engine: str) -> StageKey:
        raise NotImplementedError

    def keep_pool(self, c: Candidate, engine: str, a: Assessment) -> None:
        """Keep the pool of ``a``, the candidate's assessment under the engine's defaults, where the engine's pool
        reads no length (:attr:`Kept.pools`)."""
        pools = self.kept_scopes(engine).pools
        if pools is None or a.report is None:
            return
        key = self._length_free_key(c, engine)
        if pools.get(key) is None:
            pools.put(key, kept_pool(a.report))

    def pool_short(self, c: Candidate, engine: str) -> bool:
        """Whether the engine's pool, kept at another length (:meth:`keep_pool`), could not hold the target at this
        one even at the highest fraction (the module docstring); ``False`` where nothing is kept or the bound does
        not apply."""
        pools = self.kept_scopes(engine).pools
        if pools is None or not self._bound_applies(c, engine):
            return False
        kept = pools.get(self._length_free_key(c, engine))
        if kept is None or kept.fraction is None:
            return False
        least = self._least.get((c.kv_dtype, c.tensor_parallel))
        if least is None:  # once per KV dtype and split a ranking
            least = kv_bytes_per_sequence(self.model, c.kv_dtype, self.context, c.tensor_parallel)
            self._least[(c.kv_dtype, c.tensor_parallel)] = least
        if least <= 0:
            return False
        grown = kept.available + max(0.0, HIGHEST_FRACTION - kept.fraction) * kept.total
        per_replica = math.ceil(max(1, self.target) / c.replicas)  # whole conversations a replica must hold
        return grown / least < per_replica - 1e-6

    def _bound_applies(self, c: Candidate, engine: str) -> bool:
        """Every layer of the model attends to the full context and the engine caches the KV dtype asked for."""
        return self.full_attention and self.profile(engine).kv_dtype_for(self.model, c.gpu.platform) is None


def full_attention(model: ModelSpec) -> bool:
    """Whether every layer of ``model`` attends to the full context (no window, chunk, state or shared KV)."""
    return all(kind is LayerKind.FULL for kind in model.kv_kinds)


def kept_pool(report: EngineReport) -> KeptPool:
    """What :meth:`FallbackPools.keep_pool` keeps of an engine's ``report``."""
    return KeptPool(report.available_kv_cache_bytes_per_gpu, report.fraction, report.total_memory_bytes)
