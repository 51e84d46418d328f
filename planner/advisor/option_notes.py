"""Notes an option carries about its machine, its sale and its engine's windows
(:func:`planner.advisor.build.build_option`)."""

from __future__ import annotations

from planner.advisor.moe_transfer import Transfer
from planner.advisor.option_speed import Speed
from planner.advisor.quality import kv_note
from planner.advisor.workload import MLPERF_PROMPT_TOKENS, SLOW_FIRST_TOKEN_S, Workload, first_token_bound_s
from planner.assessment.assess import Assessment
from planner.assessment.words import seconds
from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.core.overhead import EngineProfile, OverheadModel
from planner.deploy.gpu_share import highest_share, raise_text, share_warning
from planner.engines.registry import get_engine, window_setting_off
from planner.engines.settings import BY_NAME


def share_note(gpu: GpuSpec, share: float | None) -> str:
    """What a unified-memory machine is planned with: the share asked, with the command that sets it, or the OS
    default and the command that raises it as far as the OS allows (:mod:`planner.deploy.gpu_share`)."""
    if share is not None:
        too_much = share_warning(gpu, share)
        return f"unified memory: planned with a {share:.0%} GPU share: {raise_text(gpu, share)}" + (
            f"; {too_much}" if too_much else ""
        )
    assert gpu.unified_memory is not None
    top = highest_share(gpu)
    return (
        f"unified memory: planned with the GPU's default {gpu.unified_memory.default_gpu_share:.0%} share; up to "
        f"{top:.0%} with {raise_text(gpu, top)}"
    )


def window_notes(model: ModelSpec, overhead: OverheadModel) -> list[str]:
    """Where the option's engine keeps every token of the model's sliding-window or chunked layers at its default
    (:func:`planner.engines.registry.window_setting_off`: TensorRT-LLM), that it is planned so and the setting that
    caps them (the Memory page's nearest set-ups give the figure)."""
    setting = window_setting_off(model, overhead)
    if setting is None or not isinstance(overhead, EngineProfile):
        return []
    return [
        f"planned at {get_engine(overhead.engine_name).label}'s default attention window, which keeps every token of "
        f"the model's sliding-window and chunked layers; {BY_NAME[setting].flag} caps them at the model's windows "
        "and holds more"
    ]


# The catalog figures the memory and speed of every option rest on (the compute figure is the option's own path).
FIGURES = ("bandwidth_bytes_per_s", "memory_reported_bytes", "engine_visible_bytes")


def experts_unmeasured_note(engine_label: str, weights: str, measured: tuple[str, ...], ranks: bool) -> str:
    """An option whose routed experts the rate model prices (their bytes at the bandwidth) where aiconfigurator's
    tables measure other formats of the same shape on the same engine and GPU, or where its data-parallel ranks
    (``ranks``) hold the experts expert parallel and the tables measure them split by width
    (:func:`planner.advisor.paged_moe.measured_beside`) and no measured ratio transfers
    (:mod:`planner.advisor.moe_transfer`): its speed is not comparable with theirs."""
    which = "expert parallel over data-parallel ranks" if ranks else weights
    return (
        f"experts' speed unmeasured: aiconfigurator's tables time {engine_label}'s fused MoE for "
        f"{listed(measured)} experts of this shape split over these GPUs, not {which}; priced at their bytes' "
        "bandwidth, its speed is likely optimistic beside theirs"
    )


def experts_transferred_note(engine_label: str, t: Transfer) -> str:
    """An option whose routed experts take their roofline time at a measured GPU's fused-MoE efficiency
    (:func:`planner.advisor.moe_transfer.transferred_moe`): where the ratio comes from and its spread, a note."""
    return (
        f"experts' time transferred from {t.gpu_name}'s measured {engine_label} fused MoE: {t.ratio:.1f}x their "
        f"roofline at this shape and batch, the slower neighbour of {t.low:.1f}-{t.high:.1f}x across "
        f"{listed(t.measured_on)}"
    )


def listed(words: tuple[str, ...]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join(w for w in (", ".join(words[:-1]), words[-1] if words else "") if w)


def unverified_note(gpu: GpuSpec, compute: str) -> str | None:
    """The GPU's unverified catalog figures an option rests on (its memory, its bandwidth, the TFLOPS of its
    compute path: ``"16-bit"``, ``"fp8"``, ``"int8"``, ``"fp4"``), a caveat."""
    path = {"16-bit": ("compute.bf16", "compute.fp16", "compute.fp32"), "fp8": ("compute.fp8",)}.get(
        compute, (f"compute.{compute}",)
    )
    figures = [f for f in gpu.unverified_fields if f in FIGURES or f in path]
    return f"unverified catalog figures for {gpu.name}: {', '.join(figures)}" if figures else None


def sale_note(gpu: GpuSpec, pricing: str) -> str | None:
    """A purchase of a part no longer made, priced used (:class:`planner.core.sale.Discontinued`; one priced as new
    is not for sale, :func:`planner.advisor.options.purchase_problem`): a note saying so. Renting says nothing."""
    gone = gpu.discontinued
    if gone is None or pricing != "purchase" or gpu.price is None or not gone.used_price(gpu.price):
        return None
    return f"{gpu.name} is no longer made (since {gone.since}): priced used ({gpu.price.date})"


def market_note(gpu: GpuSpec) -> str | None:
    """A part sold in one market only (an export-compliance SKU, offered when asked for): where it is sold."""
    if gpu.restricted_market is None:
        return None
    return f"{gpu.name} is sold in {gpu.restricted_market} only (an export-compliance part)"


# NVIDIA GeForce software licence, section 2.1.3 (since its November 2017 revision), as quoted in Lambda's note on
# the change (https://deeptalk.lambdalabs.com/t/nvidia-geforce-datacenter-ban-january-eula-change/138).
GEFORCE_LICENCE = (
    "GeForce cards in a rack server: NVIDIA's GeForce driver licence says \"The SOFTWARE is not licensed for "
    'datacenter deployment" (section 2.1.3, since November 2017; deeptalk.lambdalabs.com/t/138): check it allows '
    "where the server will run, or price RTX PRO or data-center cards"
)


def licence_note(gpu: GpuSpec, rack_mounted: bool) -> str | None:
    """A GeForce card priced in a rack-mounted server: its driver's licence excludes data-center deployment (an
    outside review, 2026-12-06: eight RTX 5090s in a 4U server had no word of it)."""
    if gpu.vendor != "NVIDIA" or "geforce" not in gpu.name.lower() or not rack_mounted:
        return None
    return GEFORCE_LICENCE


OVERSIZED = 10  # a unit holding this many times the target is a purchase for another workload


def unit_note(gpu: GpuSpec, gpu_count: int, conversations: int, target: int, pricing: str) -> str | None:
    """A GPU sold only in multi-GPU units whose smallest purchase holds many times the workload (an outside review,
    2026-12-06: eight MI300X on their baseboard, +26,140 % headroom for ten users of an 8B model, without a word).

    >>> from model_catalog import get_gpu
    >>> unit_note(get_gpu("mi300x"), 8, 2624, 10, "purchase")[:60]
    'Instinct MI300X is sold 8 to a unit: the smallest purchase h'
    """
    size = gpu.purchase.gpus_per_unit
    if pricing != "purchase" or size <= 1 or gpu_count > size or conversations < OVERSIZED * target:
        return None
    return (
        f"{gpu.name} is sold {size} to a unit: the smallest purchase holds {conversations / target:,.0f} x the "
        "target; renting it, or a card sold singly, fits this workload better"
    )


MOST_SLOTS = 256  # the slots a fixed-slot engine's room is searched up to (llama-server's -np; 8 fills at most)


def slots_note(a: Assessment, overhead: OverheadModel, replicas: int) -> str | None:
    """For an engine that fixes its slots at start-up (llama.cpp ``-np``), that the option's conversations are the
    slots it launches (one a user) and how many its memory would hold: the conversations column of a fixed-slot
    option is its slots, not its pool (an outside review, 2026-12-05: a Strix Halo read "1 conversation, +0 %
    headroom" with 30 GiB free)."""
    report = a.report
    if report is None or not isinstance(overhead, EngineProfile):
        return None
    engine = get_engine(overhead.engine_name)
    room = engine.slots_room(a.request, a.result, overhead, MOST_SLOTS) if engine.fixed_slots else None
    if room is None:
        return None
    each = " a replica" if replicas > 1 else ""
    launched = report.max_running or 1
    more = f"its memory holds up to {room:,}{' (the most searched)' if room >= MOST_SLOTS else ''}"
    return f"{engine.label} launches {launched:,} slot{'s' if launched != 1 else ''}{each}, one a user; {more}"


def servers_note(label: str, flag: str, replicas: int, hosts: int) -> str | None:
    """How whole-copy replicas bought in ``hosts`` servers are started where the engine's one command serves every
    replica on the server it runs on with ``flag`` (vLLM's ``--data-parallel-size``: 0.31.0
    ``engine/arg_utils.py:2428-2429``, the local data-parallel size defaulting to the global one; ``:2356-2358``, a
    dense model over several servers only as "independent vLLM instances without --data-parallel-* arguments"):
    each server starts its own share behind a load balancer. ``None`` within one server, for one replica, and for
    an engine whose command runs once per replica (``flag`` empty: :func:`planner.engines.commands.replicas_note`).

    >>> servers_note("vLLM", "--data-parallel-size", 2, 2)  # doctest: +NORMALIZE_WHITESPACE
    "2 servers: start one vLLM server on each without --data-parallel-size (1 replica a server), behind a load
    balancer; the Memory page's one command with --data-parallel-size 2 puts every replica on one server"
    """
    if not flag or replicas < 2 or hosts < 2:
        return None
    each = -(-replicas // hosts)
    given = f"without {flag}" if each == 1 else f"with {flag} {each}"
    return (
        f"{hosts} servers: start one {label} server on each {given} ({each} replica{'s' if each > 1 else ''} a "
        f"server), behind a load balancer; the Memory page's one command with {flag} {replicas} puts every replica "
        "on one server"
    )


def ranks_note(ranks: int, dense_bytes: float, batch: int) -> str:
    """For data-parallel ranks that share the experts, how their speed is priced and where it may be optimistic: as
    the benchmark rows measured with attention data parallelism are (3 in the package's fit and held-out rows, 146
    in the blind set ``tests/advisor/benchmarks/unseen-2026-12.toml``: one step over all the GPUs, the weights read
    as one copy), which fit better so than with each rank reading its own copy of the non-expert weights (the
    fit's median error 4.4 -> 4.8 %, a PCIe blind row past 50 %); at few conversations a rank that read, the model's
    ``dense_bytes`` again on every rank, may not hide behind compute (an outside review, 2026-12-05)."""
    return (
        f"speed of {ranks} data-parallel ranks priced as measured attention-data-parallel runs are; each rank also "
        f"reads its own {dense_bytes / 1e9:,.0f} GB of non-expert weights a step, not counted, so at {batch:,} "
        "conversations a rank it may be optimistic"
    )


def half_note(gpu: GpuSpec, weights: str, kv_dtype: str, engine: str) -> str | None:
    """A 16-bit part of a plan (weights, cache) on a GPU without BF16 (Volta, Turing: the catalog's
    ``compute.bf16`` "none") runs in FP16, which a model trained in BF16 can overflow: the engine's FP16 flag is
    named where it has one (vLLM from 0.9.0 also falls back itself, "Casting torch.bfloat16 to torch.float16").
    An outside review, 2026-12-06, found "bf16 weights" on four V100s.

    >>> from model_catalog import get_gpu
    >>> half_note(get_gpu("v100-sxm2-32gb"), "bf16", "fp8", "vllm")[:77]
    'V100 SXM2 32GB has no BF16: its 16-bit weights run as FP16 (--dtype float16),'
    >>> half_note(get_gpu("t4"), "q8_0", "bf16", "llamacpp")
    'T4 has no BF16: its 16-bit cache runs as FP16, which a model trained in BF16 can overflow'
    >>> half_note(get_gpu("a100-sxm-80gb"), "bf16", "bf16", "vllm") is None
    True
    """
    parts = [name for name, dtype in (("weights", weights), ("cache", kv_dtype)) if dtype == "bf16"]
    if gpu.compute.bf16 != "none" or not parts:
        return None
    given = get_engine(engine).support.online_quantization.get("fp16")  # vLLM's and SGLang's --dtype float16
    flag = f" ({given})" if given else ""
    verb = "run" if len(parts) > 1 or parts[0] == "weights" else "runs"
    return (
        f"{gpu.name} has no BF16: its 16-bit {' and '.join(parts)} {verb} as FP16{flag}, which a model trained in BF16 "
        "can overflow"
    )


def cost_notes(assumed: tuple[str, ...], kv_dtype: str) -> list[str]:
    """The cost figures an option's price rests on as assumptions, and the note an FP8 or llama.cpp block-quantized
    KV cache carries (:func:`planner.advisor.quality.kv_note`).

    >>> cost_notes(("host price",), "fp8")[0]
    'cost rests on figures assumed or known only as a lower bound: host price'
    >>> cost_notes((), "bf16")
    []
    """
    notes = [f"cost rests on figures assumed or known only as a lower bound: {', '.join(assumed)}"] if assumed else []
    note = kv_note(kv_dtype)
    return notes + ([note] if note else [])


def _bound_words(prompt: int, aside: str = "") -> str:
    """MLPerf Inference's server bound as it applies to a prompt of ``prompt`` tokens
    (:func:`~planner.advisor.workload.first_token_bound_s`), in words, with ``aside`` in its parenthesis."""
    bench = f"its long-prompt benchmark, Llama 3.1 405B, ~{MLPERF_PROMPT_TOKENS:,} tokens a prompt at the median"
    bound = first_token_bound_s(prompt)
    if bound <= SLOW_FIRST_TOKEN_S:
        return f"the {SLOW_FIRST_TOKEN_S:g} s MLPerf Inference's server scenario allows ({bench}{aside})"
    return (
        f"MLPerf Inference's server bound scaled to this prompt's length, {seconds(bound)} ({SLOW_FIRST_TOKEN_S:g} s "
        f"for {bench}{aside})"
    )


def slow_first_token(s: Speed, w: Workload, prompt: int) -> str | None:
    """A typical prompt's first token later than MLPerf Inference's server bound allows a prompt of its length
    (:func:`~planner.advisor.workload.first_token_bound_s`), when the buyer set no first-token target of their own
    (one they set filters the set-ups instead, :func:`planner.advisor.ranking.filter_reason`): a caveat."""
    bound = first_token_bound_s(prompt)
    if w.max_time_to_first_token_s is not None or s.prefill is None or s.prefill <= bound:
        return None
    shown = f"{bound:g} s" if bound <= SLOW_FIRST_TOKEN_S else seconds(bound)
    wait = f"about {seconds(s.prefill)}" if round(s.prefill, 1) > bound else f"just over {shown}"  # not "6.0"
    aside = "; set a first-token target to rank by it"
    return f"first token after {wait} for a {prompt:,}-token prompt: slower than {_bound_words(prompt, aside)}"


def long_first_token(s: Speed, w: Workload, prompt: int) -> str | None:
    """A prompt longer than MLPerf Inference's long-prompt benchmark's whose first token is later than its
    :data:`~planner.advisor.workload.SLOW_FIRST_TOKEN_S` but within the bound scaled to its length
    (:func:`~planner.advisor.workload.first_token_bound_s`), without a first-token target of the buyer's own: the
    wait stated as a note, with what each later turn prefills (an outside review, 2026-12-06: the first prompt of a
    128k chat is read whole once; each turn after it adds about a reply's length to the prefix cache)."""
    if w.max_time_to_first_token_s is not None or s.prefill is None or s.prefill <= SLOW_FIRST_TOKEN_S:
        return None
    if s.prefill > first_token_bound_s(prompt):
        return None  # a caveat (slow_first_token)
    new = w.uncached_prompt_tokens
    later = f" (read whole once a conversation; each later turn prefills {new:,} new tokens)" if new < prompt else ""
    wait = f"first token after about {seconds(s.prefill)} for a {prompt:,}-token prompt"
    return f"{wait}{later}: within {_bound_words(prompt)}"
