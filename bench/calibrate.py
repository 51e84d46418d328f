"""Fit the vLLM constants the engine's source does not fix, from the public start-up logs, by the terms the logs
print (``make calibrate`` = ``python -m bench.calibrate``; writes ``planner/engines/vllm/fitted.toml``).

- activation (``torch peak memory increase``): ``pp + max(forward, sampler) + persistent MoE workspace +
  encoder`` (:mod:`planner.engines.vllm.profile`), linear in the fitted coefficients once it is known which
  branch of the max holds. Alternating least squares: assign each case to its larger branch, solve the linear
  least squares, repeat until the assignment is stable. Unknowns: bytes per hidden and per MLP unit of the
  forward, fp32 copies of each sampler kind with evidence, and the multimodal encoder term;
- non-torch memory: the median of the printed figures per release era and TP/PP class;
- CUDA graphs: ``base + per layer x layers`` least squares on the printed estimate and on the captured size;
- the worker's baseline before its memory snapshot: the median printed ``cuda_memory`` at init;
- the sampler warm-up risk ratio: the largest post-capture free / sampler peak at which a logged warm-up still ran
  out of memory (the report warns below it; it fails only below 1, where the warm-up cannot fit at all).

Only cases with the printed term enter each fit; KV is never fitted directly. :func:`fit` takes any subset of
cases (the leave-one-family-out errors of ``make fidelity`` refit without each family).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from bench.fidelity_cases import build_request, load_cases, setup_of
from planner.bounds.errors import PlannerError
from planner.core.overhead import parse_version
from planner.core.units import GiB
from planner.engines.base import engine_total_bytes
from planner.engines.evidence import EVIDENCE_PATH
from planner.engines.registry import get_engine
from planner.engines.vllm.blocks import stage_context
from planner.engines.vllm.failures import sampler_headroom
from planner.engines.vllm.profile import VllmProfile, is_multimodal
from planner.engines.vllm.versions import FITTED_PATH, NonTorchEra, VllmConstants
from planner.planning.plan import PlanRequest, plan
from planner.planning.results import PlanResult

# Release eras of non-torch memory: the version sweep prints 0.13 GiB at 0.15-0.17 and 0.25 GiB from 0.18.
NON_TORCH_ERAS = ("0.8.0", "0.18.0")
SAMPLER_KINDS = ("native-sort", "triton")
START = {  # the starting point of the alternating least squares
    "forward_bytes_per_hidden": 4.0,
    "native-sort": 9.6,
    "triton": 3.7,
    "encoder_bytes": 0.0,
}
Case = dict[str, Any]


def _base_constants(**changes: Any) -> VllmConstants:
    """Constants for feature extraction: every fitted term zero unless changed."""
    data: dict[str, Any] = {
        "forward_bytes_per_hidden": 0.0,
        "sampler_copies": {kind: 0.0 for kind in (*SAMPLER_KINDS, "flashinfer")},
        "encoder_bytes": 0,
        "non_torch": [NonTorchEra(since="0.0.0", tp1=0, tp2=0, pp=0)],
        "graph_estimate_base": 0,
        "graph_estimate_per_layer": 0,
        "graph_capture_base": 0,
        "graph_capture_per_layer": 0,
        "init_baseline_tp1": 0,
        "init_baseline_tp": 0,
        "sampler_risk_ratio": 0.0,
    }
    data.update(changes)
    return VllmConstants.model_validate(data)


class _Row:
    """One case's activation features on the printing rank (stage 0)."""

    def __init__(self, case: Case, request: PlanRequest, result: PlanResult, profile: VllmProfile) -> None:
        ctx = stage_context(request, result, 0, engine_total_bytes(request))
        tokens, seqs = profile.batch(ctx.gpu_memory_bytes, ctx.gpu_name, result.max_model_len)
        kind = profile.sampler_kind

        def terms(**changes: Any) -> Any:
            return profile.model_copy(update={"constants": _base_constants(**changes)}).terms(
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
        self.y = case["reported"]["activation_peak_gib"] * GiB
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


def _vllm_cases(cases: Iterable[Case]) -> Iterable[tuple[Case, PlanRequest, PlanResult, VllmProfile]]:
    for case in cases:
        setup = setup_of(case)
        if setup.engine != "vllm" or setup.out_of_scope:
            continue
        try:
            request = build_request(case, setup)
            result = plan(request)
        except PlannerError:
            continue
        profile = request.overhead
        if isinstance(profile, VllmProfile) and profile.is_v1:
            yield case, request, result, profile


def fit_activation(rows: list[_Row]) -> tuple[dict[str, float], dict[str, Any]]:
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


def _median_bytes(values: list[float]) -> int | None:
    return round(statistics.median(values) * GiB) if values else None


def fit_non_torch(triples: list[tuple[str, int, int, float]]) -> tuple[NonTorchEra, ...]:
    """Medians of the printed non-torch figures (version, tp, pp, GiB) per era and TP/PP class; an era without
    a class's figures takes the nearest earlier (else later) era's, and says so."""
    found: list[dict[str, Any]] = []
    for i, since in enumerate(NON_TORCH_ERAS):
        until = NON_TORCH_ERAS[i + 1] if i + 1 < len(NON_TORCH_ERAS) else "999.0.0"
        inside = [t for t in triples if parse_version(since) <= parse_version(t[0]) < parse_version(until)]
        tp1 = [g for _, tp, pp, g in inside if tp == 1 and pp == 1]
        tp2 = [g for _, tp, pp, g in inside if tp == 2]
        extra = [(g - statistics.median(tp2)) / (tp - 2) for _, tp, _, g in inside if tp > 2 and tp2]
        pps = [g for _, tp, pp, g in inside if tp == 1 and pp > 1]
        found.append(
            {
                "since": since,
                "tp1": _median_bytes(tp1),
                "tp2": _median_bytes(tp2),
                "per_extra_rank": _median_bytes(extra),
                "pp": _median_bytes(pps),
                "counts": (len(tp1), len(tp2), len(extra), len(pps)),
            }
        )
    eras = []
    for i, era in enumerate(found):
        notes = [f"cases tp1/tp2/tp>2/pp: {'/'.join(map(str, era['counts']))}"]
        values: dict[str, int] = {}
        for field in ("tp1", "tp2", "per_extra_rank", "pp"):
            order = [*reversed(found[:i]), *found[i + 1 :]]
            donor = next((e for e in order if e[field] is not None), None) if era[field] is None else era
            values[field] = donor[field] if donor and donor[field] is not None else 0
            if donor is not era:
                notes.append(f"{field} from era {donor['since'] if donor else '-'} (no figure in this era)")
        eras.append(NonTorchEra(since=era["since"], evidence="; ".join(notes), **values))
    return tuple(eras)


def fit_line(points: list[tuple[float, float]]) -> tuple[int, int]:
    """``(base, per_unit)`` bytes from (units, GiB) points by least squares (one point: through the origin)."""
    if not points:
        return 0, 0
    if len({x for x, _ in points}) < 2:
        return 0, round(statistics.median(y / x for x, y in points) * GiB)
    a = np.array([[1.0, x] for x, _ in points])
    base, slope = np.linalg.lstsq(a, np.array([y for _, y in points]), rcond=None)[0]
    return round(float(base) * GiB), round(float(slope) * GiB)


_CUDA_MEMORY = re.compile(r"cuda_memory=(\d{1,3}\.\d{1,3})GiB")


def init_baselines(cases: list[tuple[Case, PlanRequest, PlanResult, VllmProfile]]) -> tuple[int, int]:
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
    return _median_bytes(single) or round(0.5 * GiB), _median_bytes(multi) or round(1.5 * GiB)


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


def _unique(rows: list[_Row]) -> list[_Row]:
    seen: dict[tuple[Any, ...], _Row] = {}
    for row in rows:
        seen.setdefault(row.key, row)
    return list(seen.values())


def fit(cases: list[Case]) -> VllmConstants:
    """Every fitted vLLM constant from ``cases`` (any subset of the public cases)."""
    vllm = list(_vllm_cases(cases))
    printed = [(c, q, r, p) for c, q, r, p in vllm if c["reported"].get("activation_peak_gib") is not None]
    rows = _unique([_Row(c, q, r, p) for c, q, r, p in printed])
    theta, activation_stats = fit_activation(rows)
    triples = [
        (p.engine_version, r.tensor_parallel, r.pipeline_parallel, c["reported"]["non_torch_gib"])
        for c, _, r, p in vllm
        if c["reported"].get("non_torch_gib") is not None
    ]
    layers = [(r.stages[0].layers[1] - r.stages[0].layers[0], c["reported"], p) for c, _, r, p in vllm]
    estimate = fit_line(
        [(n, rep["cuda_graph_estimate_gib"]) for n, rep, _ in layers if rep.get("cuda_graph_estimate_gib")]
    )
    recent = [(n, rep, p) for n, rep, p in layers if p.version >= (0, 18, 0)]  # captures after KV sizing
    capture = fit_line([(n, rep["cuda_graph_gib"]) for n, rep, _ in recent if rep.get("cuda_graph_gib")])
    base_tp1, base_tp = init_baselines(vllm)
    constants = VllmConstants(
        forward_bytes_per_hidden=round(theta["forward_bytes_per_hidden"], 4),
        sampler_copies={k: round(theta[k], 4) for k in SAMPLER_KINDS if k in theta},
        encoder_bytes=round(theta.get("encoder_bytes", 0.0)),
        non_torch=fit_non_torch(triples),
        graph_estimate_base=estimate[0],
        graph_estimate_per_layer=estimate[1],
        graph_capture_base=capture[0],
        graph_capture_per_layer=capture[1],
        init_baseline_tp1=base_tp1,
        init_baseline_tp=base_tp,
        sampler_risk_ratio=0.0,
        fit={"activation": activation_stats},
    )
    ratio, counts = risk_ratio(_sampler_labels(vllm, constants))
    fit_stats = {**constants.fit, "sampler_oom": counts}
    return constants.model_copy(update={"sampler_risk_ratio": ratio, "fit": fit_stats})


def _sampler_labels(
    vllm: list[tuple[Case, PlanRequest, PlanResult, VllmProfile]], constants: VllmConstants
) -> list[tuple[float, bool]]:
    """(post-capture free memory / sampler warm-up peak, failed there) for the 0.19 start-ups that printed their
    KV budget: the ones that started and the ones that ran out of memory warming up the sampler."""
    from planner.engines.vllm.blocks import vllm_stage

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
        lines += ["", "[[non_torch]]"] + [f"{k} = {_toml_value(v)}" for k, v in era.model_dump().items()]
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
            f"+{era.per_extra_rank / GiB:.3f}/rank, pp {era.pp / GiB:.3f} GiB ({era.evidence})"
        )
    out(
        f"graph estimate {c.graph_estimate_base / GiB:.3f} + {c.graph_estimate_per_layer / GiB:.4f}/layer GiB; "
        f"capture {c.graph_capture_base / GiB:.3f} + {c.graph_capture_per_layer / GiB:.4f}/layer GiB"
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
