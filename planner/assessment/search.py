"""Answers that try set-ups through :func:`planner.assessment.assess.assess`, so every one is the verdict every surface
shows:
how many layers fit on the GPU, how much to offload, the layer split of mixed GPUs that holds the most
conversations, and engines started side by side on the same GPUs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from planner.assessment.assess import Assessment, assess
from planner.bounds.errors import PlannerError
from planner.bounds.walltime import BudgetExceeded, check
from planner.core.overhead import EngineProfile
from planner.core.units import GiB
from planner.deploy.host import held_bytes
from planner.deploy.options import DeploymentOptions
from planner.engines.registry import engine_names, get_engine, launch_values
from planner.planning.context import speculative_method
from planner.planning.request import PlanRequest

MAX_SEARCH_LAYERS = 1024  # a split search tries O(layers) set-ups; no model comes near
FRACTION_STEP = 0.01  # memory fractions are tried in hundredths, as the engines' flags are written
LOWEST_FRACTION = 0.05
HIGHEST_FRACTION = 0.95  # above it vLLM's sampler warm-up and CUDA graphs have next to no room
# Failures a lower memory fraction cures (it leaves more of the GPU to others, the capture and the sampler), those a
# higher one may cure (a larger pool), and those offloading weights cures (it frees the GPU of weights); memory in use
# or a sampler without room is not cured by offloading: the engine still asks for its fraction of the GPU.
LOWER_CURES = frozenset({"free-memory", "sampler-oom", "graph-capture-oom", "others-oom"})
HIGHER_CURES = frozenset({"kv-cache-too-small", "no-kv-memory"})
OFFLOAD_CURES = frozenset({"weights-oom", "no-kv-memory", "kv-cache-too-small", "out-of-memory"})


def _with(request: PlanRequest, **changes: object) -> PlanRequest:
    options = request.deployment or DeploymentOptions()
    return request.model_copy(update={"deployment": options.model_copy(update=changes)})


def largest_where(low: int, high: int, holds: Callable[[int], bool]) -> int | None:
    """The largest value in ``[low, high]`` for which ``holds`` (true up to some value, false after), None when
    none does; the run's budget is checked at each step."""
    if low > high or not holds(low):
        return None
    while low < high:
        check()
        middle = (low + high + 1) // 2
        low, high = (middle, high) if holds(middle) else (low, middle - 1)
    return low


def smallest_where(low: int, high: int, holds: Callable[[int], bool]) -> int | None:
    """The smallest value in ``[low, high]`` for which ``holds`` (false up to some value, true after), None when
    none does; the run's budget is checked at each step."""
    if low > high or not holds(high):
        return None
    while low < high:
        check()
        middle = (low + high) // 2
        low, high = (low, middle) if holds(middle) else (middle + 1, high)
    return low


def gpu_layers_that_fit(request: PlanRequest, target: int | None = None) -> int | None:
    """The largest ``-ngl`` with which the set-up starts and holds a conversation (or ``target`` users), from 0 to
    ``n_layer + 1`` (the output layer counts); None when not even ``-ngl 0`` does."""
    n = request.model.num_hidden_layers
    return largest_where(0, n + 1, lambda ngl: assess(_with(request, gpu_layers=ngl), target).fits)


def cpu_offload_needed(request: PlanRequest, target: int | None = None) -> int | None:
    """The smallest ``--cpu-offload-gb`` (whole GiB) with which the set-up starts and holds a conversation (or
    ``target`` users); 0 when it does without, None when offloading all the weights is not enough."""

    def fits(gib: int) -> bool:
        return assess(_with(request, cpu_offload_bytes=gib * GiB), target).fits

    most = assess(request).result.weights_bytes_total // GiB + 1
    if not fits(most):
        return None
    low, high = 0, most
    while low < high:
        mid = (low + high) // 2
        if fits(mid):
            high = mid
        else:
            low = mid + 1
    return low


def offload_taker(request: PlanRequest) -> tuple[PlanRequest, str] | None:
    """``request`` under the profile with which the engine's ``--cpu-offload-gb`` moves its weights
    (:meth:`~planner.core.overhead.OverheadModelBase.weight_offload_taker`: the request itself, or vLLM before 0.28.0
    on the V1 runner where Model Runner V2 ignores the flag) and the setting that needs ("": none); None when no
    profile of the engine takes it."""
    method = speculative_method(request)
    taker = request.overhead.weight_offload_taker(request.model, request.resolved_weights, method)
    if taker is None:
        return None
    profile, needs = taker
    return (request if profile is request.overhead else request.model_copy(update={"overhead": profile})), needs


def fraction_field(request: PlanRequest) -> str | None:
    """The profile field of the engine's memory fraction, ``None`` when the engine has none (llama.cpp) or the
    overhead model is not an engine profile."""
    overhead = request.overhead
    if not isinstance(overhead, EngineProfile) or overhead.engine_name not in engine_names():
        return None
    field = get_engine(overhead.engine_name).setting_fields.get("fraction")
    return field if field is not None and field in type(overhead).model_fields else None


def current_fraction(request: PlanRequest, heuristic: float | None = None) -> float | None:
    """The memory fraction the engine runs with (the release's default when unset; for an engine whose default is a
    heuristic of the set-up, SGLang's ``mem_fraction_static``, ``heuristic``: the value its report states);
    ``None`` when it has none."""
    field = fraction_field(request)
    if field is None:
        return None
    value = getattr(request.overhead, field)
    if value is None:
        profile = request.overhead
        assert isinstance(profile, EngineProfile)
        engine = get_engine(profile.engine_name)
        value = engine.fraction_default(profile.engine_version, request.gpu, launch_values(profile)) or heuristic
    return None if value is None else float(value)


def with_fraction(request: PlanRequest, fraction: float) -> PlanRequest:
    """``request`` with the engine's memory fraction set to ``fraction``."""
    field = fraction_field(request)
    if field is None:
        raise PlannerError("memory fraction: this engine has no memory-fraction setting")
    overhead = request.overhead.model_copy(update={field: round(fraction, 2)})
    return request.model_copy(update={"overhead": overhead})


def starts(request: PlanRequest) -> bool:
    """Whether the engine starts with ``request`` and holds a conversation of its context
    (:attr:`Assessment.fits`: a set-up whose weights and working memory do not fit starts nothing either); an
    invalid request does not."""
    try:
        return assess(request).fits
    except BudgetExceeded:
        raise  # the run's time is up: never taken for a set-up that does not fit
    except PlannerError:
        return False


def _not_held_back(request: PlanRequest) -> bool:
    """Whether no failure a lower memory fraction cures (:data:`LOWER_CURES`) stops the engine with ``request``:
    true at every fraction below one where it holds (less asked of free memory, more left to the sampler)."""
    try:
        a = assess(request)
    except BudgetExceeded:
        raise  # the run's time is up: never taken for a set-up that does not fit
    except PlannerError:
        return False
    return a.report is None or a.report.failure_kind not in LOWER_CURES


def fraction_not_held_back(request: PlanRequest, low: float, high: float) -> float | None:
    """The highest memory fraction in ``[low, high]`` (hundredths) that no lower-fraction failure stops (memory in
    use, the sampler's headroom); ``None`` when even ``low`` is."""
    steps = round((high - low) / FRACTION_STEP)
    step = largest_where(0, steps, lambda i: _not_held_back(with_fraction(request, low + i * FRACTION_STEP)))
    return None if step is None else round(low + step * FRACTION_STEP, 2)


def fraction_that_starts(request: PlanRequest, low: float, high: float) -> float | None:
    """The highest memory fraction in ``[low, high]`` with which the engine starts: :func:`fraction_not_held_back`,
    if the engine starts there; ``None`` when it does not (another failure stops it there, which a lower fraction
    does not cure)."""
    return started_at(request, fraction_not_held_back(request, low, high))


def started_at(request: PlanRequest, fraction: float | None) -> float | None:
    """``fraction`` if the engine starts with it (:func:`starts`), else ``None``."""
    return fraction if fraction is not None and starts(with_fraction(request, fraction)) else None


def offload_cures(a: Assessment) -> bool:
    """Whether moving weights off the GPU (llama.cpp ``-ngl``, ``--cpu-offload-gb``) can cure what keeps ``a`` from
    serving: weights or a pool that do not fit, not memory that other processes hold or a memory fraction."""
    if a.report is not None and a.report.failure_kind is not None:
        return a.report.failure_kind in OFFLOAD_CURES
    return True


def deployment_answers(
    a: Assessment, target: int | None = None, layers_asked: bool = False, offload_asked: bool = False
) -> dict[str, int | float | str | None]:
    """What the Deployment section and ``fit`` answer for ``a`` (asked, or when it does not serve): the most
    layers on the GPU (llama.cpp ``-ngl``), the least ``--cpu-offload-gb`` (whole GiB; with ``cpu_offload_needs``,
    the setting without which the release ignores the flag, :func:`offload_taker`) — both only where moving
    weights off the GPU can cure it (:func:`offload_cures`) — and the highest memory fraction that starts the
    engine when memory in use or the sampler is what stops it. ``None``: nothing in range does."""
    out: dict[str, int | float | str | None] = {}
    if a.report is None:
        return out
    support = get_engine(a.report.engine).support
    cures = not a.fits and offload_cures(a)
    if support.layer_offload_flags and a.request.gpu_count == 1 and (layers_asked or cures):
        out["gpu_layers_that_fit"] = gpu_layers_that_fit(a.request, target)
    if support.cpu_offload_flag and (offload_asked or cures):
        taker = offload_taker(a.request)
        out["cpu_offload_gib_needed"] = cpu_offload_needed(taker[0], target) if taker is not None else None
        if taker is not None and taker[1]:
            out["cpu_offload_needs"] = taker[1]  # the offload moves nothing without it (offload_taker)
    current = current_fraction(a.request)
    if a.report.failure_kind in LOWER_CURES and current is not None:
        out["memory_fraction_that_starts"] = fraction_that_starts(a.request, LOWEST_FRACTION, current - FRACTION_STEP)
    return out


class SplitChoice(NamedTuple):
    split: tuple[int, ...]
    assessment: Assessment


def _score(a: Assessment) -> tuple[int, float, int]:
    limiting = a.result.per_gpu
    room = limiting.headroom_bytes / limiting.kv_bytes_per_token if limiting.kv_bytes_per_token else 0.0
    return (a.conversations, room, 1 if a.fits else 0)


def best_layer_split(request: PlanRequest) -> SplitChoice:
    """The layer split over ``deployment.stage_gpus`` that holds the most conversations (then the most tokens of
    room on the limiting stage): every split point for two stages, a one-layer-at-a-time local search for more
    (:mod:`planner.deploy.mixed`)."""
    options = request.deployment
    if options is None or len(options.stage_gpus) < 2:
        raise PlannerError("layer split: give two or more GPUs (one per pipeline stage)")
    n, stages = request.model.num_hidden_layers, len(options.stage_gpus)
    if n > MAX_SEARCH_LAYERS or stages > n:
        raise PlannerError(f"layer split: {stages} stages for {n} layers cannot be searched")

    def evaluate(split: tuple[int, ...]) -> SplitChoice:
        return SplitChoice(split, assess(_with(request, layer_split=split)))

    if stages == 2:
        return max((evaluate((k, n - k)) for k in range(1, n)), key=lambda c: _score(c.assessment))
    base, extra = divmod(n, stages)
    best = evaluate(tuple(base + (1 if i < extra else 0) for i in range(stages)))
    improved = True
    while improved:
        improved = False
        for i in range(stages - 1):
            for step in (1, -1):
                split = list(best.split)
                split[i], split[i + 1] = split[i] + step, split[i + 1] - step
                if min(split) < 1:
                    continue
                trial = evaluate(tuple(split))
                if _score(trial.assessment) > _score(best.assessment):
                    best, improved = trial, True
    return best


def footprint_bytes(a: Assessment) -> int:
    """What a started engine holds on each GPU (:meth:`planner.engines.base.Engine.footprint_bytes`): vLLM its budget
    ``util x total`` plus graphs captured outside it; others everything but what they leave free or unused. A
    generic profile: everything but the free memory."""
    stage, overhead = a.result.per_gpu, a.request.overhead
    if a.report is not None and isinstance(overhead, EngineProfile):
        return get_engine(a.report.engine).footprint_bytes(a.report, stage, overhead, a.request)
    spare = stage.reserved_bytes if overhead.reserve_is_spare else 0
    return stage.gpu_memory_bytes - stage.free_bytes - spare


def side_by_side(requests: Sequence[PlanRequest], target: int | None = None) -> list[Assessment]:
    """Engines started one after the other on the same GPUs: each meets the memory the earlier ones hold (their
    :func:`footprint_bytes`) on top of its own ``used_memory_bytes`` — vLLM's start-up check compares free memory
    with ``util x total`` (``gpu_worker.init_device``), so the fractions must leave room for one another."""
    out: list[Assessment] = []
    held = 0
    for request in requests:
        options = request.deployment
        own = held_bytes(options.used_memory_bytes, options.host) if options else 0
        a = assess(_with(request, used_memory_bytes=own + held), target)
        out.append(a)
        held += footprint_bytes(a)
    return out
