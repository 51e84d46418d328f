"""An option's warnings: what undermines its verdict (the speed floor's margin, a slow first token, a thin memory
margin, a known speed gap, routed experts priced by the roofline beside measured formats, unverified figures, a
speed no public benchmark of its engine family on its vendor measures, no sourced price) and the notes beside it
(PCIe all-reduce, llama.cpp's sequential stages, sale, market, licence, purchase unit, cost assumptions, unified
memory's share)."""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Protocol

from planner.advisor.benchmarks import load_rows
from planner.advisor.costs import SystemCost
from planner.advisor.option_notes import (
    cost_notes,
    experts_transferred_note,
    experts_unmeasured_note,
    half_note,
    licence_note,
    long_first_token,
    market_note,
    sale_note,
    share_note,
    slow_first_token,
    unit_note,
    unverified_note,
)
from planner.advisor.option_speed import Speed
from planner.advisor.options import Candidate
from planner.advisor.row_caveats import PRICE_UNKNOWN
from planner.advisor.support import ENGINE_LABELS, SupportRow
from planner.advisor.workload import Workload
from planner.assessment.accuracy import unchecked_margin
from planner.assessment.assess import Assessment, thin_margin
from planner.core.gpu import GpuSpec
from planner.engines.support import family, family_words


class Built(Protocol):
    """What the warnings read of :class:`planner.advisor.build.Built`: the workload and the prompt."""

    @property
    def workload(self) -> Workload: ...

    @property
    def prompt_tokens(self) -> int: ...


# The verdict is green only when the speed clears the floor by this margin: the speed model's held-out median
# error is 13 % and its errors above 20 % are not rare (README, "Speed"), so a closer call is not a promise.
SPEED_MARGIN = 1.25
# Prompts taking more of the GPU than this at the target load are worth a note (their pauses are in the speed).
PREFILL_SHARE_LIMIT = 0.5


def gpu_line(gpu: GpuSpec) -> str:
    """The GPUs a speed measurement speaks for: NVIDIA's as one line (one CUDA stack; the speed model's efficiencies
    are fitted across its generations), another vendor's by architecture family, each its own software stack (AMD
    Instinct CDNA on ROCm apart from a Radeon APU on Vulkan, Intel Gaudi apart from Arc: an outside review,
    2026-12-06, found a Strix Halo laptop's llama.cpp rows clearing eight MI300X).

    >>> from model_catalog import get_gpu
    >>> gpu_line(get_gpu("h100-sxm-80gb")), gpu_line(get_gpu("mi300x")), gpu_line(get_gpu("gaudi3"))
    ('NVIDIA', 'AMD CDNA 3', 'Intel Gaudi 3')
    """
    if gpu.vendor == "NVIDIA":
        return "NVIDIA"
    words = family_words(family(gpu))
    return words if words.startswith(gpu.vendor) else f"{gpu.vendor} {words}"


@cache
def measured_pairs() -> frozenset[tuple[str, str]]:
    """The (GPU line, speed family) pairs the package's public benchmark rows measure (:func:`gpu_line`;
    :mod:`planner.advisor.benchmarks`: the speed model's fit and held-out rows)."""
    from model_catalog import get_gpu

    return frozenset((gpu_line(get_gpu(r.gpu_id)), r.family) for r in load_rows())


@cache
def unmeasured_note(line: str, speed_family: str, engine_label: str) -> str | None:
    """A speed no public benchmark of its engine family on its GPU line checks (:func:`gpu_line`): the model's
    efficiencies were fitted on other GPUs' rows (an outside review, 2026-12-06: eight MI300X were the green pick
    for Llama 3.3 70B under vLLM with no Instinct row among the 178; MLPerf Inference v4.1 puts 8 x MI300X's
    Llama-2-70B offline result about level with 8 x H100, below 8 x H200, where the model ranked it above both)."""
    if (line, speed_family) in measured_pairs():
        return None
    return (
        f"speed unmeasured: no public benchmark of {engine_label} (or another {speed_family} engine) on {line} GPUs "
        "is in the speed model's validation; its efficiencies are fitted on other GPUs' runs"
    )


# The notes below read the GPU, its precisions and engine, the pricing and the costs' assumptions, never a length or
# a user count: kept across rankings, by all they read (a catalog's ~60 GPUs x a few precisions and engines each).
MACHINE_NOTES = 4096


@lru_cache(maxsize=MACHINE_NOTES)
def machine_caveats(gpu: GpuSpec, speed_family: str, engine: str, compute: str) -> tuple[str | None, str | None]:
    """What undermines the verdict of any option of ``engine`` on ``gpu`` (its speed family and compute path):
    a speed no public benchmark measures (:func:`unmeasured_note`, where a speed is estimated) and the unverified
    catalog figures it rests on (:func:`planner.advisor.option_notes.unverified_note`); kept by all they read."""
    unmeasured = unmeasured_note(gpu_line(gpu), speed_family, ENGINE_LABELS[engine])
    return unmeasured, unverified_note(gpu, compute)


@lru_cache(maxsize=MACHINE_NOTES)
def machine_notes(
    gpu: GpuSpec, weights: str, kv_dtype: str, engine: str, pricing: str, rack_mounted: bool
) -> tuple[str, ...]:
    """The notes of an option on ``gpu`` that read only it, its precisions, engine, the pricing and whether it is
    priced in a rack server: its sale, its market, FP16 for BF16 and its driver's licence, in that order; kept by
    all they read."""
    half = half_note(gpu, weights, kv_dtype, engine)
    licence = licence_note(gpu, rack_mounted)
    return tuple(n for n in (sale_note(gpu, pricing), market_note(gpu), half, licence) if n)


@lru_cache(maxsize=MACHINE_NOTES)
def closing_notes(
    gpu: GpuSpec, kv_dtype: str, pricing: str, assumed: tuple[str, ...], share: float | None
) -> tuple[str, ...]:
    """The last notes of an option on ``gpu``: its liquid cooling (a purchase), the cost figures assumed
    (``assumed``) and an FP8 cache's note (:func:`planner.advisor.option_notes.cost_notes`), and the unified memory
    share it is planned with (``share``: the workload's); kept by all they read."""
    cooled = gpu.liquid_cooling and pricing == "purchase"  # the buyer's data centre cools it, not a rental's
    notes = [f"cooling: {gpu.liquid_cooling}"] if cooled else []
    notes += cost_notes(assumed, kv_dtype)
    if gpu.unified_memory is not None:
        notes.append(share_note(gpu, share))
    return tuple(notes)


def option_warnings(
    b: Built,
    c: Candidate,
    s: Speed,
    cost: SystemCost,
    row: SupportRow,
    a: Assessment,
    gap: tuple[str, float, str | None, str | None] | None,
) -> tuple[list[str], list[str]]:
    """(every warning, the ones that undermine the verdict); ``gap``: the known speed gap the option meets at its
    batch (:meth:`planner.advisor.build.Built.speed_gap`), its words first."""
    undermining = _undermining(b, c, s, row, a, gap)
    if cost.usd_per_hour is None:  # last: the price, not what the set-up does (ranked by its GPU count instead)
        undermining.append(PRICE_UNKNOWN)
    return undermining + _notes(b, c, s, cost, row, a), undermining


def _undermining(
    b: Built,
    c: Candidate,
    s: Speed,
    row: SupportRow,
    a: Assessment,
    gap: tuple[str, float, str | None, str | None] | None,
) -> list[str]:
    w, gpu = b.workload, c.gpu
    undermining: list[str] = []
    if s.per_user is None:
        undermining.append("speed not estimated: no sourced compute figure for its arithmetic")
    floor = w.min_tokens_per_s_per_user
    if floor is not None and s.per_user is not None and s.per_user < floor * SPEED_MARGIN:
        undermining.append(
            f"{s.per_user:.0f} tokens/s per user is within {SPEED_MARGIN - 1:.0%} of the {floor:g} floor (the speed "
            "model's typical error)"
        )
    slow = slow_first_token(s, w, b.prompt_tokens)
    if slow:
        undermining.append(slow)
    thin = thin_margin(a, "GiB", c.replicas, w.target_concurrency).strip().rstrip(".")  # a clause, as the others
    thin = thin[:1].lower() + thin[1:]
    if thin:  # the memory model's error, as the speed floor's margin above is the speed model's
        undermining.append(thin)
    if gap is not None:
        undermining.append(gap[0])
    if s.per_user is not None and s.measured_beside:  # a roofline beside measured formats (planner.advisor.paged_moe)
        beside = s.measured_beside
        undermining.append(experts_unmeasured_note(ENGINE_LABELS[row.engine], c.weights, beside, s.setup.attention_dp))
    unmeasured, unverified = machine_caveats(gpu, s.setup.family, row.engine, row.compute)
    if s.per_user is not None and unmeasured:  # beside a gap measured on another family too (not on this line)
        undermining.append(unmeasured)
    if unverified:  # last: what the figures rest on, not what they say
        undermining.append(unverified)
    return undermining


def _notes(b: Built, c: Candidate, s: Speed, cost: SystemCost, row: SupportRow, a: Assessment) -> list[str]:
    w, gpu = b.workload, c.gpu
    notes: list[str] = []
    unchecked = unchecked_margin(a, c.replicas, w.target_concurrency)  # an engine no public start-up measures
    if unchecked is not None and not unchecked[1]:  # where the stand-in miss undermines it, the thin margin says so
        notes.append(unchecked[0])
    long_wait = long_first_token(s, w, b.prompt_tokens)
    notes += [long_wait] if long_wait else []
    if s.prefill_share is not None and s.prefill_share > PREFILL_SHARE_LIMIT:
        notes.append(
            f"prompts take {s.prefill_share:.0%} of the GPU time at the target load (counted in the speed per user)"
        )
    if c.tensor_parallel > 1 and s.setup.split == "tensor" and s.setup.link[0] == "pcie":  # its link asked last
        notes.append(
            f"tensor parallel {c.tensor_parallel} over PCIe: {s.decode.comm_seconds * 1e3:.1f} ms of all-reduce per "
            "step (counted)"
        )
    if s.transfer is not None:  # a measured GPU's fused-MoE efficiency (planner.advisor.moe_transfer)
        notes.append(experts_transferred_note(ENGINE_LABELS[row.engine], s.transfer))
    if s.setup.split == "layer" and c.tensor_parallel > 1:
        notes.append(f"llama.cpp splits the layers over {c.tensor_parallel} GPUs: they run one after another")
    rack_mounted = cost.rack_units is not None and w.pricing == "purchase"
    notes += machine_notes(gpu, c.weights, c.kv_dtype, row.engine, w.pricing, rack_mounted)
    unit = unit_note(gpu, c.gpu_count, a.conversations * c.replicas, w.target_concurrency, w.pricing)
    notes += [unit] if unit else []
    notes += closing_notes(gpu, c.kv_dtype, w.pricing, cost.unverified, w.unified_memory_share)
    return notes
