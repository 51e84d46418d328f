"""The fits behind ``make calibrate`` (:mod:`bench.calibrate`): the profile run's activation terms, the CUDA-graph
estimate and the non-torch memory by release era and device class."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from typing import Any, NamedTuple

import numpy as np

from planner.core.overhead import parse_version
from planner.core.units import GiB
from planner.engines.base import engine_total_bytes
from planner.engines.platform import VllmPlatform
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.towers import is_multimodal
from planner.engines.vllm.versions import NonTorchEra, VllmConstants
from planner.planning.context import result_context
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult

# Release eras of non-torch memory: the version sweep prints 0.13 GiB at 0.15-0.17 and 0.25 GiB from 0.18; 0.20 puts
# the CUDA-graph estimate in the budget (and brings the consumer-card logs); 0.27 measures it as the free-memory drop
# from the init snapshot (utils/mem_utils.py, rule non_kv_formula).
NON_TORCH_ERAS = ("0.8.0", "0.18.0", "0.20.0", "0.27.0")
SAMPLER_KINDS = ("native-sort", "triton")  # Model Runner V2's is derived (terms.v2_sampler_bytes)
MIN_OFF_GRID = 2  # start-ups off the common graph count needed before the per-graph term is fitted
START = {  # the starting point of the alternating least squares
    "forward_bytes_per_hidden": 4.0,
    "native-sort": 9.6,
    "triton": 3.7,
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
        self,
        case: Case,
        request: PlanRequest,
        result: PlanResult,
        profile: VllmProfile,
        target_gib: float,
        transient: bool = False,
    ) -> None:
        """``transient``: the target is a >= 0.27 transient peak (torch peak less what torch holds after the
        profile), which leaves out the workspace the budget counts as consumed (``VllmProfile.consumed_workspace``)."""
        ctx = result_context(request, result, 0, engine_total_bytes(request))
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
        kept = transient and profile.consumed_workspace(ctx)
        self.held = zero.pp_buffers + (0 if kept else zero.moe_workspace)
        self.rejection = zero.rejection  # derived, not fitted (planner.engines.vllm.terms)
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
        return float(self.held + max(forward, sampler, self.rejection) + theta["encoder_bytes"] * self.multimodal)


# Huber's threshold for the activation fit: a start-up further than this from the fit counts in proportion to
# 1 / its residual (iteratively reweighted least squares), so a peak no term of the profile run explains (the 0.28
# RTX 5090 AWQ first boots print 1.46 GiB where their restarts print 0.33) does not move every model's forward.
HUBER_GIB = 0.25


def _huber_weights(rows: list[ActivationRow], theta: dict[str, float]) -> list[float]:
    """Each row's Huber weight at ``theta`` (:data:`HUBER_GIB`), rounded so the iteration settles."""
    residuals = [abs(r.predict(theta) - r.y) / GiB for r in rows]
    return [round(min(1.0, HUBER_GIB / r) if r else 1.0, 3) for r in residuals]


def _alternating_fit(rows: list[ActivationRow], names: list[str]) -> dict[str, float]:
    """The alternating, reweighted least squares of ``names`` from :data:`START` until the branches and the weights
    settle."""
    theta = dict(START)
    assignment: list[bool] = []
    weights = [1.0] * len(rows)
    for _ in range(30):
        sides = [r.branches(theta)[0] >= r.branches(theta)[1] for r in rows]
        reweighted = _huber_weights(rows, theta) if assignment else weights
        if sides == assignment and reweighted == weights:
            break
        assignment, weights = sides, reweighted
        matrix, target = [], []
        for row, forward, weight in zip(rows, sides, weights, strict=True):
            if row.rejection >= max(row.branches(theta)):
                continue  # the derived rejection warm-up sets this peak: nothing of theta to fit
            features = {"encoder_bytes": row.multimodal}
            if forward:
                features.update(forward_bytes_per_hidden=row.x_hidden)
                base = row.fixed_forward
            else:
                features[row.kind] = row.x_sampler
                base = row.hidden
            scale = math.sqrt(weight)
            matrix.append([scale * features.get(n, 0.0) / GiB for n in names])
            target.append(scale * (row.y - row.held - base) / GiB)
        solution = np.linalg.lstsq(np.array(matrix), np.array(target), rcond=None)[0]
        theta.update({n: max(0.0, float(v)) for n, v in zip(names, solution, strict=True)})
    return theta


def fit_activation(rows: list[ActivationRow]) -> tuple[dict[str, float], dict[str, Any]]:
    """Alternating, reweighted least squares on ``max(forward, sampler)`` (see the module docstring)."""
    names = ["forward_bytes_per_hidden", *SAMPLER_KINDS, "encoder_bytes"]
    present = {r.kind for r in rows if r.last and r.x_sampler}
    names = [n for n in names if n not in SAMPLER_KINDS or n in present]
    if not any(r.multimodal for r in rows):
        names.remove("encoder_bytes")
    theta = _alternating_fit(rows, names)
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
    platform: VllmPlatform
    gib: float
    weights_gib: float  # what the rank loaded (unified memory counts a share of it again)
    eager: bool = False  # --enforce-eager: no compile, so none of the graphics dies' fitted amount
    read_ahead: bool = False  # a loader that reads the checkpoint ahead (planner.engines.vllm.unified)
    item_tokens: int = 0  # the largest item its encoder profile runs (planner.engines.vllm.encoder_memory); 0: none

    @property
    def datacenter(self) -> bool:
        """A discrete CUDA compute die (not a graphics die, not unified memory, not a CDNA 3 device, whose HIP terms
        bench.calibrate_hip fits): where the era's base is read."""
        return not self.platform.integrated and not self.platform.graphics_die and not self.platform.cdna3


def _in_era(version: str, index: int) -> bool:
    since = NON_TORCH_ERAS[index]
    until = NON_TORCH_ERAS[index + 1] if index + 1 < len(NON_TORCH_ERAS) else "999.0.0"
    return parse_version(since) <= parse_version(version) < parse_version(until)


def _era_fields(points: list[NonTorchPoint]) -> dict[str, Any]:
    """Medians per TP/PP class of one era's points on datacenter compute dies (the NVLink-collective class at TP 2
    and beyond)."""
    own = [p for p in points if p.datacenter]
    tp1 = [p.gib for p in own if p.tp == 1 and p.pp == 1]
    tp2 = [p.gib for p in own if p.tp == 2 and p.platform.nvlink_collectives]
    base = statistics.median(tp2) if tp2 else None
    extra = [(p.gib - base) / (p.tp - 2) for p in own if p.tp > 2 and p.platform.nvlink_collectives and base]
    pps = [p.gib for p in own if p.tp == 1 and p.pp > 1]
    return {
        "tp1": class_median(tp1),
        "tp2": class_median(tp2),
        "per_extra_rank": class_median(extra),
        "pp": class_median(pps),
        "counts": (len(tp1), len(tp2), len(extra), len(pps)),
    }


def _donated(found: list[dict[str, Any]], fields: tuple[str, ...]) -> list[tuple[dict[str, int], list[str]]]:
    """Each era's values of ``fields``: its own, else the nearest earlier (then later) era's, with a note."""
    out = []
    for i, era in enumerate(found):
        values: dict[str, int] = {}
        notes: list[str] = []
        for field in fields:
            order = [*reversed(found[:i]), *found[i + 1 :]]
            donor = era if era.get(field) is not None else next((e for e in order if e.get(field) is not None), None)
            if donor is None:
                continue
            values[field] = donor[field]
            if donor is not era:
                notes.append(f"{field} from era {donor['since']} (no figure in this era)")
        out.append((values, notes))
    return out


def _graphics_extra(points: list[NonTorchPoint], eras: tuple[NonTorchEra, ...]) -> int:
    """What compiled start-ups on graphics dies hold at TP 1 beyond the era's datacenter base (all eras pooled;
    an eager start-up compiles nothing and is planned without it, so it is not a point of it)."""
    probe = base_constants(non_torch=list(eras))
    over = [
        p.gib - VllmProfile(engine_version=p.version, constants=probe).non_torch_bytes(1) / GiB
        for p in points
        if p.platform.desktop_card and p.platform.desktop_host and p.tp == 1 and p.pp == 1 and not p.eager
    ]
    return median_bytes(over) or 0


def fit_non_torch(
    points: list[NonTorchPoint], encoder_share: bool = False
) -> tuple[tuple[NonTorchEra, ...], UmaShares, int]:
    """The non-torch memory by era and device class, in order: (1) per era the medians of the datacenter compute
    dies' figures at TP 1, with a pipeline stage, and at TP 2 and per rank beyond with vLLM's NVLink collectives
    (an H100 at TP 2: 2.07 GiB in 0.19, against 0.25 at TP 1); (2) what graphics dies (RTX 3090, RTX 5090,
    RTX PRO 6000) hold beyond that base at TP 1, a share taken to divide with TP (the RTX 5090's 35B-A3B runs:
    1.55 GiB at TP 1, 1.06-1.22 at TP 2); (3) TP 2 on NCCL alone (GeForce and workstation cards) holds the era's
    TP 1 base (CUDA context and cuBLAS workspaces, as any rank) plus NCCL's own buffers, which the planner does not
    model: not fitted, since only the Qwen3.5/3.6 hybrids and hybrid MoEs log it and the two disagree by ~0.5 GiB
    (tests/fidelity/test_family_folds.py); (4) what unified memory adds, as a share of the weights
    the rank loaded (what the host stops counting in the MemAvailable vLLM reads there, and in the
    ``cudaMemGetInfo`` its graph estimate reads, beyond the planner's own estimate), by loader class
    (:func:`uma_shares`). A class with fewer than two figures in an era takes the nearest earlier, else later,
    era's and says so. ``encoder_share``: the encoder's non-torch amount in place of the desktop share
    (:mod:`bench.share_split`): the start-ups that profile an encoder leave the eras, and no desktop share."""
    every, points = points, [p for p in points if not (encoder_share and p.item_tokens)]
    found = [{"since": since, **_era_fields([p for p in points if _in_era(p.version, i)])}
             for i, since in enumerate(NON_TORCH_ERAS)]  # fmt: skip
    donated = _donated(found, ("tp1", "tp2", "per_extra_rank", "pp"))
    base = tuple(
        NonTorchEra(since=era["since"], **{"tp1": 0, "tp2": 0, "pp": 0, **values})
        for era, (values, _) in zip(found, donated, strict=True)
    )
    graphics = 0 if encoder_share else _graphics_extra(points, base)
    eras = []
    for era, (values, notes) in zip(found, donated, strict=True):
        counts = "/".join(map(str, era["counts"]))
        evidence = "; ".join([f"datacenter tp1/tp2/tp>2/pp: {counts}", *notes, "tp2_nccl: the era's tp1"])
        nccl = {"tp2_nccl": values.get("tp1", 0)}
        eras.append(
            NonTorchEra(since=era["since"], evidence=evidence, **{"tp1": 0, "tp2": 0, "pp": 0, **values, **nccl})
        )
    fitted = tuple(eras)
    return fitted, uma_shares(every, base_constants(non_torch=list(fitted), graphics_extra=graphics)), graphics


def fit_encoder_non_torch(points: list[NonTorchPoint], probe: VllmConstants) -> int:
    """``VllmConstants.encoder_non_torch``: what the start-ups that profile an encoder hold beyond ``probe``'s
    non-torch memory, per token of the item profiled and on one rank (``x tp``), the median over those on discrete
    CUDA cards (unified memory's fitted shares hold what its start-ups left; a CDNA 3 device has its own term):
    :mod:`planner.engines.vllm.encoder_memory`."""
    over = []
    for p in points:
        if p.item_tokens and not p.platform.integrated and not p.platform.cdna3 and p.platform.runtime == "cuda":
            base = VllmProfile(engine_version=p.version, constants=probe).non_torch_bytes(p.tp, p.pp, p.platform)
            over.append((p.gib * GiB - base) * p.tp / p.item_tokens)
    return max(0, round(statistics.median(over))) if over else 0


class UmaShares(NamedTuple):
    read_ahead: float  # VllmConstants.uma_weights_share
    lazy: float  # VllmConstants.uma_weights_share_lazy


def uma_shares(points: list[NonTorchPoint], probe: VllmConstants) -> UmaShares:
    """What unified memory adds beyond ``probe``'s non-torch base, as a share of the weights the rank loaded: the
    median of the start-ups' shares per loader class (planner.engines.vllm.unified: the loaders that read the
    checkpoint ahead, and vLLM's default memory-mapped one). A class with fewer than two start-ups takes the median
    of all of them, as an era with fewer than two figures takes its neighbour's (none at all: 0)."""
    shares: dict[bool, list[float]] = {True: [], False: []}
    for p in points:
        if p.platform.integrated and p.weights_gib > 0:
            base = VllmProfile(engine_version=p.version, constants=probe).non_torch_bytes(p.tp, p.pp, p.platform)
            shares[p.read_ahead].append((p.gib - base / GiB) / p.weights_gib)
    every = shares[True] + shares[False]
    pooled = round(statistics.median(every), 4) if every else 0.0
    ahead, lazy = (round(statistics.median(shares[k]), 4) if len(shares[k]) >= 2 else pooled for k in (True, False))
    return UmaShares(ahead, lazy)


def fit_graphs(points: list[tuple[int, int, float]]) -> tuple[int, int, int]:
    """``(base, per layer, per graph and layer)`` bytes from (layers, graphs beyond the first per mode, GiB) by
    least squares on ``base + a x layers + b x layers x graphs``; while fewer than :data:`MIN_OFF_GRID` points
    capture another number of graphs than the most common one, the layers cannot tell the first capture from the
    graphs after it, and the slope is given to the graphs (``a = 0``): vLLM's estimate is ``first capture + per
    graph x (n - 1)`` per mode (``profile_cudagraph_memory``), and at the common count (the 0.19 logs' 51 sizes of
    each mode) the graphs after the first carry it, so a start-up capturing two graphs is not charged fifty."""
    if not points:
        return 0, 0, 0
    common = Counter(g for _, g, _ in points).most_common(1)[0][0]
    if sum(g != common for _, g, _ in points) < MIN_OFF_GRID:
        base, slope = fit_line([(float(n * max(g, 1)), y) for n, g, y in points])
        return base, 0, max(0, slope)
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
