"""Fit the vLLM constants the engine's source does not fix, from the public start-up logs, by the terms the logs
print (``make calibrate`` = ``python -m bench.calibrate``; writes ``planner/engines/vllm/fitted.toml``).

- activation (``torch peak memory increase``): ``pp + max(forward, sampler) + persistent MoE workspace +
  encoder`` (:mod:`planner.engines.vllm.profile`), linear in the fitted coefficients once it is known which
  branch of the max holds. Alternating least squares: assign each case to its larger branch, solve the linear
  least squares, repeat until the assignment is stable (a case whose peak the derived rejection-sampler warm-up
  sets, :func:`planner.engines.vllm.terms.rejection_bytes`, has nothing to fit and is left out), each case weighted
  by Huber's rule (:data:`bench.calibrate_terms.HUBER_GIB`: a case further than 0.25 GiB from the fit counts in
  proportion to 1 / its residual). Unknowns: bytes per hidden unit of the forward, fp32 copies of each V1 sampler kind
  with evidence, and the multimodal encoder term; Model Runner V2's sampler is derived, not fitted
  (:func:`planner.engines.vllm.terms.v2_sampler_bytes`);
- non-torch memory by device class (:func:`bench.calibrate_terms.fit_non_torch`): per release era the medians of
  the datacenter dies' figures (TP 1, a pipeline stage, TP 2 with vLLM's NVLink collectives), then the graphics
  dies' share over that base at TP 1 (divided by TP), TP 2 on NCCL alone taking the era's TP 1 base (not fitted: only
  two related model families log it), and unified memory's share of the
  loaded weights. A figure is the printed one (0.19's DEBUG line), from 0.27 the printed "consumed" memory less
  the weights, and from 0.20, for the logs that print only their KV budget (or blocks, or tokens:
  bench/derived.py), what the budget leaves after the weights, the activation peak and the graph estimate: the
  only term those logs leave open;
- CUDA graphs: ``base + a x layers + b x layers x (graphs beyond the first of each mode)`` least squares on the
  printed estimates (graph counts from the capture sizes of planner/engines/vllm/graphs.py) and on the captured
  size; with a single graph count among them, the slope goes to the graphs (``a = 0``); the estimate's cost per
  graph on compute capability 10.x from its own printed lines (:func:`bench.calibrate_graphs.sm100_graph_fit`);
- HIP on a CDNA 3 device (MI300X): its cost per graph captured and its non-torch memory, on its start-ups alone
  (:mod:`bench.calibrate_hip`; the CUDA graph and non-torch fits leave them out);
- the worker's baseline before its memory snapshot: the median printed ``cuda_memory`` at init;
- the sampler warm-up risk ratio: the largest post-capture free / sampler peak at which a logged warm-up still ran
  out of memory (the report warns below it; it fails only below 1, where the warm-up cannot fit at all).

Cases whose setup says ``not_fitted`` (a mapping known to be uncertain) stay out. :func:`fit` takes any subset
of cases (``make fidelity`` refits without each release and without each family to cross-validate).
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
import sys
from collections.abc import Callable, Iterable
from typing import Any

from bench.calibrate_graphs import ESTIMATE, VllmCase, graph_fit, graphs_of, hip_graph_fit, sm100_graph_fit
from bench.calibrate_hip import cdna3_non_torch
from bench.calibrate_terms import (
    SAMPLER_KINDS,
    ActivationRow,
    NonTorchPoint,
    base_constants,
    fit_activation,
    fit_encoder_non_torch,
    fit_non_torch,
    median_bytes,
)
from bench.derived import printed_kv
from bench.fidelity_cases import build_request, load_cases, setup_of
from planner.bounds.errors import PlannerError
from planner.core.overhead import parse_version
from planner.core.units import GiB
from planner.engines.base import engine_total_bytes
from planner.engines.evidence import EVIDENCE_PATH
from planner.engines.platform import vllm_platform
from planner.engines.registry import get_engine
from planner.engines.vllm.encoder_memory import encoder_item_tokens
from planner.engines.vllm.failures import sampler_headroom
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.stage import vllm_stage
from planner.engines.vllm.versions import FITTED_PATH, VllmConstants
from planner.planning.context import result_context
from planner.planning.plan import PlanRequest, plan
from planner.planning.results import PlanResult

Case = dict[str, Any]
_CUDA_MEMORY = re.compile(r"cuda_memory=(\d{1,3}\.\d{1,3})GiB")


def _vllm_cases(cases: Iterable[Case], figure: str | None = None) -> Iterable[VllmCase]:
    """The fitted vLLM V1 cases; with ``figure``, a held-out case too where its setup fits that printed figure all
    the same (``Setup.fitted_figures``)."""
    for case in cases:
        setup = setup_of(case)
        held = setup.not_fitted and figure not in setup.fitted_figures
        if setup.engine != "vllm" or setup.out_of_scope or held:
            continue
        try:
            request = build_request(case, setup)
            result = plan(request)
        except PlannerError:
            continue
        profile = request.overhead
        if isinstance(profile, VllmProfile) and profile.is_v1:
            yield case, request, result, profile


def init_baselines(cases: list[VllmCase]) -> tuple[int, int]:
    """Median ``cuda_memory`` of the ``worker init memory snapshot`` lines: (one GPU, NCCL initialised)."""
    single: list[float] = []
    multi: list[float] = []
    for case, _, result, _ in cases:
        for line in case.get("verbatim", []):
            match = _CUDA_MEMORY.search(line)
            if match and "worker init memory snapshot" in line:
                world = result.tensor_parallel * result.pipeline_parallel
                (multi if world > 1 else single).append(float(match.group(1)))
                break
    return median_bytes(single) or round(0.5 * GiB), median_bytes(multi) or round(1.5 * GiB)


def risk_ratio(labelled: list[tuple[float, bool]]) -> tuple[float, dict[str, int]]:
    """The largest free / peak ratio among the warm-ups that ran out of memory (0 when none did), and how many
    labelled start-ups fall on each side of it."""
    failures = [ratio for ratio, failed in labelled if failed]
    ratio = round(max(failures), 3) if failures else 0.0
    return ratio, {
        "sampler_oom_logs": len(failures),
        "started_below_ratio": sum(r <= ratio and not f for r, f in labelled),
        "started_above_ratio": sum(r > ratio and not f for r, f in labelled),
        "failed_below_1": sum(r < 1 and f for r, f in labelled),
    }


def _unique(rows: list[ActivationRow]) -> list[ActivationRow]:
    seen: dict[tuple[Any, ...], ActivationRow] = {}
    for row in rows:
        seen.setdefault(row.key, row)
    return list(seen.values())


def _estimate_bytes(case: Case, request: PlanRequest, result: PlanResult, profile: VllmProfile) -> float:
    """The graph estimate of the printing rank: printed, else predicted with ``profile``'s constants. On unified
    memory always the predicted one: the printed figure there is a free-memory drift the planner does not predict
    (:func:`graph_point`), so what a start-up's budget leaves beyond the prediction belongs to the unified-memory
    term fitted from it, as it will when that term is applied."""
    printed = case["reported"].get("cuda_graph_estimate_gib")
    if printed is not None and not vllm_platform(request.gpu).integrated:
        return float(printed) * GiB
    layers = result.stages[0].layers
    return profile.cudagraph_estimate_bytes(layers[1] - layers[0], graphs_of(request, profile))


def _activation_rows(vllm: list[VllmCase], probe: VllmConstants) -> list[ActivationRow]:
    """The torch peak of 0.19-style logs, and the transient peak of >= 0.27 logs ("peak activation" less the graph
    estimate it includes: gpu_worker.py peak_activation_memory = transient + estimate applied)."""
    rows = []
    for c, q, r, p in vllm:
        reported = c["reported"]
        if reported.get("activation_peak_gib") is not None:
            rows.append(ActivationRow(c, q, r, p, float(reported["activation_peak_gib"])))
        elif reported.get("transient_plus_graphs_gib") is not None:
            fitted = p.model_copy(update={"constants": probe})
            in_budget = p.graphs_in_budget(q.model, q.resolved_weights)
            target = float(reported["transient_plus_graphs_gib"]) - (
                _estimate_bytes(c, q, r, fitted) / GiB if in_budget else 0.0
            )
            if target > 0:  # a peak below nothing means the graph estimate taken off it is wrong, not the peak
                rows.append(ActivationRow(c, q, r, p, target, transient=True))
    return _unique(rows)


def _non_torch_points(vllm: list[VllmCase], probe: VllmConstants) -> list[NonTorchPoint]:
    """Printed non-torch figures; from 0.27 consumed less weights; from 0.20, for logs that print neither, what
    their KV budget leaves after the weights, the activation peak and the graph estimate."""
    points = []
    for c, q, r, p in vllm:
        reported = c["reported"]
        platform = vllm_platform(q.gpu)
        fitted = p.model_copy(update={"constants": probe})
        total = engine_total_bytes(q)
        stage = vllm_stage(q, r, fitted, 0, total)
        weights = reported.get("weights_gib")
        weights_bytes = float(weights) * GiB if weights is not None else stage.weights
        gib = reported.get("non_torch_gib")
        if gib is None and reported.get("consumed_gib") is not None:
            gib = float(reported["consumed_gib"]) - weights_bytes / GiB
        if gib is None and p.version >= (0, 20, 0) and p.kv_cache_memory_bytes is None:
            kv, _ = printed_kv(c, q, r, fitted)
            if kv is not None:
                graph = _estimate_bytes(c, q, r, fitted) if p.graphs_in_budget(q.model, q.resolved_weights) else 0
                budget = math.floor(p.utilization * total)
                gib = (budget - kv * GiB - weights_bytes - stage.activation - graph) / GiB
        if gib is not None:
            gib -= fitted.persistent_bytes(result_context(q, r, 0, total)) / GiB  # derived, not fitted
            points.append(
                NonTorchPoint(
                    p.engine_version,
                    r.tensor_parallel,
                    r.pipeline_parallel,
                    platform,
                    float(gib),
                    weights_bytes / GiB,
                    p.enforce_eager,
                    p.reads_ahead,
                    encoder_item_tokens(q.model) if p.is_v1 and p.loads_encoder(q.model) else 0,
                )
            )
    return points


def fit(cases: list[Case], encoder_share: bool = True, windows_share: bool = True) -> VllmConstants:
    """Every fitted vLLM constant from ``cases`` (any subset of the public cases): the graph terms, then the
    activation terms (which need the graph estimate for >= 0.27 logs), then the non-torch memory (which needs both
    for the logs that print only their KV budget). ``encoder_share`` (shipped): the encoder's non-torch amount fitted
    in place of the desktop share (:mod:`bench.share_split`; False: the model before 2026-12-07); ``windows_share``
    (shipped): with it, the Windows share fitted on the Windows start-ups among ``cases``
    (:func:`fit_windows_share`, :mod:`bench.windows_split`)."""
    vllm = list(_vllm_cases(cases))
    estimate, capture = graph_fit(vllm)
    held = [c for c in cases if (s := setup_of(c)).not_fitted and ESTIMATE in s.fitted_figures]
    sm100 = sm100_graph_fit(vllm + list(_vllm_cases(held, ESTIMATE)), estimate)
    hip_estimate, hip_capture = hip_graph_fit(vllm)
    graphs = {
        "hip_graph_bytes": hip_estimate,
        "hip_graph_capture_bytes": hip_capture,
        "graph_estimate_base": estimate[0],
        "graph_estimate_per_layer": estimate[1],
        "graph_estimate_per_graph_layer": estimate[2],
        "graph_estimate_sm100": sm100,
        "graph_capture_base": capture[0],
        "graph_capture_per_layer": capture[1],
        "graph_capture_per_graph_layer": capture[2],
        "graph_capture_hopper": capture[3],
    }
    theta, activation_stats = fit_activation(_activation_rows(vllm, base_constants(**graphs)))
    activation = {
        "forward_bytes_per_hidden": round(theta["forward_bytes_per_hidden"], 4),
        "sampler_copies": {k: round(theta[k], 4) for k in SAMPLER_KINDS if k in theta},
        "encoder_bytes": round(theta.get("encoder_bytes", 0.0)),
    }
    points = _non_torch_points(vllm, base_constants(**graphs, **activation))
    eras, uma_shares, graphics_extra = fit_non_torch(points, encoder_share)
    encoder_non_torch = fit_encoder_non_torch(points, base_constants(non_torch=list(eras))) if encoder_share else 0
    cdna3 = [(p.version, p.gib) for p in points if p.platform.cdna3 and p.tp == 1 and p.pp == 1]
    base_tp1, base_tp = init_baselines(vllm)
    constants = VllmConstants(
        **activation,
        **graphs,
        non_torch=eras,
        uma_weights_share=uma_shares.read_ahead,
        uma_weights_share_lazy=uma_shares.lazy,
        graphics_extra=graphics_extra,
        encoder_non_torch=encoder_non_torch,
        cdna3_non_torch=cdna3_non_torch(cdna3, base_constants(non_torch=list(eras))),
        init_baseline_tp1=base_tp1,
        init_baseline_tp=base_tp,
        sampler_risk_ratio=0.0,
        fit={"activation": activation_stats},
    )
    ratio, counts = risk_ratio(_sampler_labels(vllm, constants))
    fit_stats = {**constants.fit, "sampler_oom": counts}
    windows = fit_windows_share(cases, constants) if encoder_share and windows_share else 0.0
    update = {"sampler_risk_ratio": ratio, "fit": fit_stats, "windows_weights_share": windows}
    return constants.model_copy(update=update)


def windows_cases(cases: Iterable[Case]) -> list[Case]:
    """The vLLM cases planned with ``--host windows`` (WSL2, Docker Desktop), held out or not."""
    return [c for c in cases if (d := setup_of(c).deployment) and d.get("host") == "windows"]


def fit_windows_share(cases: list[Case], probe: VllmConstants) -> float:
    """``VllmConstants.windows_weights_share`` (:mod:`planner.engines.vllm.windows_share`): the median over the V1
    start-ups under Windows among ``cases`` (the blind ones too: no other term is fitted on them) of what each rank's
    non-torch figure (printed, or what its KV budget leaves) holds beyond ``probe``'s, planned on that host, as a
    share of the weights the rank loaded (printed "Model loading took", else planned), as unified memory's
    :func:`bench.calibrate_terms.uma_shares`."""
    unblind = [{**c, "setup": {k: v for k, v in c["setup"].items() if k != "not_fitted"}} for c in windows_cases(cases)]
    points = _non_torch_points(list(_vllm_cases(unblind)), probe.model_copy(update={"windows_weights_share": 0.0}))
    shares = [
        (p.gib - VllmProfile(engine_version=p.version, constants=probe).non_torch_bytes(p.tp, p.pp, p.platform) / GiB)
        / p.weights_gib
        for p in points
        if p.weights_gib > 0
    ]
    return max(0.0, round(statistics.median(shares), 4)) if shares else 0.0


def _sampler_labels(vllm: list[VllmCase], constants: VllmConstants) -> list[tuple[float, bool]]:
    """(post-capture free memory / sampler warm-up peak, failed there) for the 0.19 start-ups that printed their
    KV budget: the ones that started and the ones that ran out of memory warming up the sampler."""
    labels = []
    for case, request, result, profile in vllm:
        if case["reported"].get("kv_cache_gib") is None or not profile.rules.v1 or profile.enforce_eager:
            continue
        failed = "warming up sampler" in " ".join(case.get("verbatim", []))
        if case.get("failed") and not failed:
            continue
        fitted = profile.model_copy(update={"constants": constants})
        stages = [
            vllm_stage(request, result, fitted, i, engine_total_bytes(request)) for i in range(len(result.stages))
        ]
        free, need = sampler_headroom(request, result, fitted, stages[-1])
        if need > 0:
            labels.append((free / need, failed))
    return labels


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def to_toml(constants: VllmConstants) -> str:
    """``fitted.toml`` (the layout :func:`planner.engines.vllm.versions.constants_from_data` reads)."""
    lines = [
        "# Written by `make calibrate` (bench/calibrate.py) from the public start-up logs in tests/; do not edit.",
        "[constants]",
    ]
    data = constants.model_dump(exclude={"non_torch", "fit", "sampler_copies"})
    lines += [f"{k} = {_toml_value(v)}" for k, v in data.items()]
    lines += ["", "[constants.sampler_copies]"]
    lines += [f"{_toml_value(k)} = {_toml_value(v)}" for k, v in constants.sampler_copies.items()]
    for era in constants.non_torch:
        fields = era.model_dump(exclude_none=True).items()
        lines += ["", "[[non_torch]]"] + [f"{k} = {_toml_value(v)}" for k, v in fields]
    for section, stats in constants.fit.items():
        lines += ["", f"[fit.{section}]"] + [f"{k} = {_toml_value(_rounded(v))}" for k, v in stats.items()]
    return "\n".join(lines) + "\n"


def _rounded(value: Any) -> Any:
    return round(value, 4) if isinstance(value, float) else value


def describe(constants: VllmConstants, out: Callable[[str], Any] = print) -> None:
    c = constants
    out(f"forward: {c.forward_bytes_per_hidden:.3f} B/hidden + 6 B/MLP unit")
    out(f"sampler copies: {c.sampler_copies}; encoder {c.encoder_bytes / GiB:.3f} GiB")
    for era in c.non_torch:
        out(
            f"non-torch from {era.since}: tp1 {era.tp1 / GiB:.3f}, tp2 {era.tp2 / GiB:.3f}, "
            f"tp2 nccl {(era.tp2_nccl or 0) / GiB:.3f}, +{era.per_extra_rank / GiB:.3f}/rank, pp {era.pp / GiB:.3f} "
            f"GiB ({era.evidence})"
        )
    out(
        f"graph estimate {c.graph_estimate_base / GiB:.3f} + {c.graph_estimate_per_layer / GiB:.4f}/layer + "
        f"{c.graph_estimate_per_graph_layer / 2**20:.3f} MiB/layer/graph ({c.graph_estimate_sm100 / 2**20:.3f} on "
        f"compute capability 10.x); capture {c.graph_capture_base / GiB:.3f} + "
        f"{c.graph_capture_per_layer / GiB:.4f}/layer + {c.graph_capture_per_graph_layer / 2**20:.3f} MiB/layer/graph "
        f"(+{c.graph_capture_hopper / GiB:.3f} on Hopper)"
    )
    out(
        f"init baseline {constants.init_baseline_tp1 / GiB:.2f} / {constants.init_baseline_tp / GiB:.2f} GiB; "
        f"sampler risk ratio {constants.sampler_risk_ratio:.2f}; fit {constants.fit}"
    )


def evidence(cases: list[Case]) -> dict[str, dict[str, int]]:
    """Per engine and release, how many in-scope public logs the fixtures hold."""
    counts: dict[str, dict[str, int]] = {}
    for case in cases:
        setup = setup_of(case)
        if setup.out_of_scope:
            continue
        version = str(setup.profile.get("engine_version") or get_engine(setup.engine).profile().engine_version)
        per_engine = counts.setdefault(setup.engine, {})
        per_engine[version] = per_engine.get(version, 0) + 1
    return {e: dict(sorted(v.items(), key=lambda kv: parse_version(kv[0]))) for e, v in sorted(counts.items())}


def evidence_toml(counts: dict[str, dict[str, int]]) -> str:
    lines = [
        "# Written by `make calibrate` (bench/calibrate.py): public start-up logs per engine and release in tests/."
    ]
    for engine, versions in counts.items():
        lines += ["", f"[{engine}]"] + [f"{_toml_value(v)} = {n}" for v, n in versions.items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.calibrate", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fit and print; fail if fitted.toml differs")
    args = parser.parse_args(argv)
    cases = load_cases()
    constants = fit(cases)
    describe(constants, lambda line: print(line, file=sys.stderr))
    outputs = {FITTED_PATH: to_toml(constants), EVIDENCE_PATH: evidence_toml(evidence(cases))}
    for path, text in outputs.items():
        name = path.relative_to(FITTED_PATH.parents[3])
        if args.check:
            if path.read_text(encoding="utf-8") != text:
                print(f"{name} is not what `make calibrate` writes", file=sys.stderr)
                return 1
            continue
        path.write_text(text, encoding="utf-8")
        print(f"{name}: written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
