"""When a set-up does not fit, its engine refuses to start, or it misses its target: the nearest ones that do, each
changing one thing the engine itself takes.

Every candidate is judged by :func:`planner.assessment.assess.assess`, the same verdict the pages and the command line
show, so a suggestion's figures are the figures its link opens. The levers, in the order they are offered:

- the launch settings the engine names as the cure of its own refusal, each that starts (vLLM's Mamba 'align'
  step check: a step of one attention block, or ``--no-enable-prefix-caching``; :mod:`planner.assessment.cure_lever`);
- the sequences the engine runs at once (vLLM ``--max-num-seqs``, SGLang ``--max-running-requests``, TensorRT-LLM
  ``--max_batch_size``) raised to the users a replica serves, when that limit, not the pool, keeps the target from
  being met (:attr:`planner.assessment.assess.Assessment.running_cap`);
- a fixed KV-cache size (vLLM ``--kv-cache-memory-bytes``), when one is set: it replaces the memory fraction
  (:mod:`planner.assessment.fixed_kv`);
- a cap on the pool's tokens (SGLang ``--max-total-tokens``) raised to the target, when it, not the memory, sizes
  the pool;
- the batch (vLLM ``--max-num-seqs``), when the engine's refusal advises lowering it
  (:mod:`planner.assessment.batch_lever`);
- TensorRT-LLM's attention window at the model's own windows, where its default keeps every token of sliding-window
  and chunked layers;
- vLLM's step (``--max-num-batched-tokens``) at 2,048 tokens for such a model, whose windowed layers hold every
  batch in flight (:mod:`planner.assessment.window_lever`);
- the engine's memory fraction (vLLM ``--gpu-memory-utilization``, ...): lower when memory is already in use or the
  sampler warm-up runs out of memory, higher when the pool is too small — the engine's own advice in its error;
- a unified-memory machine's GPU share (macOS ``iogpu.wired_limit_mb``), raised as far as the OS allows
  (:mod:`planner.assessment.share_lever`);
- data-parallel attention for a mixture-of-experts model (``--enable-dp-attention``: a rank a GPU, the experts split
  over them all);
- a wider split of the same GPUs, then more GPUs (any count the engine runs: tensor and pipeline splits,
  data-parallel replicas, llama.cpp's layer split), before anything that changes the model;
- a smaller weight format and a smaller KV cache among those the engine runs on this GPU;
- a shorter context.
"""

from __future__ import annotations

from planner.assessment.assess import Assessment, VerdictState, assess
from planner.assessment.batch_lever import seqs_that_start, with_max_num_seqs
from planner.assessment.cure_lever import setting_cures
from planner.assessment.fixed_kv import fixed_kv_bytes, size_for_goal, with_fixed_kv
from planner.assessment.model_levers import shorter_context, smaller_kv, smaller_weights
from planner.assessment.search import (
    FRACTION_STEP,
    HIGHER_CURES,
    HIGHEST_FRACTION,
    LOWER_CURES,
    LOWEST_FRACTION,
    current_fraction,
    fraction_not_held_back,
    smallest_where,
    with_fraction,
)
from planner.assessment.share_lever import share_range, with_share
from planner.assessment.trial import (
    SMALLER_TRIALS,
    Alternative,
    Goal,
    assessed,
    attempt,
    engine_name,
    holds,
)
from planner.assessment.window_lever import with_small_step
from planner.assessment.words import request_devices, split_label
from planner.bounds.errors import PlannerError
from planner.bounds.walltime import BudgetExceeded
from planner.core.overhead import EngineProfile
from planner.core.parallel import NODE_GPUS
from planner.deploy.gpu_share import HUNDREDTHS, raise_text
from planner.deploy.spark_hosts import SPARK_CAPABILITY, held_more_words
from planner.engines.registry import get_engine, launch_values, setting_flag, window_setting_off
from planner.engines.settings import BY_NAME, size_argument
from planner.planning.plan import PlanRequest

MOST_GPUS = 64  # eight 8-GPU machines: the largest set-up suggested (the dashboard's GPU count goes as far)
MORE_GPU_TRIALS = 6  # counts tried above the current one (each an assessment)


def _kv_size(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    """A fixed KV-cache size (vLLM ``--kv-cache-memory-bytes``) that starts and holds the goal
    (:func:`planner.assessment.fixed_kv.size_for_goal`)."""
    sized = size_for_goal(request, goal.held, found)
    if sized is None:
        return None
    size, why = sized
    flag = setting_flag(request.overhead, "kv_cache_memory_bytes")
    return attempt(with_fixed_kv(request, size), f"{size_argument(flag, size)}: {why}", goal)


def _running(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    """The engine's limit on sequences run at once raised to the conversations a replica must serve, when it, not
    the pool, sets the count (:attr:`Assessment.running_cap`); the engine's own flag in the change."""
    overhead = request.overhead
    if found.running_cap is None or not isinstance(overhead, EngineProfile):
        return None
    engine = get_engine(overhead.engine_name)
    field = engine.setting_fields.get("max_num_seqs")
    if field is None:
        return None
    seqs = -(-goal.held // found.replicas)
    raised = request.model_copy(update={"overhead": overhead.model_copy(update={field: seqs})})
    return attempt(raised, f"{engine.flag_for('max_num_seqs', overhead.engine_version)} {seqs}", goal)


def _token_cap(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    """The engine's cap on its pool's tokens (SGLang ``--max-total-tokens``) raised to the tokens of the
    conversations a replica must hold, when the cap, not the memory, sizes the pool (the pool is the cap, in whole
    pages); a raised cap above what the memory holds is the memory's pool (SGLang drops it), judged as such."""
    overhead, report = request.overhead, found.report
    if not isinstance(overhead, EngineProfile) or report is None:
        return None
    engine = get_engine(overhead.engine_name)
    field = engine.setting_fields.get("max_total_tokens")
    cap = getattr(overhead, field) if field else None
    if field is None or not cap or report.kv_cache_tokens < cap // report.block_size * report.block_size:
        return None
    tokens = -(-goal.held // found.replicas) * report.max_model_len
    raised = request.model_copy(update={"overhead": overhead.model_copy(update={field: tokens})})
    return attempt(raised, f"{engine.flag_for('max_total_tokens', overhead.engine_version)} {tokens}", goal)


def _batch(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    """The largest ``--max-num-seqs`` that starts the engine, when its refusal advises lowering it
    (:func:`planner.assessment.batch_lever.seqs_that_start`)."""
    seqs = seqs_that_start(request, found)
    if seqs is None:
        return None
    flag = setting_flag(request.overhead, "max_num_seqs")
    return attempt(with_max_num_seqs(request, seqs), f"{flag} {seqs} (the largest that starts)", goal)


def _attention_window(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    """The engine's window setting (TensorRT-LLM's ``--max-attention-window``) turned on, where the engine's
    default keeps every token of the model's sliding-window or chunked layers
    (:func:`planner.engines.registry.window_setting_off`)."""
    overhead = request.overhead
    setting = window_setting_off(request.model, overhead)
    if setting is None or not isinstance(overhead, EngineProfile):
        return None
    field = get_engine(overhead.engine_name).setting_fields[setting]
    windowed = request.model_copy(update={"overhead": overhead.model_copy(update={field: True})})
    flag = BY_NAME[setting].flag
    return attempt(windowed, f"{flag} (the model's own windows for its sliding-window and chunked layers)", goal)


def _dp_attention(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    """Data-parallel attention (``--enable-dp-attention``) on the same GPUs, for a mixture-of-experts model whose
    engine takes it, at the TP asked (a rank a GPU when unset; one stage): each rank then caches only its own
    conversations, where tensor parallelism replicates MLA's latent (or KV heads fewer than the GPUs) on every GPU,
    and plain replicas each hold the whole model."""
    overhead, model = request.overhead, request.model
    if not isinstance(overhead, EngineProfile) or overhead.attends_per_gpu or model.moe is None:
        return None
    engine = get_engine(overhead.engine_name)
    field = engine.setting_fields.get("enable_dp_attention")
    tp = request.tensor_parallel or 1
    if field is None or request.gpu_count < 2 * tp or request.pipeline_parallel > 1:
        return None
    ranks = request.model_copy(update={"overhead": overhead.model_copy(update={field: True})})
    n = request.gpu_count // tp
    flag = engine.flag_for("enable_dp_attention", overhead.engine_version).replace(" N ", f" {n} ")
    return attempt(ranks, f"{flag} ({n} data-parallel ranks at TP {tp}, each caching its own conversations)", goal)


def _fraction(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    """The highest memory fraction below the current one that starts the engine (memory in use, the sampler), or
    the lowest above it, up to :data:`HIGHEST_FRACTION`, that holds the goal (a pool too small)."""
    current = current_fraction(request, found.report.fraction if found.report else None)  # SGLang: its heuristic
    if current is None or found.report is None or fixed_kv_bytes(request) is not None:
        return None  # no fraction, or a fixed KV size that ignores it
    engine = get_engine(engine_name(request))
    flag = f" ({engine.fraction_flag})" if engine.fraction_flag else ""
    failure = found.report.failure_kind
    if failure in LOWER_CURES:
        fraction = fraction_not_held_back(request, LOWEST_FRACTION, current - FRACTION_STEP)
        if fraction is None:
            return None
        lowered, change = with_fraction(request, fraction), f"memory fraction {fraction:.2f}{flag}"
        if failure == "free-memory" and request.gpu is not None and request.gpu.platform.capability == SPARK_CAPABILITY:
            in_use = request.deployment.used_memory_bytes if request.deployment else 0  # the host's share varies
            change += f" ({held_more_words(request.gpu_memory_bytes, fraction, in_use)})"
        return attempt(lowered, change, goal) or _then_fewer_sequences(lowered, change, goal)
    if failure in HIGHER_CURES or found.state in (VerdictState.MISSES_TARGET, VerdictState.NO_ROOM):
        steps = round((HIGHEST_FRACTION - current) / FRACTION_STEP)
        for step in range(1, min(steps, SMALLER_TRIALS * 3) + 1):
            fraction = round(current + step * FRACTION_STEP, 2)
            alternative = attempt(with_fraction(request, fraction), f"memory fraction {fraction:.2f}{flag}", goal)
            if alternative:
                return alternative
    return None


def _then_fewer_sequences(lowered: PlanRequest, change: str, goal: Goal) -> Alternative | None:
    """Where the fraction that passes the start-up check meets a refusal fewer sequences cure (the graph profiling's
    cache, the Mamba blocks, the sampler: :func:`planner.assessment.batch_lever.seqs_that_start`), both changes."""
    found = assessed(lowered, goal)
    seqs = seqs_that_start(lowered, found) if found is not None else None
    if seqs is None:
        return None
    return attempt(
        with_max_num_seqs(lowered, seqs),
        f"{change} and {setting_flag(lowered.overhead, 'max_num_seqs')} {seqs} (the largest that starts)",
        goal,
    )


def _window_step(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    """vLLM's step at 2,048 tokens for a model with windowed layers (planner.assessment.window_lever)."""
    step = with_small_step(request)
    if step is None:
        return None
    tokens = launch_values(step.overhead)["max_num_batched_tokens"]
    why = (
        "the model's largest multimodal item"
        if found.report and found.report.failure_kind == "mm-item-batch"
        else "windowed layers then hold their window and smaller batches in flight"
    )
    return attempt(step, f"{setting_flag(step.overhead, 'max_num_batched_tokens')} {tokens} ({why})", goal)


def _gpu_share(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    """A unified-memory machine's GPU share raised to the smallest that holds the goal (planner.deploy.gpu_share)."""
    span = share_range(request)
    if span is None or request.gpu is None:
        return None
    gpu = request.gpu
    least = smallest_where(*span, lambda h: holds(with_share(request, h / HUNDREDTHS), goal) is not None)
    if least is None:
        return None
    share = least / HUNDREDTHS
    return attempt(
        with_share(request, share), f"the GPU's share of memory raised to {share:.0%}: {raise_text(gpu, share)}", goal
    )


def _split(request: PlanRequest, count: int) -> PlanRequest:
    """``request`` on ``count`` GPUs, split as the engine does by default (the widest legal TP, or whole layers);
    beyond one server (:data:`NODE_GPUS`), tensor parallel within each and a pipeline stage a server (vLLM's
    distributed-serving guide: "the tensor parallel size to the number of GPUs in each node, and the pipeline
    parallel size to the number of nodes")."""
    auto = request.model_copy(update={"gpu_count": count, "tensor_parallel": None, "pipeline_parallel": 1})
    if count <= NODE_GPUS or request.overhead.splits_layers:
        return auto
    tp, pp = auto.resolved_parallelism  # planner.core.parallel.default_parallelism: a stage a server
    return request.model_copy(update={"gpu_count": count, "tensor_parallel": tp, "pipeline_parallel": pp})


def _counts(request: PlanRequest, found: Assessment) -> list[int]:
    """GPU counts above the current one worth trying: any up to one server, whole servers beyond, from the fewest
    whose memory could hold one copy of the weights (at the engine's memory fraction)."""
    share = current_fraction(request) or 1.0
    fewest = -(-found.result.weights_bytes_total // int(request.gpu_memory_bytes * share))
    counts = range(max(request.gpu_count + 1, fewest), MOST_GPUS + 1)
    return [c for c in counts if c <= NODE_GPUS or c % NODE_GPUS == 0]


def _wider_split(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    """The engine's default split of the same GPUs when it uses more of them, or splits them another way (TP 16
    over two servers re-split as TP 8 x PP 2: Llama 3.1 405B's 8 KV heads then stop being copied)."""
    tp, pp = request.resolved_parallelism
    auto = _split(request, request.gpu_count)
    wide_tp, wide_pp = auto.resolved_parallelism
    narrower = wide_tp * wide_pp < tp * pp or (wide_tp, wide_pp) == (tp, pp)
    if narrower or (request.deployment is not None and request.deployment.stage_gpus):
        return None
    return attempt(auto, f"{split_label(auto, short=True)} on the same {request_devices(request)}", goal)


def _more_gpus(request: PlanRequest, goal: Goal, found: Assessment) -> Alternative | None:
    """The fewest more GPUs that hold the goal: counts that split the model wider first (they cure weights that do
    not fit), then counts that add replicas (they add conversations)."""
    if request.deployment is not None and request.deployment.stage_gpus:
        return None  # mixed GPUs: each GPU is chosen by name
    tp, pp = request.resolved_parallelism
    wider: list[int] = []
    more: list[int] = []
    for count in _counts(request, found):
        t, p = _split(request, count).resolved_parallelism
        (wider if t * p > tp * pp else more).append(count)
    adds = [] if found.state is VerdictState.WEIGHTS_DO_NOT_FIT else more
    for count in sorted([*wider[:MORE_GPU_TRIALS], *adds[:MORE_GPU_TRIALS]])[:MORE_GPU_TRIALS]:
        changed = _split(request, count)
        alternative = attempt(changed, f"{request_devices(request, count)} ({split_label(changed, short=True)})", goal)
        if alternative:
            return alternative
    return None


def nearest_fitting(
    request: PlanRequest, target_users: int | None = None, *, users: int | None = None
) -> list[Alternative]:
    """Up to one alternative per lever, each changing one thing the engine takes — its memory fraction, a wider
    split of the same GPUs, more GPUs, a smaller weight format, a smaller KV cache, a shorter context — that holds
    ``target_users`` conversations (one when no target is given), each judged against ``users`` target users (the
    page's own target, which its link opens with; default: the conversations it must hold, :class:`Goal`)."""
    held = max(1, target_users or 1)
    goal = Goal(held, max(1, users or held))
    try:
        found = assess(request, goal.users)
    except BudgetExceeded:
        raise  # the run's time is up: never taken for a set-up that does not fit
    except PlannerError:
        return []
    levers = (
        _running,
        _kv_size,
        _token_cap,
        _batch,
        _attention_window,
        _window_step,
        _fraction,
        _dp_attention,
        _gpu_share,
        _wider_split,
        _more_gpus,
        smaller_weights,
        smaller_kv,
        shorter_context,
    )
    alternatives = [alternative for lever in levers if (alternative := lever(request, goal, found)) is not None]
    return [*setting_cures(request, goal, found), *alternatives]


def nearest_for(asked: PlanRequest, found: Assessment, users: int) -> list[Alternative]:
    """The nearest set-ups a page or ``fit`` offers for ``found`` (``asked`` assessed for ``users``): none when it
    meets its target; those that meet the target when it fits below it; else those that fit. The levers are tried
    on the set-up as asked, not as launched (``found.request``), each judged for the page's users as its link's page
    is: the engine sizes what it launches for the users (llama.cpp's -np slots that fit)."""
    if found.state is VerdictState.MEETS_TARGET:
        return []
    goal = users if found.state is VerdictState.MISSES_TARGET else None
    return nearest_fitting(asked, goal, users=users)
