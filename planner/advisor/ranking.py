"""What should I buy to serve this model to this many people, and what will it cost?

:func:`rank` plans every catalog GPU x GPU count x legal split x weight precision x KV dtype for one model and
one :class:`Workload`, in four steps, each a function:

1. **enumerate** (:func:`candidates`): every set-up the buyer allows (GPUs of the allowed vendors and form
   factors, offered by default or asked for: :mod:`planner.advisor.suitability`; the model's own precision and
   8-bit formats, 4-bit ones only when asked or when nothing else serves; 16-bit and FP8 caches, llama.cpp's q8_0
   where it suits, its q4_0 only when asked or when nothing else serves), with the reason when its split is
   illegal;
2. **evaluate** (:class:`planner.advisor.evaluate.Evaluator`): whether it can be bought as planned (whole
   purchase units in a catalog host that holds them), which engine runs it (:mod:`planner.advisor.support`) and
   whether that engine suits the workload, what it holds by :func:`planner.assessment.assess.assess` under that
   engine's own profile (the Memory page's answer), its speed under that engine
   (:mod:`planner.advisor.engine_speed`), its whole-system cost (:mod:`planner.advisor.costs`) and its caveats
   (:mod:`planner.advisor.build`); each candidate's outcome up to its first memory check, when none of those checks
   reads a length, is kept across rankings (:mod:`planner.advisor.screen`: the context slider asks again only for
   the rest);
3. **filter** (:func:`filter_reason`): latency targets and the budget;
4. **sort** (:func:`sort_options`): set-ups whose speed could be estimated first, then priced ones, then those
   no caveat undermines, then those with fewer caveats, then cheapest by the sort key (the total cost of ownership
   of a purchase, dollars per hour of a rental); ties: faster per user, more headroom, fewer GPUs.

Per conversation: total cost of ownership (or dollars per hour) / conversations held at once. Per million output
tokens: dollars per hour / (output tokens per second at the target load x 3,600) x 10^6.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial

from planner.advisor.costs import HOURS_PER_MONTH, Assumptions
from planner.advisor.evaluate import Evaluator
from planner.advisor.inputs import check_inputs
from planner.advisor.moe_priced import caveat_unmeasured_gpus
from planner.advisor.near import near_misses, spend, spend_text
from planner.advisor.options import (
    Candidate,
    FilterReason,
    NearMiss,
    Option,
    Ranking,
    Rejected,
    SortKey,
    pareto_front,
    reject,
)
from planner.advisor.order import sort_options
from planner.advisor.reach import beyond_reach
from planner.advisor.row_caveats import fallback_options, kv_fallback_options, ranking_warnings, settle_risk
from planner.advisor.screen import Screened, keep, kept
from planner.advisor.suitability import (
    DEFAULT_KV,
    default_kv_dtypes,
    default_weights,
    fallback_kv_dtypes,
    fallback_weights,
    hosts_left_out,
    left_out,
)
from planner.advisor.workload import Workload
from planner.bounds.errors import PlannerError
from planner.bounds.walltime import check
from planner.core.gpu import GpuSpec
from planner.core.host import HostSpec
from planner.core.model import ModelSpec
from planner.core.overhead import OverheadModel
from planner.core.parallel import parallel_problem

DEFAULT_COUNTS = (1, 2, 4, 8)
DEFAULT_KV_DTYPES = DEFAULT_KV  # and llama.cpp's q8_0 where it suits (suitability.default_kv_dtypes)


def _splits(count: int) -> list[tuple[int, int]]:
    """Every (TP, replicas) with TP x replicas = count, largest TP first."""
    return [(tp, count // tp) for tp in range(count, 0, -1) if count % tp == 0]


def candidates(
    model: ModelSpec, gpus: Sequence[GpuSpec], counts: Sequence[int], weights: Sequence[str], kv_dtypes: Sequence[str]
) -> Iterator[Candidate]:
    """Every GPU count x (TP, replicas) split x GPU x weight precision x KV dtype, in that order (PP 1)."""
    for count in sorted(set(counts)):
        for tp, replicas in _splits(count):
            problem = parallel_problem(model, tp, 1, count)
            for gpu in gpus:
                gpu_problem = problem if problem is not None or tp == 1 else _machine_tp_problem(gpu)
                for w in weights:
                    for kv in kv_dtypes:
                        yield Candidate(gpu, count, tp, replicas, w, kv, gpu_problem)


def _machine_tp_problem(gpu: GpuSpec) -> str | None:
    """Tensor parallelism across machines that hold one GPU each (Macs, DGX Spark, Strix Halo boxes) would run its
    all-reduces over Ethernet, which the speed model (NVLink / PCIe all-reduce times) does not cover."""
    if not gpu.one_per_machine:
        return None
    if gpu.vendor == "Apple":
        return "Apple silicon is one chip per machine: no tensor parallelism across Macs"
    return (
        f"{gpu.name} is one GPU per machine: tensor parallelism across machines would run over the network, "
        "which the speed model does not cover"
    )


def _latency_problem(option: Option, workload: Workload) -> str | None:
    ttft, speed = workload.max_time_to_first_token_s, workload.min_tokens_per_s_per_user
    if ttft is not None and option.prefill_seconds is not None and option.prefill_seconds > ttft:
        return f"prefill {option.prefill_seconds:.2f} s > target {ttft:g} s to first token"
    per_user, counted = option.decode_tokens_per_s_per_user, option.counted_tokens_per_s_per_user
    if speed is not None and per_user is not None and per_user < speed:
        return f"{per_user:.1f} tokens/s per user at the target load < target {speed:g}"
    if speed is not None and counted is not None and counted < speed:  # the model's own runs reach less
        return (
            f"{per_user:.1f} tokens/s per user modelled at the target load, at most {counted:.1f} as public runs of "
            f"{option.measured_speed_models or 'this model'} on its engine measure (x{option.measured_speed_share:.2f}"
            + (f", on {option.measured_speed_on} GPUs" if option.measured_speed_on else "")
            + f") < target {speed:g}"
        )
    return None


def filter_reason(option: Option, workload: Workload) -> tuple[FilterReason, str] | None:
    """Why a feasible option is left out: a missed latency target, an unknown price or the budget (``None``:
    kept)."""
    why = _latency_problem(option, workload)
    if why:
        return "latency-target-missed", why
    if workload.budget_usd is None:
        return None
    if option.cost is None:
        return "unknown-price", option.price_basis
    spent = spend(option, workload)
    if spent > workload.budget_usd:
        pricing = workload.pricing
        return "over-budget", f"{spend_text(spent, pricing)} > budget {spend_text(workload.budget_usd, pricing)}"
    return None


def _allowed(gpu: GpuSpec, workload: Workload) -> bool:
    """The buyer's vendor and form-factor constraints."""
    return (workload.vendors is None or gpu.vendor in workload.vendors) and (
        workload.form_factors is None or gpu.purchase.kind in workload.form_factors
    )


def _catalog_gpus(workload: Workload, gpus: Sequence[GpuSpec] | None) -> tuple[list[GpuSpec], tuple[str, ...]]:
    """``gpus`` (default: the catalog), filtered by ``workload.gpu_ids``, vendors and form factors, and by the
    defaults of :func:`planner.advisor.suitability.left_out` (with what those left out, and the hosts left out:
    :func:`~planner.advisor.suitability.hosts_left_out`); unknown ids are an error."""
    listed = [g for g in _listed_gpus(workload, gpus) if _allowed(g, workload)]
    reasons = {g.id: left_out(g, workload) for g in listed}
    offered = [g for g in listed if reasons[g.id] is None]
    hosts = hosts_left_out(workload, offered)
    return offered, tuple(r for r in (*reasons.values(), hosts) if r is not None)


def _listed_gpus(workload: Workload, gpus: Sequence[GpuSpec] | None) -> list[GpuSpec]:
    if gpus is not None:
        by_id: dict[str, GpuSpec] = {}
        for gpu in gpus:  # the ranking knows a GPU by its id (and keeps what it planned across rankings by it)
            if by_id.setdefault(gpu.id, gpu) != gpu:
                raise PlannerError(f"gpus: two different GPUs share the id {gpu.id!r}; give each its own id")
        return [g for g in gpus if workload.gpu_ids is None or g.id in workload.gpu_ids]
    from model_catalog import load_gpus  # the catalog imports the planner: import late

    catalog = load_gpus()
    if workload.gpu_ids is None:
        return list(catalog.values())
    unknown = [g for g in workload.gpu_ids if g not in catalog]
    if unknown:
        raise PlannerError(f"gpu_ids: unknown GPU {', '.join(unknown)}; see `python -m planner gpus`")
    return [catalog[g] for g in workload.gpu_ids]


def _weights(model: ModelSpec, workload: Workload, weights: Sequence[str] | None) -> tuple[str, ...] | None:
    """The weight precisions asked for (``None``: the defaults of :mod:`planner.advisor.suitability`)."""
    if weights is not None:
        return tuple(weights)
    return workload.weights


def _global_assumptions(workload: Workload, overhead: OverheadModel | None, costs: Assumptions) -> dict[str, str]:
    return {
        "target": workload.target_note,
        "context": (
            workload.context.describe()
            if workload.context.one_length
            else f"each conversation sized at its {workload.plan_at} length, {workload.context_tokens:,} tokens; "
            "lengths: " + workload.context.describe()
        ),
        "shared prefix": (
            f"{workload.shared_prefix_tokens:,}-token shared system prompt: stored once per replica in the risk "
            "section (prefix caching); the capacity counts each conversation whole, as the engine reports it"
            if workload.shared_prefix_tokens
            else "no shared prefix"
        ),
        "speed": (
            "per engine (planner.advisor.engine_speed): vLLM / SGLang / TensorRT-LLM batch continuously under "
            "tensor parallelism (all-reduces over NVLink or PCIe counted), llama.cpp splits layers (GPUs one after "
            "another) and batches its slots; MoE models read the experts their batch touches; KV reads at the mean "
            "length; constants fitted to public measurements, errors per engine and regime in the README"
        ),
        "engine": "the first engine of the registry whose platform table (planner/engines/platforms/) runs the set-up"
        + (f", among {', '.join(workload.engines)}" if workload.engines else "")
        + "; llama.cpp only for a few users unless asked for (planner.advisor.suitability)",
        "memory": (
            "each set-up under its engine's own profile at the engine's defaults (planner.assessment.assess: what "
            "the Memory page shows for it); where vLLM refuses at its default --max-num-seqs for a reason fewer "
            "sequences cure (a hybrid model's state blocks or graph-profiling cache), or where its default runs fewer "
            "sequences at once than the users a replica serves, with --max-num-seqs at those users; where a "
            "sliding-window model's default step keeps the target out, with --max-num-batched-tokens at 2,048 (or "
            "the model's largest multimodal item), its speed counted at the default step; as the option's label says"
            if overhead is None
            else f"every set-up under the {overhead.kind} overhead model"
        )
        + "; PP 1; unified-memory machines with "
        + (
            f"{workload.unified_memory_share:.0%} of their memory"
            if workload.unified_memory_share
            else "the GPU share the OS allows by default"
        ),
        "purchase": (
            "whole purchase units (PCIe cards, NVLink pairs, 4- or 8-GPU baseboards, machines) in the cheapest catalog "
            "host that holds them and feeds their power (model_catalog/hosts)"
        ),
        "prices": (
            f"catalog prices as dated there; total cost of ownership = GPUs + hosts + power over the life: "
            f"{costs.describe()}"
            if workload.pricing == "purchase"
            else (
                f"cheapest dated {workload.cloud_tier} cloud offer in whole instances; budget per month of "
                f"{HOURS_PER_MONTH} hours"
            )
        ),
    }


def _evaluate_all(
    evaluator: Evaluator,
    model: ModelSpec,
    gpus: list[GpuSpec],
    counts: Sequence[int],
    weights: Sequence[str],
    kv_dtypes: Sequence[str],
) -> tuple[list[Option], list[Rejected], list[tuple[FilterReason, Option]]]:
    """The options kept, the set-ups rejected, and those a buyer's condition (:func:`filter_reason`) left out."""
    options: list[Option] = []
    rejected: list[Rejected] = []
    filtered: list[tuple[FilterReason, Option]] = []
    for screened in _screened(evaluator, model, gpus, counts, weights, kv_dtypes):
        if isinstance(screened, Rejected):
            rejected.append(screened)
            continue
        check()  # the run's wall-clock budget, before each candidate's work (a screened rejection needs none)
        outcome = evaluator.finish(screened)
        if isinstance(outcome, Rejected):
            rejected.append(outcome)
            continue
        reason = filter_reason(outcome, evaluator.workload)
        if reason is not None:
            rejected.append(reject(screened.candidate, *reason))
            filtered.append((reason[0], outcome))
            continue
        options.append(outcome)
    return options, rejected, filtered


def _four_bit_kv(
    evaluator: Evaluator, gpus: list[GpuSpec], counts: Sequence[int], weights: Sequence[str], rejected: list[Rejected]
) -> tuple[list[Option], list[Rejected]]:
    """Nothing served with an 8-bit cache or more: ``weights`` with the 4-bit caches an engine that suits the
    workload stores (:func:`~planner.advisor.suitability.fallback_kv_dtypes`), each option saying so."""
    fours = fallback_kv_dtypes(evaluator.workload)
    if not fours:
        return [], rejected
    more, more_rejected, _ = _evaluate_all(evaluator, evaluator.model, gpus, counts, weights, fours)
    four_bit_weights = [w for w in weights if w not in default_weights(evaluator.model)]
    return kv_fallback_options(more, four_bit_weights), rejected + more_rejected


def _near_misses(
    filtered: list[tuple[FilterReason, Option]],
    four_bit: list[tuple[FilterReason, Option]],
    workload: Workload,
    sort_by: SortKey,
) -> tuple[NearMiss, ...]:
    """:func:`~planner.advisor.near.near_misses` over the left-out set-ups at the default precisions and the 4-bit
    ones of the fallback, each in the ranking's own order, so that of two equally close the one the ranking would
    put first is named."""

    def ordered(left: list[tuple[FilterReason, Option]]) -> list[tuple[FilterReason, Option]]:
        reasons = {id(o): r for r, o in left}
        return [(reasons[id(o)], o) for o in sort_options([o for _, o in left], sort_by, workload.mean_output_tokens)]

    return near_misses(ordered(filtered), workload, ordered(four_bit))


def _screened(
    evaluator: Evaluator,
    model: ModelSpec,
    gpus: list[GpuSpec],
    counts: Sequence[int],
    weights: Sequence[str],
    kv_dtypes: Sequence[str],
) -> tuple[Screened, ...]:
    """Every candidate past the checks that read no length, or rejected by one (:meth:`Evaluator.screen`), kept
    across rankings (:mod:`planner.advisor.screen`)."""
    key = evaluator.screen_key(gpus, counts, weights, kv_dtypes)
    found = kept(key)
    if found is not None:
        return found
    screened = []
    for candidate in candidates(model, gpus, counts, weights, kv_dtypes):
        check()
        screened.append(evaluator.screen(candidate))
    return keep(key, tuple(screened))


def native_of(model: ModelSpec) -> str:
    """The model's own serving precision, the first of :func:`default_weights` (the order's format tie-break)."""
    return default_weights(model)[0]


def rank(
    model: ModelSpec,
    workload: Workload,
    gpus: Sequence[GpuSpec] | None = None,
    counts: Sequence[int] = DEFAULT_COUNTS,
    weights: Sequence[str] | None = None,
    kv_dtypes: Sequence[str] | None = None,
    overhead: OverheadModel | None = None,
    sort_by: SortKey = "cost",
    block_size: int = 16,
    hosts: Sequence[HostSpec] | None = None,
) -> Ranking:
    """Plan every GPU x count x legal TP split (PP 1, leftover GPUs as data-parallel replicas) x weight precision
    x KV dtype and rank the feasible ones (the module docstring). Defaults (:mod:`planner.advisor.suitability`):
    ``gpus`` the catalog's, filtered by ``workload.gpu_ids``; ``weights`` ``workload.weights``, else the model's own
    and the 8-bit ones; ``kv_dtypes`` :func:`~planner.advisor.suitability.default_kv_dtypes`; 4-bit weights, then
    4-bit caches (:func:`_four_bit_kv`), only when nothing else serves. ``overhead``: default each engine's own."""
    from model_catalog import load_hosts, running_costs  # the catalog imports the planner: import late

    asked = _weights(model, workload, weights)
    tried = asked if asked is not None else default_weights(model)
    gpus, left = _catalog_gpus(workload, gpus)
    kvs = tuple(kv_dtypes) if kv_dtypes is not None else default_kv_dtypes(workload)
    check_inputs(model, workload, counts, tried, kvs)
    costs = Assumptions.from_catalog(running_costs(), workload.usd_per_kwh, workload.pue, workload.life_years)
    host_list = list(load_hosts().values()) if hosts is None else list(hosts)
    evaluator = Evaluator(model, workload, overhead, block_size, host_list, costs)
    options, rejected, filtered = _evaluate_all(evaluator, model, gpus, counts, tried, kvs)
    fallback, four_bit = False, list[tuple[FilterReason, Option]]()
    if not options and asked is None:
        extra = [w for w in fallback_weights(model) if w not in tried]
        more, more_rejected, four_bit = _evaluate_all(evaluator, model, gpus, counts, extra, kvs)
        options, rejected, fallback = fallback_options(more), rejected + more_rejected, bool(more)
    kv_fallback = not options and kv_dtypes is None
    if kv_fallback:  # weights asked: those; else every default and 4-bit format
        options, rejected = _four_bit_kv(evaluator, gpus, counts, asked or fallback_weights(model), rejected)
    options = caveat_unmeasured_gpus(options)  # a roofline-priced MoE beside measured ones (moe_priced)
    order = partial(sort_options, sort_by=sort_by, output_tokens=workload.mean_output_tokens, native=native_of(model))
    options, risk = settle_risk(order(options), workload, model, order)
    return Ranking(
        model_id=model.id,
        workload=workload,
        context_tokens=workload.context_tokens,
        target_concurrency=workload.target_concurrency,
        target_note=workload.target_note,
        sort_by=sort_by,
        options=tuple(options),
        rejected=tuple(rejected),
        pareto_cost_capacity=pareto_front(options, "capacity"),
        pareto_cost_throughput=pareto_front(options, "throughput"),
        assumptions=_global_assumptions(workload, overhead, costs),
        warnings=ranking_warnings(options, workload, gpus, fallback, kv_fallback and bool(options)),
        left_out=left,
        four_bit_fallback=fallback,
        best_overflow_probability=risk,
        near_misses=() if options else _near_misses(filtered, four_bit, workload, sort_by),
        beyond_reach=None
        if options
        else beyond_reach(model, workload.context_tokens, workload.target_concurrency, kvs, gpus, counts),
    )
