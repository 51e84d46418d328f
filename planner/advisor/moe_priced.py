"""An option whose MoE experts the roofline prices, ranked beside options whose experts are measured on other GPUs.

vLLM's and SGLang's routed experts take aiconfigurator's measured fused-MoE time where its tables hold the engine, GPU,
shape and format (:mod:`planner.advisor.paged_moe`), and elsewhere their roofline time at the measured kernel's
efficiency on the neighbouring measured GPU where the tables time the shape (:mod:`planner.advisor.moe_transfer`:
AMD Instinct, RTX cards, B300, expert-parallel ranks, NVFP4 / MXFP4). Only where neither applies (a shape or split the
tables never time) do they take their bytes at the bandwidth. At decode batches the measured kernel is several times
the bytes' time (Qwen3-235B-A22B's BF16 layer on a B200 at moe TP 8: 33 us at 1 token where its bytes take 5, 141 at
96 where they take 75), so such an option beside a measured one says so among its caveats
(:func:`caveat_unmeasured_gpus`), so it ranks after the options priced alike instead of first.
"""

from __future__ import annotations

from typing import Literal

from planner.advisor.moe_transfer import transfer_source
from planner.advisor.options import Option
from planner.advisor.paged_moe import paged_moe_seconds
from planner.advisor.support import ENGINE_LABELS
from planner.advisor.throughput import Load, Setup

Priced = Literal["measured", "transferred", "roofline"]
UNMEASURED = "experts' speed unmeasured"  # the prefix of every such caveat (planner.advisor.option_notes)


def experts_priced(setup: Setup, load: Load) -> Priced | None:
    """How a vLLM or SGLang decode step's routed experts are priced: ``"measured"`` (aiconfigurator's tables),
    ``"transferred"`` (their roofline at a measured GPU's kernel efficiency, :mod:`planner.advisor.moe_transfer`),
    ``"roofline"`` (their bytes at the bandwidth); ``None`` for a dense model or another engine family."""
    if setup.family != "paged" or load.moe is None:
        return None
    if paged_moe_seconds(setup, load) is not None:
        return "measured"
    return "transferred" if transfer_source(setup, load) is not None else "roofline"


def unmeasured_gpu_note(gpu_name: str, engines: list[str], measured_on: list[str]) -> str:
    """The caveat of an option whose experts the roofline prices while the tables measure this model's experts under
    ``engines`` (their labels) on ``measured_on`` (other GPUs of the ranking)."""
    return (
        f"{UNMEASURED} on {gpu_name}: aiconfigurator's tables time {' and '.join(engines)}'s fused MoE of this "
        f"model on {', '.join(measured_on)}, not on this GPU; priced at their bytes' bandwidth, its speed is likely "
        "optimistic beside theirs"
    )


def caveat_unmeasured_gpus(options: list[Option]) -> list[Option]:
    """``options``, each whose experts the roofline prices and that carries no experts' caveat yet given
    :func:`unmeasured_gpu_note` where vLLM's or SGLang's options on another GPU of the ranking are measured (both
    engines' fused MoE is measured slower than its bytes, so either's measured GPU shows the other's roofline)."""
    measured = [o for o in options if o.experts_priced == "measured"]
    engines = [ENGINE_LABELS[e] for e in dict.fromkeys(o.engine for o in measured)]
    out = []
    for o in options:
        on = list(dict.fromkeys(m.gpu_name for m in measured if m.gpu_name != o.gpu_name))
        if o.experts_priced != "roofline" or not on or any(u.startswith(UNMEASURED) for u in o.undermining):
            out.append(o)
            continue
        note = unmeasured_gpu_note(o.gpu_name, engines, on)
        out.append(o.model_copy(update={"warnings": (*o.warnings, note), "undermining": (*o.undermining, note)}))
    return out
