"""Words and numbers for people, shared by the pages: the planner's own wording (:mod:`planner.assessment.assess`) with
the dashboard's unit choice. Every memory figure names its unit (GiB = 2^30 bytes, GB = 10^9)."""

from __future__ import annotations

from planner.assessment.assess import Assessment, VerdictState, context_label, mem, setup_label, verdict_sentence
from planner.assessment.words import plural
from planner.core.gpu import GpuSpec
from planner.core.units import format_bytes
from planner.deploy.gpu_share import raise_text
from planner.engines.registry import engine_names, get_engine
from planner.planning.plan import PlanRequest

__all__ = [
    "chart_title",
    "context_label",
    "device_memory",
    "mem",
    "memory_source",
    "sentence",
    "setup_label",
    "verdict_sentence",
]


def sentence(text: str) -> str:
    """``text`` ending like a sentence (a message from elsewhere may lack its full stop).

    >>> sentence("the Hub did not answer"), sentence("done.")
    ('the Hub did not answer.', 'done.')
    """
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _device_basis(gpu: GpuSpec) -> str:
    if gpu.memory_reported_bytes is not None:
        return "as the device reports it"
    if gpu.memory_bytes == gpu.engine_visible_bytes:  # GpuSpec.memory_bytes: a device holds what an engine sees
        marketed = f"marketed {gpu.memory_marketed_gb:g} GB"
        return f"the total engines print; {marketed}, the device's own is not in the catalog"
    return f"marketed {gpu.memory_marketed_gb:g} GB; the device's own total is not in the catalog"


def device_memory(gpu: GpuSpec, unit: str = "GiB") -> str:
    """The sidebar's line under the GPU: its memory and where that figure comes from (the device's own total,
    or the marketed size when the catalog has no device-reported total), and the total an engine prints at
    start-up when the catalog has it (what engine profiles plan with, the capacity line of the Memory chart).

    >>> from model_catalog import get_gpu
    >>> device_memory(get_gpu("h100-sxm-80gb"))
    'H100 SXM5 80GB · 79.65 GiB as the device reports it; engines see 79.19 GiB'
    >>> device_memory(get_gpu("mi300x"))
    "Instinct MI300X · 191.69 GiB (the total engines print; marketed 192 GB, the device's own is not in the catalog)"
    >>> device_memory(get_gpu("intel-arc-pro-b60"))
    "Arc Pro B60 24GB · 22.35 GiB (marketed 24 GB; the device's own total is not in the catalog)"
    """
    figure = format_bytes(gpu.memory_bytes, unit, digits=2)
    basis = _device_basis(gpu)
    line = f"{gpu.name} · {figure} " + (basis if gpu.memory_reported_bytes is not None else f"({basis})")
    if gpu.engine_visible_bytes is not None and gpu.memory_bytes != gpu.engine_visible_bytes:
        line += f"; engines see {format_bytes(gpu.engine_visible_bytes, unit, digits=2)}"
    return line


def memory_source(gpu: GpuSpec, engine: bool, share: float | None = None) -> str:
    """Where the per-GPU memory a plan uses comes from (:meth:`planner.core.gpu.GpuSpec.memory_bytes_for`): the total
    an engine prints at start-up when the catalog has it, else the device's total (or the marketed size), and
    for a unified-memory machine the GPU's share of it (``share`` when raised, else the OS default).

    >>> from model_catalog import get_gpu
    >>> memory_source(get_gpu("h100-sxm-80gb"), engine=True)
    'the total the engine reports at start-up'
    >>> memory_source(get_gpu("a100-pcie-80gb"), engine=True)
    'as the device reports it'
    """
    if engine and gpu.engine_visible_bytes is not None:
        return "the total the engine reports at start-up"
    basis = _device_basis(gpu)
    if gpu.unified_memory is not None and share is not None:
        basis += f"; the GPU's share of it raised to {share:.0%} ({raise_text(gpu, share)})"
    elif gpu.unified_memory is not None:
        basis += f"; the GPU's default share of it, {gpu.unified_memory.default_gpu_share:.0%}"
    return basis


def planned_share(request: PlanRequest) -> float | None:
    """The GPU share of a unified-memory machine the request is planned at when raised (None: the OS default)."""
    return request.deployment.unified_share if request.deployment else None


def chart_title(a: Assessment, unit: str) -> str:
    """The Memory chart's title: when the engine refuses to start, that it allocates no KV cache (the chart then
    shows no pool, :attr:`planner.assessment.assess.Assessment.allocated`)."""
    title = f"Memory per GPU ({unit})"
    if a.state is VerdictState.ENGINE_REFUSES:
        title += f": {a.engine_label} would not start, so no KV cache is allocated"
    return title


def solid_line_words(a: Assessment) -> str:
    """How the what-if's solid line holds conversations: as the sidebar's engine does (the block or page its report
    gives; an engine with fixed slots, :attr:`planner.engines.base.Engine.fixed_slots`), or the planner's own paged
    estimate."""
    block = a.report.block_size if a.report is not None else a.request.block_size
    if a.report is None:
        return f"Solid: the planner's estimate, in blocks of {block} tokens as a conversation grows"
    if get_engine(a.report.engine).fixed_slots:
        return (
            f"Solid: {a.engine_label} as the sidebar runs it, each of its -np slots reserving a whole conversation's "
            "length at start"
        )
    blocks = plural(block, "token")
    return f"Solid: {a.engine_label} as the sidebar runs it, in blocks of {blocks} as a conversation grows"


def context_rule(engine: str) -> str:
    """How the conversations held follow the context under ``engine``: a paged pool's inverse law, or, for an engine
    with slots fixed at start-up (llama.cpp's ``-np``), the slots held until one no longer fits.

    >>> context_rule("llamacpp")
    'llama.cpp starts with one slot a user: the line holds the slots until one no longer fits its context'
    """
    if engine in engine_names() and get_engine(engine).fixed_slots:
        label = get_engine(engine).label
        return f"{label} starts with one slot a user: the line holds the slots until one no longer fits its context"
    return "Eight times the context is an eighth of the conversations (“Memory Planning for LLMs”)"
