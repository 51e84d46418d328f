"""The fits behind ``make calibrate`` (:mod:`bench.calibrate`): the profile run's activation terms, the CUDA-graph
estimate and the non-torch memory by release era and device class."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any, NamedTuple

import numpy as np

from planner.core.overhead import parse_version
from planner.core.units import GiB
from planner.engines.base import engine_total_bytes
from planner.engines.vllm.profile import VllmProfile, is_multimodal
from planner.engines.vllm.stage import stage_context
from planner.engines.vllm.versions import NonTorchEra, VllmConstants
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult

# Release eras of non-torch memory: the version sweep prints 0.13 GiB at 0.15-0.17 and 0.25 GiB from 0.18; 0.20 puts
# the CUDA-graph estimate in the budget (and brings the consumer-card logs); 0.27 measures it as the free-memory drop
# from the init snapshot (utils/mem_utils.py, rule non_kv_formula).
NON_TORCH_ERAS = ("0.8.0", "0.18.0", "0.20.0", "0.27.0")
SAMPLER_KINDS = ("native-sort", "triton", "v2")
MIN_OFF_GRID = 2  # start-ups off the common graph count needed before the per-graph term is fitted
START = {  # the starting point of the alternating least squares
    "forward_bytes_per_hidden": 4.0,
    "native-sort": 9.6,
    "triton": 3.7,
    "v2": 6.0,
    "encoder_bytes": 0.0,
}
Case = dict[str, Any]


def base_constants(**changes: Any) -> VllmConstants:
    """Constants for feature extraction: every fitted term zero unless changed."""
    data: dict[str, Any] = {
        "forward_bytes_per_hidden": 0.0,
        "sampler_copies": {kind: 0.0 for kind in (*SAMPLER_KINDS, "flashinfer")},
        "encoder_bytes": 0,
        "non_torch": [NonTorchEra(since="0.0.0", tp1=0, tp2=0, pp=0)],
        "graph_estimate_base": 0,
        "graph_estimate_per_layer": 0,
        "graph_estimate_per_graph_layer": 0,
        "graph_capture_base": 0,
        "graph_capture_per_layer": 0,
        "graph_capture_per_graph_layer": 0,
        "init_baseline_tp1": 0,
        "init_baseline_tp": 0,
        "sampler_risk_ratio": 0.0,
    }
    data.update(changes)
    return VllmConstants.model_validate(data)


class ActivationRow:
    """One case's activation features on the printing rank (stage 0)."""

    def __init__(
        self, case: Case, request: PlanRequest, result: PlanResult, profile: VllmProfile, target_gib: float
    ) -> None:
        ctx = stage_context(request, result, 0, engine_total_bytes(request))
        tokens, seqs = profile.batch(ctx.gpu_memory_bytes, ctx.gpu_name, result.max_model_len)
        kind = profile.sampler_for(request.model, request.resolved_weights)

        def terms(**changes: Any) -> Any:
            return profile.model_copy(update={"constants": base_constants(**changes)}).terms(
                request.model, ctx, tokens, seqs
            )

        zero = terms()
        self.kind = kind
        self.fixed_forward = zero.forward  # MLA expansion, transient MoE workspace
        self.hidden = zero.sampler  # the held hidden states (last stage only)
        self.held = zero.pp_buffers + zero.moe_workspace
        self.x_hidden = terms(forward_bytes_per_hidden=1.0).forward - zero.forward
        copies = {k: (1.0 if k == kind else 0.0) for k in (*SAMPLER_KINDS, "flashinfer")}
        self.x_sampler = (terms(sampler_copies=copies).sampler - zero.sampler) if ctx.is_last_stage else 0
        self.last = ctx.is_last_stage
        self.multimodal = 1.0 if is_multimodal(request.model) and ctx.stage_index == 0 else 0.0
        self.y = target_gib * GiB
        self.key = (
            request.model.id,
            result.tensor_parallel,
            result.pipeline_parallel,
            request.resolved_weights,
            profile.engine_version,
            round(self.y),
        )

    def branches(self, theta: dict[str, float]) -> tuple[float, float]:
        forward = theta["forward_bytes_per_hidden"] * self.x_hidden
        sampler = theta.get(self.kind, 0.0) * self.x_sampler + self.hidden if self.last else 0.0
        return forward + self.fixed_forward, sampler

    def predict(self, theta: dict[str, float]) -> float:
        forward, sampler = self.branches(theta)
        return float(self.held + max(forward, sampler) + theta["encoder_bytes"] * self.multimodal)


def fit_activation(rows: list[ActivationRow]) -> tuple[dict[str, float], dict[str, Any]]:
    """Alternating least squares on ``max(forward, sampler)`` (see the module docstring)."""
    names = ["forward_bytes_per_hidden", *SAMPLER_KINDS, "encoder_bytes"]
    present = {r.kind for r in rows if r.last and r.x_sampler}
    names = [n for n in names if n not in SAMPLER_KINDS or n in present]
    if not any(r.multimodal for r in rows):
        names.remove("encoder_bytes")
    theta = dict(START)
    assignment: list[bool] = []
    for _ in range(30):
        sides = [r.branches(theta)[0] >= r.branches(theta)[1] for r in rows]
        if sides == assignment:
            break
        assignment = sides
        matrix, target = [], []
        for row, forward in zip(rows, sides, strict=True):
            features = {"encoder_bytes": row.multimodal}
            if forward:
                features.update(forward_bytes_per_hidden=row.x_hidden)
                base = row.fixed_forward
            else:
                features[row.kind] = row.x_sampler
                base = row.hidden
            matrix.append([features.get(n, 0.0) / GiB for n in names])
            target.append((row.y - row.held - base) / GiB)
        solution = np.linalg.lstsq(np.array(matrix), np.array(target), rcond=None)[0]
        theta.update({n: max(0.0, float(v)) for n, v in zip(names, solution, strict=True)})
    errors = [abs(r.predict(theta) - r.y) / GiB for r in rows]
    stats = {"cases": len(rows), "median_abs_gib": statistics.median(errors), "worst_abs_gib": max(errors)}
    return theta, stats


MIN_CLASS_POINTS = 2  # start-ups a class value of an era needs; fewer, and the nearest era's value is taken


def class_median(values: list[float]) -> int | None:
    """The median of a class's figures in one era, when at least :data:`MIN_CLASS_POINTS` give one."""
    return median_bytes(values) if len(values) >= MIN_CLASS_POINTS else None


def median_bytes(values: list[float]) -> int | None:
    return round(statistics.median(values) * GiB) if values else None


class NonTorchPoint(NamedTuple):
    """One case's non-torch memory: printed, or what its KV budget leaves (GiB), on one rank."""

    version: str
    tp: int
    pp: int
    peer_access: bool
    integrated: bool
    gib: float
    gb202: bool = False  # RTX 5090 / RTX PRO 6000 (compute capability 12.0)


def _in_era(version: str, index: int) -> bool:
    since = NON_TORCH_ERAS[index]
    until = NON_TORCH_ERAS[index + 1] if index + 1 < len(NON_TORCH_ERAS) else "999.0.0"
    return parse_version(since) <= parse_version(version) < parse_version(until)


def _era_fields(points: list[NonTorchPoint]) -> dict[str, Any]:
    """Medians per TP/PP class of one era's points on discrete GPUs other than GB202."""
    own = [p for p in points if not p.integrated and not p.gb202]
    tp1 = [p.gib for p in own if p.tp == 1 and p.pp == 1]
    tp2 = [p.gib for p in own if p.tp == 2 and p.peer_access]
    no_peer = [p.gib for p in own if p.tp == 2 and not p.peer_access]
    base = {True: statistics.median(tp2) if tp2 else None, False: statistics.median(no_peer) if no_peer else None}
    extra = []
    for p in own:
        class_base = base[p.peer_access]
        if p.tp > 2 and class_base is not None:
            extra.append((p.gib - class_base) / (p.tp - 2))
    pps = [p.gib for p in own if p.tp == 1 and p.pp > 1]
    return {
        "tp1": class_median(tp1),
        "tp2": class_median(tp2),
        "tp2_no_peer": class_median(no_peer),
        "per_extra_rank": class_median(extra),
        "pp": class_median(pps),
        "counts": (len(tp1), len(tp2), len(no_peer), len(extra), len(pps)),
    }


def fit_non_torch(points: list[NonTorchPoint]) -> tuple[tuple[NonTorchEra, ...], int, int]:
    """Medians of the non-torch figures per era and TP/PP class on discrete GPUs (a class with fewer than two
    figures in an era takes the nearest earlier, else later, era's, and says so; TP 2 without peer access falls
    back to TP 2), then two platform extras, each the median of what that platform's figures exceed their class
    by: GB202 cards (RTX 5090, RTX PRO 6000: 1.5-2.3 GiB at TP 1 from 0.24 on, where an H100, A100 or RTX A5000
    holds ~0.25; 0.2-0.6 GiB per rank at TP 2, so the extra is taken per rank at TP 1 and divided by TP) and
    unified memory (the host's own growth while profiling, vllm issue #46307)."""
    found = []
    for i, since in enumerate(NON_TORCH_ERAS):
        found.append({"since": since, **_era_fields([p for p in points if _in_era(p.version, i)])})
    eras = []
    for i, era in enumerate(found):
        notes = [f"cases tp1/tp2/tp2 no peer/tp>2/pp: {'/'.join(map(str, era['counts']))}"]
        values: dict[str, int] = {}
        for field in ("tp1", "tp2", "tp2_no_peer", "per_extra_rank", "pp"):
            order = [*reversed(found[:i]), *found[i + 1 :]]
            donor = next((e for e in order if e[field] is not None), None) if era[field] is None else era
            if donor is None and field == "tp2_no_peer":
                continue  # TP 2 without peer access: as with it
            values[field] = donor[field] if donor and donor[field] is not None else 0
            if donor is not era:
                notes.append(f"{field} from era {donor['since'] if donor else '-'} (no figure in this era)")
        eras.append(NonTorchEra(since=era["since"], evidence="; ".join(notes), **values))
    fitted = tuple(eras)
    probe = base_constants(non_torch=list(fitted))

    def excess(select: bool) -> int:
        over = []
        for p in points:
            if select if p.integrated else (p.gb202 and not select):
                profile = VllmProfile(engine_version=p.version, constants=probe)
                scale = 1 if select else p.tp  # GB202: per rank, it shrinks with TP (one GPU's share at TP 1)
                over.append((p.gib - profile.non_torch_bytes(p.tp, p.pp, p.peer_access) / GiB) * scale)
        return median_bytes(over) or 0

    return fitted, excess(True), excess(False)


def fit_graphs(points: list[tuple[int, int, float]]) -> tuple[int, int, int]:
    """``(base, per layer, per graph and layer)`` bytes from (layers, graphs beyond the first per mode, GiB) by
    least squares on ``base + a x layers + b x layers x graphs``; while fewer than :data:`MIN_OFF_GRID` points
    capture another number of graphs than the most common one, the per-graph term is folded into the per-layer
    one (``b = 0``)."""
    if not points:
        return 0, 0, 0
    common = Counter(g for _, g, _ in points).most_common(1)[0][0]
    if sum(g != common for _, g, _ in points) < MIN_OFF_GRID:
        base, slope = fit_line([(float(n), y) for n, _, y in points])
        return base, slope, 0
    a = np.array([[1.0, n, n * g] for n, g, _ in points])
    solution = np.linalg.lstsq(a, np.array([y for _, _, y in points]), rcond=None)[0]
    base, per_layer, per_graph = (round(float(v) * GiB) for v in solution)
    return base, per_layer, max(0, per_graph)


def fit_line(points: list[tuple[float, float]]) -> tuple[int, int]:
    """``(base, per_unit)`` bytes from (units, GiB) points by least squares (one point: through the origin)."""
    if not points:
        return 0, 0
    if len({x for x, _ in points}) < 2:
        return 0, round(statistics.median(y / x for x, y in points) * GiB)
    a = np.array([[1.0, x] for x, _ in points])
    base, slope = np.linalg.lstsq(a, np.array([y for _, y in points]), rcond=None)[0]
    return round(float(base) * GiB), round(float(slope) * GiB)
