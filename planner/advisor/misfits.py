"""Why a set-up the advisor assessed does not serve the workload (:class:`~planner.advisor.options.RejectReason`
and its words): its weights and working memory overflow, its engine would not start, or it holds fewer
conversations than the target."""

from __future__ import annotations

from planner.advisor.options import RejectReason
from planner.assessment.assess import Assessment, VerdictState
from planner.assessment.words import plural
from planner.core.gpu import GpuSpec


def short_of(a: Assessment, replicas: int, target: int, context: int) -> tuple[RejectReason, str] | None:
    """Why ``replicas`` copies of the assessed set-up do not hold ``target`` conversations of ``context`` tokens
    (``None``: they do)."""
    if a.state is VerdictState.WEIGHTS_DO_NOT_FIT:
        stage = a.result.per_gpu
        return "does-not-fit", (
            f"weights and working memory exceed {stage.gpu_memory_bytes / 2**30:.1f} GiB per GPU by "
            f"{max(0, -stage.headroom_bytes) / 2**30:.2f} GiB (under {a.engine_label or 'the estimate'})"
        )
    if a.state is VerdictState.ENGINE_REFUSES:
        failure = a.report.failure if a.report is not None else None
        return "does-not-fit", f"{a.engine_label} would not start: {failure}"
    whole = a.conversations * replicas
    if whole < max(1, target):
        detail = f"holds {plural(whole, 'conversation')} of {context:,} tokens, target {target:,}"
        return ("below-target" if whole else "does-not-fit"), detail
    return None


def no_host(gpu: GpuSpec, together: int, rack: bool) -> str:
    """Why no catalog host takes ``together`` of ``gpu``'s cards (``rack``: it must be rack-mounted), naming a cooler
    wider than two slots, which no rack server's bays take, and a cooler built for fewer cards to a host.

    >>> from model_catalog import get_gpu
    >>> no_host(get_gpu("rtx-3090"), 2, True)
    'no catalog host in a rack holds 2 x GeForce RTX 3090 (3-slot cards) and feeds their power'
    """
    unit = gpu.purchase
    width = unit.slot_width or 0
    wide = f" ({width}-slot cards)" if width > 2 else ""
    few = unit.max_per_host is not None and together > unit.max_per_host
    limit = f": at most {unit.max_per_host} go in one host, {unit.max_per_host_why}" if few else ""
    where = " in a rack" if rack else ""
    return f"no catalog host{where} holds {together} x {gpu.name}{wide} and feeds their power{limit}"
