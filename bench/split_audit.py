"""The working-space terms of vLLM, audited term by term against every fidelity case whose log prints its memory
split (issue 20): the activation peak, the non-torch memory and the CUDA-graph estimate as planned beside the
figures the start-up prints, with the KV difference they leave.

``python -m bench.split_audit`` prints one row per case (release, GPU, host, planned - printed for each term, the
KV difference) and a summary per term by group (release era, device class, host). In sample: the shipped
constants of ``planner/engines/vllm/fitted.toml`` (the folds of :mod:`bench.fidelity` are not refitted here).

What each printed figure is (:mod:`planner.engines.vllm.logparse`):

- activation: 0.19-style "torch peak memory increase" / V0's "PyTorch activation peak memory", the planner's
  :attr:`EngineReport.activation_bytes`; a >= 0.27 "Actual usage ... peak activation" without the DEBUG line
  (``transient_plus_graphs_gib``) is the transient peak plus the graph estimate the budget subtracted
  (0.27.1 ``v1/worker/gpu_worker.py`` peak_activation_memory), compared with the planned activation plus the
  planned in-budget estimate;
- non-torch: the printed ``non_torch_gib``, or from 0.27 "consumed" less the printed weights (the free-memory drop
  since the worker's baseline snapshot, 0.27.1 ``utils/mem_utils.py:286-311``), against
  :attr:`EngineReport.non_torch_bytes` (the era's base, the desktop cards' fitted share, unified memory's share and
  the derived sampler state);
- graph: "Estimated CUDA graph memory" against :attr:`EngineReport.cuda_graph_bytes`.

The host column reads what the case records: ``wsl2`` (``setup.deployment.host`` windows), ``unified`` (GB10),
``rocm``, ``datacenter`` (not a desktop card), and on a desktop card ``rented`` (a rented, cloud, VM or headless
machine named in the case's GPU, source or notes) or ``desktop?`` (the case does not name the machine).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from bench.fidelity_cases import build_request, load_cases, setup_of
from planner.bounds.errors import PlannerError
from planner.core.units import GiB
from planner.engines.platform import vllm_platform
from planner.engines.registry import engine_report
from planner.engines.vllm.profile import VllmProfile
from planner.planning.context import speculative_method
from planner.planning.plan import plan
from planner.sources.logs import parse_log

Case = dict[str, Any]
_RENTED = re.compile(r"headless|vast\.?ai|runpod|modal\b|rented|\bcloud|\bvm\b|proxmox|autodl|lambda|nixos", re.I)


class SplitRow(NamedTuple):
    """One case's printed split beside the plan (GiB; a difference is planned - printed, None when not printed)."""

    id: str
    release: str
    gpu: str
    host: str
    eager: bool
    activation: float | None  # printed
    d_activation: float | None
    non_torch: float | None
    d_non_torch: float | None
    graph: float | None
    d_graph: float | None
    d_weights: float | None
    d_kv: float | None
    d_working: float | None  # activation + non-torch + graph estimate in the budget: -(d_kv + d_weights)
    graphics_share: float  # the desktop cards' fitted share inside the planned non-torch


def host_of(case: Case, desktop: bool, integrated: bool, runtime: str) -> str:
    """The machine a case records (see the module's docstring)."""
    setup = setup_of(case)
    if setup.deployment and setup.deployment.get("host") == "windows":
        return "wsl2"
    if integrated:
        return "unified"
    if runtime == "rocm":
        return "rocm"
    if not desktop:
        return "datacenter"
    text = " ".join(str(case.get(k, "")) for k in ("gpu", "source", "notes")) + " " + setup.mapping_note
    return "rented" if _RENTED.search(text) else "desktop?"


class Printed(NamedTuple):
    """What a case's log prints of its split (GiB; None: not printed)."""

    activation: float | None
    with_graphs: bool  # a >= 0.27 "peak activation": the transient peak plus the graph estimate applied
    non_torch: float | None
    graph: float | None


def printed_split(case: Case) -> Printed:
    """The split a case's log prints: its ``verbatim`` lines read by :func:`planner.sources.logs.parse_log`, the
    figures the case records in ``reported`` where the lines are not quoted."""
    reported = case["reported"]
    parsed = None
    if case.get("verbatim"):
        try:
            parsed = parse_log("\n".join(case["verbatim"]))
        except PlannerError:
            parsed = None

    def pick(name: str) -> float | None:
        value = getattr(parsed, name, None) if parsed is not None else None
        return float(value) if value is not None else reported.get(name)

    activation, with_graphs = pick("activation_peak_gib"), bool(parsed is not None and parsed.peak_includes_graphs)
    if reported.get("transient_plus_graphs_gib") is not None and (activation is None or with_graphs):
        activation, with_graphs = reported["transient_plus_graphs_gib"], True
    non_torch = pick("non_torch_gib")
    consumed, weights = pick("consumed_gib"), pick("weights_gib")
    if non_torch is None and consumed is not None and weights is not None:
        non_torch = round(consumed - weights, 4)
    return Printed(activation, with_graphs, non_torch, pick("cuda_graph_estimate_gib"))


def _diff(planned_bytes: int, printed: float | None) -> float | None:
    return None if printed is None else round(planned_bytes / GiB - float(printed), 3)


def _working(kv_bytes: int, weights_bytes: int, kv: float | None, weights: float | None) -> float | None:
    """The working space (activation, non-torch, the graph estimate the budget subtracts) planned - printed, where
    the log prints the KV budget and the weights: what the budget leaves beside them, the budget taken as the
    printed one (the planner plans on the printed device total and utilization)."""
    if kv is None or weights is None:
        return None
    return round(-((kv_bytes + weights_bytes) / GiB - float(kv) - float(weights)), 3)


def audit_row(case: Case) -> SplitRow | None:
    """The case's row, None when it prints neither a split nor its KV budget and weights, or the planner does not plan
    it (vLLM only)."""
    setup = setup_of(case)
    reported = case["reported"]
    printed = printed_split(case)
    split = (printed.activation, printed.non_torch, printed.graph) != (None, None, None)
    whole = reported.get("kv_cache_gib") is not None and reported.get("weights_gib") is not None
    if setup.engine != "vllm" or setup.out_of_scope or not (split or whole):
        return None
    try:
        request = build_request(case, setup)
        result = plan(request)
        report = engine_report(request, result)
    except PlannerError:
        return None
    profile = request.overhead
    if not isinstance(profile, VllmProfile):
        return None
    platform = vllm_platform(request.gpu)
    in_budget = profile.graphs_in_budget(request.model, request.resolved_weights, speculative_method(request))
    activation = printed.activation
    if activation is not None and printed.with_graphs and in_budget:  # the transient peak alone
        estimate = printed.graph if printed.graph is not None else report.cuda_graph_bytes / GiB
        activation = round(activation - estimate, 4)
    kv = reported.get("kv_cache_gib")
    weights = reported.get("weights_gib")
    return SplitRow(
        id=case["id"],
        release=profile.engine_version,
        gpu=setup.gpu,
        host=host_of(case, platform.desktop_card, platform.integrated, platform.runtime),
        eager=profile.enforce_eager,
        activation=activation,
        d_activation=_diff(report.activation_bytes, activation),
        non_torch=printed.non_torch,
        d_non_torch=_diff(report.non_torch_bytes, printed.non_torch),
        graph=printed.graph,
        d_graph=_diff(report.cuda_graph_bytes, printed.graph),
        d_weights=_diff(report.weights_bytes, weights),
        d_kv=_diff(report.available_kv_cache_bytes_per_gpu, kv),
        d_working=_working(report.available_kv_cache_bytes_per_gpu, report.weights_bytes, kv, weights),
        graphics_share=round(profile.graphics_compile_bytes(result.tensor_parallel, platform) / GiB, 3),
    )


def audit(cases: Iterable[Case] | None = None) -> list[SplitRow]:
    """Every case with a printed split or a printed KV budget and weights (:func:`audit_row`)."""
    rows = (audit_row(c) for c in (load_cases() if cases is None else cases))
    return [r for r in rows if r is not None]


def era(release: str) -> str:
    """The non-torch era of a release (``bench.calibrate_terms.NON_TORCH_ERAS``), as a label."""
    parts = tuple(int(p) for p in release.split(".")[:2])
    if parts < (0, 8):
        return "V0 <0.8"
    if parts < (0, 18):
        return "0.8-0.17"
    if parts < (0, 20):
        return "0.18-0.19"
    if parts < (0, 27):
        return "0.20-0.26"
    return ">=0.27"


def device(row: SplitRow) -> str:
    """Desktop card, datacenter, unified memory."""
    return {"datacenter": "datacenter", "unified": "unified", "rocm": "rocm"}.get(row.host, "desktop card")


TERMS: tuple[tuple[str, Callable[[SplitRow], float | None]], ...] = (
    ("activation", lambda r: r.d_activation),
    ("non-torch", lambda r: r.d_non_torch),
    ("graph estimate", lambda r: r.d_graph),
    ("working space", lambda r: r.d_working),
    ("KV", lambda r: r.d_kv),
)
GROUPS: tuple[tuple[str, Callable[[SplitRow], str]], ...] = (
    ("era", lambda r: era(r.release)),
    ("device", device),
    ("host", lambda r: r.host + (" eager" if r.eager else "")),
)


def _stats(values: list[float]) -> str:
    worst = max(values, key=abs)
    return f"{len(values):>3} {statistics.median(values):+7.2f} {worst:+7.2f}"


def summary(rows: list[SplitRow]) -> list[str]:
    """Per term and group: count, median and worst (largest |x|) planned - printed, GiB."""
    lines = []
    for term, get in TERMS:
        values = [v for r in rows if (v := get(r)) is not None]
        if not values:
            continue
        lines.append(f"{term}: all {_stats(values)}")
        for name, key in GROUPS:
            groups: dict[str, list[float]] = {}
            for r in rows:
                if (v := get(r)) is not None:
                    groups.setdefault(key(r), []).append(v)
            for label in sorted(groups):
                lines.append(f"  {name:<6} {label:<18} {_stats(groups[label])}")
    return lines


def _cell(value: float | None, diff: float | None) -> str:
    return "" if value is None or diff is None else f"{value:.2f}/{diff:+.2f}"


def table(rows: list[SplitRow]) -> list[str]:
    """One line per case: printed / planned - printed for each term, and the KV difference."""
    terms = f"{'act':>12} {'nt':>12} {'graph':>12} {'dW':>6} {'dWS':>6} {'dKV':>6}"
    head = f"{'case':<66} {'rel':<7} {'gpu':<22} {'host':<10} {terms}"
    lines = [head]
    for r in sorted(rows, key=lambda r: (era(r.release), r.host, r.id)):
        dw = "" if r.d_weights is None else f"{r.d_weights:+.2f}"
        dkv = "" if r.d_kv is None else f"{r.d_kv:+.2f}"
        dws = "" if r.d_working is None else f"{r.d_working:+.2f}"
        lines.append(
            f"{r.id[:66]:<66} {r.release:<7} {r.gpu[:22]:<22} {r.host + ('/e' if r.eager else ''):<10} "
            f"{_cell(r.activation, r.d_activation):>12} {_cell(r.non_torch, r.d_non_torch):>12} "
            f"{_cell(r.graph, r.d_graph):>12} {dw:>6} {dws:>6} {dkv:>6}"
        )
    return lines


def main() -> int:
    rows = audit()
    print("\n".join(table(rows)))
    print("\nplanned - printed, GiB: count, median, worst")
    print("\n".join(summary(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
