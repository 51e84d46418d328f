"""What the ranking keeps across :func:`planner.advisor.ranking.rank` calls: the parts of an option that read no
length, so a ranking at a new context (the dashboard's context slider) recomputes only what does (the plan's
sequence sizes and capacity, the engine's KV checks against ``max_model_len``, the speed, the verdicts).

Kept at every length: :class:`GpuStages`, a candidate's memory per stage on its GPU (weights as loaded, working
memory, reserve, KV headroom), for set-ups planned under vLLM V1's, SGLang's or TensorRT-LLM's profile
(:func:`stages_kept`); the
assessment's vLLM stages are kept by the engine itself (:func:`planner.engines.vllm.stage.vllm_stage`). Why the
stages read no length:

- the weights as loaded (:func:`planner.planning.plan.loaded_weights_bytes`): the overhead model reads a
  :class:`~planner.core.overhead.LoadContext`, which holds no length;
- :func:`planner.planning.plan.stage_memory` reads the request's lengths once, as the ``max_model_len`` of the
  :class:`~planner.core.overhead.StageContext` it gives ``overhead.per_gpu``; :meth:`VllmProfile.per_gpu` reads that
  only through :meth:`VllmProfile.activation_bytes` -> :meth:`VllmProfile.batch`, which reads ``max_model_len``
  only where :meth:`VllmProfile.batch_length` says (V1 from 0.12.0 caps defaulted tokens at ``max_num_seqs x
  max_model_len``: a few users at a short context), and that length is in the keys (:func:`stage_key`,
  :func:`profiles_key`); its non-torch memory, default CUDA graphs (``batch`` without a length) and their estimate
  read none. A subclass could read more, so only ``type(profile) is VllmProfile`` qualifies. The advisor's
  requests carry no deployment options (:func:`stage_memory_bytes` and the stage extras are then the identity).
- SGLang's and TensorRT-LLM's working memory (:data:`LENGTH_FREE_STAGES`): :meth:`SglangProfile.per_gpu` reads
  the fraction in force (the GPU's platform and total, the split, the model's kind, the LoRA and drafter flags, the
  attention ranks), the memory free before loading and the vision reserve, and its pool's cap
  (``kv_cap_bytes``) the layers, KV dtype and split; :meth:`TrtllmProfile.per_gpu` the model, split, platform,
  weights, held bytes and memory. Neither reads ``max_model_len``; the GPU's total is in the key (:func:`stage_key`).
  The first memory check stays where its stages are planned (:func:`stages_reusable` is false for them: the screen
  that keeps its outcome is unchanged), only its stages are kept.

Kept at every length too: the engine's start-up refusal of the candidate's request (:class:`KeptRefusal`,
:meth:`planner.engines.base.Engine.refusal`), keyed by the GPU and the candidate on it (:class:`OnGpu`). It reads
the model, the GPU (its architecture, platform, one per machine), the precisions, the split and the profile (its
release and launch values), and a length only through deployment options (a draft model's slots), which the
advisor's requests never carry (``tests/advisor/test_kept_refusals.py`` draws lengths and compares).

Keys: one scope per model, overhead model and block size (:func:`kept_for`, hashed once per ranking and
engine), and in it the rest of the advisor's request but its two lengths (:func:`stage_key`:
:meth:`planner.advisor.evaluate.Evaluator.request` builds every request from exactly these). The entries of all
scopes are bounded together (:data:`ENTRIES`, least recently used out; :class:`planner.bounds.memo.ScopedMemo`): a
lever's profile (a lower memory fraction, ``--max-num-seqs``) is a scope of a few entries and does not cost the
default's its place; :func:`clear` empties them (tests compare with a cold ranking).

Kept at one length (:class:`Kept`, the same scopes): the stages of the other profiles, whose stages may read a
length (llama.cpp, vLLM V0, any overhead model given to ``rank``: :func:`stages_kept` is false), keyed by the
context too, and every profile's assessments (:func:`planner.assessment.assess.assess` of one
replica), keyed by the GPU they are planned on (a ranking's GPUs have one id each:
:func:`planner.advisor.ranking.rank` refuses two different GPUs of one id), its :class:`OnGpu`, the slots a
fixed-slot engine gets and the context. An assessment reads its request and plan only,
and the advisor builds both from exactly these (:meth:`planner.advisor.evaluate.Evaluator.request`: the context is
both lengths; the target enters only as a fixed-slot engine's slots): so a ranking for another number of users at
a context seen before (a link for 33 users where one for 32 was opened, the users' field moved) assesses nothing
again, nor does a context revisited (the slider moved back). Likewise each option's speed set-up and its prompt
alone and in serving (:meth:`planner.advisor.build.Built.setup`, :data:`SPEED_SETUPS`): they read no user count.
So do an option's costs and what it buys (:meth:`planner.advisor.build.Built.cost` and ``purchase``,
:data:`SYSTEM_COSTS`, :data:`PURCHASE_TEXTS`), kept by the GPU, its count, the hosts and the pricing's terms at
every length.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.advisor.options import Candidate
from planner.advisor.screen import clear as clear_screens
from planner.bounds.memo import BoundedMemo, Scope, ScopedMemo
from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.core.overhead import OverheadModel
from planner.engines.sglang import SglangProfile
from planner.engines.trtllm import TrtllmProfile
from planner.engines.vllm.failures import clear_samplers
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.stage import clear_length_free, gpu_fields
from planner.planning.data_parallel import experts_shared
from planner.planning.plan import PlanBasis, PlanRequest, plan_basis, stages_at
from planner.planning.results import StageMemory

if TYPE_CHECKING:
    from planner.advisor.costs import SystemCost
    from planner.advisor.throughput import Setup
    from planner.assessment.assess import Assessment

# A ranking plans at most ~1,500 distinct (GPU, split, weights, KV dtype) under one engine (~600 for Llama 3.1 8B
# over the catalog); an entry is two tuples of one StageMemory each (~1 kB): 8,192 entries keep ~8 MB at most.
SCOPES = 64
ENTRIES = 8192
FRACTION_ENTRIES = 1024  # a lowered fraction: a few dozen set-ups a ranking (T4s, V100s, DGX Sparks), 50 bytes each
# At one length a ranking over the catalog keeps ~530 (Llama 3.1 70B at 512 tokens) to ~1,100 (Qwen3-30B-A3B at
# 4,096) assessments, its levers' profiles included, and a few hundred stage entries of profiles whose stages read
# a length. An assessment keeps 6-11 kB beyond what it shares with the stages and the catalog (tracemalloc: the
# 70B's 1,685 assessments and 319 stage entries at three contexts, 19 MB). A bound below one ranking's entries keeps
# nothing (least recently used out, a ranking reads them in the order it stored them): 4,096 a memo keep three or
# more contexts of the heaviest model, ~45 MB at most.
AT_LENGTH_ENTRIES = 4096


class KeptFraction(NamedTuple):
    """The highest memory fraction no failure a lower fraction cures stops (``None``: not even the lowest), as
    :func:`planner.assessment.search.fraction_not_held_back` finds it where the set-up then starts: those failures
    (free memory at start-up, other processes, the sampler's warm-up) read no length, so the fraction holds at every
    context (:meth:`planner.advisor.levers.LaunchLevers.fraction_for_host`)."""

    fraction: float | None


class KeptPool(NamedTuple):
    """What a SGLang or TensorRT-LLM report at the engine's defaults gives of its KV pool per GPU, which reads no
    length (:data:`LENGTH_FREE_STAGES`: the stages, the fraction in force and the device total read none), for the
    bound that lets a fallback engine at a new length go unassessed (:mod:`planner.advisor.fallback_pool`)."""

    available: int  # EngineReport.available_kv_cache_bytes_per_gpu
    fraction: float | None  # EngineReport.fraction
    total: int  # EngineReport.total_memory_bytes


class KeptRefusal(NamedTuple):
    """Why the engine does not run the candidate's request (:meth:`planner.engines.base.Engine.refusal`; ``None``:
    it does), which for the advisor's requests reads no length (the module docstring)."""

    reason: str | None


class GpuStages(NamedTuple):
    """A candidate's memory on its GPU: the weights as loaded per stage (its basis on that GPU), the stages of its
    plan, and the stages of the advisor's first check (the GPU-less basis on the GPU)."""

    weights_bytes: tuple[int, ...]
    stages: tuple[StageMemory, ...]
    fit_stages: tuple[StageMemory, ...]


StageKey = tuple[object, ...]
ScopeKey = tuple[ModelSpec, OverheadModel, int]
_STAGES: ScopedMemo[ScopeKey, StageKey, GpuStages] = ScopedMemo(SCOPES, ENTRIES)
_FRACTIONS: ScopedMemo[ScopeKey, StageKey, KeptFraction] = ScopedMemo(SCOPES, FRACTION_ENTRIES)
# A fallback engine's pool per set-up (KeptPool, three numbers): one per candidate a length-free engine is assessed
# for, as many as the stages kept (ENTRIES).
_POOLS: ScopedMemo[ScopeKey, StageKey, KeptPool] = ScopedMemo(SCOPES, ENTRIES)
# The engine's refusal per candidate on its GPU (KeptRefusal: None or one sentence): as many as the stages kept.
_REFUSALS: ScopedMemo[ScopeKey, tuple[GpuSpec, OnGpu], KeptRefusal] = ScopedMemo(SCOPES, ENTRIES)
LengthKey = tuple[object, ...]  # the candidate's GPU, its OnGpu, [the slots of a fixed-slot engine,] the context
_STAGES_AT_LENGTH: ScopedMemo[ScopeKey, LengthKey, GpuStages] = ScopedMemo(SCOPES, AT_LENGTH_ENTRIES)
_ASSESSMENTS: ScopedMemo[ScopeKey, LengthKey, Assessment] = ScopedMemo(SCOPES, AT_LENGTH_ENTRIES)
# The lowered fraction that starts a set-up at one length (a few dozen a ranking: T4s, V100s, DGX Sparks).
_STARTS_AT_LENGTH: ScopedMemo[ScopeKey, LengthKey, KeptFraction] = ScopedMemo(SCOPES, FRACTION_ENTRIES)
# The GPU-less plan bases (:func:`planner.planning.plan.plan_basis`) at one length, by split, precisions and the
# replicas sharing the experts: a few dozen a ranking and profile, ~2 kB each.
_BASES_AT_LENGTH: ScopedMemo[ScopeKey, LengthKey, PlanBasis] = ScopedMemo(SCOPES, FRACTION_ENTRIES)
# Built.setup's answers (a Setup, two floats: ~1 kB), keyed by all it reads (planner.advisor.build.Built.setup).
SPEED_SETUPS: BoundedMemo[tuple[object, ...], tuple[Setup, float | None, float]] = BoundedMemo(AT_LENGTH_ENTRIES)
# Built.cost's and Built.purchase's answers (a purchase's or a rental's cost of a GPU, count and hosts; what is bought),
# keyed by all they read: ~60 a ranking over the catalog (its priced GPU, count and host choices), ~1 kB each.
COST_ENTRIES = 1024
SYSTEM_COSTS: BoundedMemo[tuple[object, ...], SystemCost] = BoundedMemo(COST_ENTRIES)
PURCHASE_TEXTS: BoundedMemo[tuple[object, ...], str] = BoundedMemo(COST_ENTRIES)
# An option's parts that read no user count (planner.advisor.option_base), keyed by all they read, its assessment
# among them: ~670 a ranking of Llama 3.1 70B over the catalog, ~1,060 of Qwen3-30B-A3B at 4,096 tokens. An entry is
# ~2.1 kB of its own (tracemalloc, the Qwen ranking's 1,056: 2.2 MB) and holds its assessment and support row, which
# the memos above keep too while they keep that length: 2,048 entries keep the last ranking of the heaviest model,
# ~4.3 MB of their own, and at most as many assessments (6-11 kB each) the memos above may have let go.
BASE_ENTRIES = 2048
OPTION_BASES: ScopedMemo[tuple[object, ...], tuple[object, ...], Any] = ScopedMemo(SCOPES, BASE_ENTRIES)
# One profile of each value the bases' keys have named (planner.advisor.option_base.Scopes.profile): a handful.
PROFILES: BoundedMemo[OverheadModel, OverheadModel] = BoundedMemo(SCOPES)
# Every memo this module keeps (clear() empties them; tests bound them to nothing to compare with a cold ranking).
KEPT: tuple[BoundedMemo[Any, Any] | ScopedMemo[Any, Any, Any], ...] = (
    _STAGES,
    _FRACTIONS,
    _POOLS,
    _REFUSALS,
    _STAGES_AT_LENGTH,
    _ASSESSMENTS,
    _STARTS_AT_LENGTH,
    _BASES_AT_LENGTH,
    SPEED_SETUPS,
    SYSTEM_COSTS,
    PURCHASE_TEXTS,
    OPTION_BASES,
    PROFILES,
)


class Kept(NamedTuple):
    """What is kept across rankings of one model under one overhead model and block size (the module
    docstring): the stages that read no length and the lowered fractions (``None`` where the profile's stages may
    read a length: :func:`stages_reusable`), the stages of the other profiles at one length, the assessments, the
    lowered fraction that starts a set-up at one length (:meth:`LaunchLevers.fraction_for_host`), the plan bases
    at one length (:meth:`planner.advisor.evaluate.Evaluator._basis`), the pools of the profiles whose stages are
    kept but not reusable (:class:`KeptPool`; ``None`` elsewhere) and the engine's refusals (:class:`KeptRefusal`)."""

    stages: Scope[StageKey, GpuStages] | None
    fractions: Scope[StageKey, KeptFraction] | None
    stages_at_length: Scope[LengthKey, GpuStages]
    assessments: Scope[LengthKey, Assessment]
    starts_at_length: Scope[LengthKey, KeptFraction]
    bases_at_length: Scope[LengthKey, PlanBasis]
    pools: Scope[StageKey, KeptPool] | None
    refusals: Scope[tuple[GpuSpec, OnGpu], KeptRefusal]


def kept_for(model: ModelSpec, overhead: OverheadModel, block_size: int) -> Kept:
    """The scopes of ``model`` under ``overhead`` and ``block_size`` in each memo (:class:`Kept`): the stages that
    read no length only where :func:`stages_kept` and the lowered fractions only where :func:`stages_reusable` (the
    same request, the same key)."""
    scope, reusable = (model, overhead, block_size), stages_reusable(overhead)
    return Kept(
        _STAGES.scope(scope) if stages_kept(overhead) else None,
        _FRACTIONS.scope(scope) if reusable else None,
        _STAGES_AT_LENGTH.scope(scope),
        _ASSESSMENTS.scope(scope),
        _STARTS_AT_LENGTH.scope(scope),
        _BASES_AT_LENGTH.scope(scope),
        _POOLS.scope(scope) if type(overhead) in LENGTH_FREE_STAGES else None,
        _REFUSALS.scope(scope),
    )


def stages_reusable(overhead: OverheadModel) -> bool:
    """Whether a plan's stage memory under ``overhead`` reads no length and the first memory check is made with the
    first checks (:meth:`planner.advisor.evaluate.Evaluator.screen`; the module docstring)."""
    return type(overhead) is VllmProfile and overhead.is_v1


# Engine profiles (their own class: a subclass could read more) whose stage memory reads no length (the module
# docstring), beside vLLM V1's: kept at every length, their first memory check made where it was.
LENGTH_FREE_STAGES: tuple[type[OverheadModel], ...] = (SglangProfile, TrtllmProfile)


def stages_kept(overhead: OverheadModel) -> bool:
    """Whether a plan's stage memory under ``overhead`` is kept at every length (the module docstring)."""
    return stages_reusable(overhead) or type(overhead) in LENGTH_FREE_STAGES


class OnGpu(NamedTuple):
    """What a replica on the candidate's GPU is planned from: the engine, the memory planned per GPU
    (:meth:`planner.advisor.evaluate.Evaluator.memory`), the split, the precisions and the GPU."""

    engine: str
    memory: int
    tensor_parallel: int
    weights: str
    kv_dtype: str
    gpu_id: str
    group: int = 1  # replicas whose experts the engine splits over them all (:func:`expert_group`)


def length_key(gpu: GpuSpec, on_gpu: OnGpu, context: int, *slots: int) -> LengthKey:
    """The key of what is kept at one length (:class:`Kept`): the GPU the request is planned on (not its id: a GPU
    edited under its id is another; the candidate's own, which its request carries), the candidate on it, the slots
    of a fixed-slot engine where given, the context. Made from the candidate, not its request: a ranking at a length
    seen before finds what it kept without building the request (its basis and copy) first."""
    return (gpu, on_gpu, *slots, context)


def expert_group(c: Candidate, overhead: OverheadModel, model: ModelSpec) -> int:
    """The candidate's replicas where the engine splits the model's experts over them all (vLLM's data-parallel
    ranks of a MoE model: :func:`planner.planning.data_parallel.spread_of`), else 1: the advisor's one-replica
    request is then one of them (``PlanRequest.replica_of``), and what is kept of it is kept per group."""
    if c.replicas == 1:  # one replica: none shares (experts_shared), asked ~3 times an option a ranking
        return 1
    return c.replicas if experts_shared(overhead, model, c.tensor_parallel, c.replicas, c.gpu.one_per_machine) else 1


def stage_key(c: Candidate, memory: int, overhead: OverheadModel, max_model_len: int, group: int = 1) -> StageKey:
    """The rest of an advisor request (one replica: GPU count = TP, PP 1, no shared prefix or deployment): the
    GPU's fields the plan reads (:func:`planner.engines.vllm.stage.gpu_fields`, and its total, which SGLang's default
    fraction reads: :func:`planner.planning.context.stage_context`), its memory, split and
    precisions, the replicas that share its experts (``group``, its ``replica_of``) and the length where the
    profile's batch reads it (:func:`batch_length_of`)."""
    length = batch_length_of(overhead, max_model_len)
    return (*gpu_fields(c.gpu), c.gpu.memory_bytes, memory, c.tensor_parallel, c.weights, c.kv_dtype, group, length)


def batch_length_of(overhead: OverheadModel, max_model_len: int) -> int | None:
    """The length a vLLM profile's batch reads (:meth:`VllmProfile.batch_length`; None: none, or another engine)."""
    return overhead.batch_length(max_model_len) if isinstance(overhead, VllmProfile) else None


def profiles_key(profiles: Iterable[OverheadModel], max_model_len: int) -> tuple[tuple[OverheadModel, int | None], ...]:
    """Each overhead model with the length its batch reads (:func:`batch_length_of`): for a key of what reads them."""
    return tuple((overhead, batch_length_of(overhead, max_model_len)) for overhead in profiles)


def clear() -> None:
    """Forget everything kept: here, the first checks' outcomes (:mod:`planner.advisor.screen`), the vLLM stages
    the engine keeps (:func:`planner.engines.vllm.stage.vllm_stage`, the same argument: only V1 profiles, every
    input but ``max_model_len``, state pages computed again) and its sampler headrooms
    (:func:`planner.engines.vllm.failures.sampler_headroom`)."""
    for memo in KEPT:
        memo.clear()
    clear_screens()
    clear_length_free()
    clear_samplers()


def gpu_stages(request: PlanRequest, basis: PlanBasis, memory: int, gpu: GpuSpec) -> GpuStages:
    """The candidate's memory on its GPU (kept across rankings when it reads no length:
    :mod:`planner.advisor.reuse`): its basis there (only what reads the GPU is computed again), the stages of its
    plan, and those of the GPU-less basis on the GPU (the same as the plan's when the two bases differ only in their
    request: :func:`stage_memory` reads the request's GPU, overhead, lengths and deployment, which both share, and
    not its memory size)."""
    full = plan_basis(request, like=basis)
    stages = stages_at(full, memory)
    if all(getattr(full, f) == getattr(basis, f) for f in PlanBasis.model_fields if f != "request"):
        return GpuStages(full.weights_bytes, stages, stages)
    on_gpu = basis.model_copy(update={"request": basis.request.model_copy(update={"gpu": gpu})})
    return GpuStages(full.weights_bytes, stages, stages_at(on_gpu, memory))
