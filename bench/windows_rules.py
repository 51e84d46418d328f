"""Which form of the Windows term transfers (issue 20; docs/fidelity.md, 'The Windows term's form, held out by source
and by release'): what each vLLM start-up planned ``--host windows`` holds beyond Linux's non-torch figure
(:func:`bench.calibrate.fit_windows_share`'s points), against six forms fitted on the other start-ups: none, an
amount per process, a share of the weights the rank loaded (shipped, :mod:`planner.engines.vllm.windows_share`), an
amount per decoder layer (vLLM loads a fixed number of weight tensors a layer, each of 10 MiB or more its own
caching-allocator segment, :mod:`planner.engines.vllm.allocator`: the per-tensor / per-allocation form), a share of
every byte torch asked CUDA for by the profile's end (the weights and the planned activation peak: a per-byte form)
and an affine form in the weights. Each is scored by the median |excess - predicted| (GiB, what it moves the KV
budget by) in sample, by :func:`bench.windows_split.halves`, with each source held out in turn, and with each release
held out in turn.

Beside them, the records of :data:`RECORDS`: Windows start-ups that print their own split but cannot be planned (a
card the catalog lacks), read the same way with the placeholder card the case names (the non-torch figure does not
read the card's memory) and fitted on by no form.

``python -m bench.windows_rules`` prints the points, the five forms and the records.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from bench.calibrate import _non_torch_points, _vllm_cases, windows_cases
from bench.calibrate_graphs import VllmCase
from bench.fidelity_cases import load_cases
from bench.windows_split import halves, source_of
from planner.core.units import GiB
from planner.engines.base import engine_total_bytes
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.stage import vllm_stage
from planner.engines.vllm.versions import VllmConstants, fitted_constants

Case = dict[str, Any]
# A WSL2 RTX 4080 (not in the catalog) under vLLM 0.26.0 with VLLM_WSL2_ENABLE_PIN_MEMORY=1, printing its split
# (search-index file id 57428438798): 5.29 GiB of weights, 0.06 of non-torch memory.
RECORDS = ("vllm-0.26-rtx4080-wsl2-qwen25-7b-instruct-awq-32k-util090",)


class WindowsPoint(NamedTuple):
    """One Windows start-up's rank: what it holds beyond Linux's non-torch figure, and what the forms read."""

    id: str
    release: str
    weights_gib: float
    excess_gib: float
    layers: int
    activation_gib: float  # the planned activation peak of the profile run (torch's, beside the weights)
    source: str
    printed: bool  # the log prints its non-torch or consumed figure (else what its KV budget leaves)


def _unblind(case: Case, *keys: str) -> Case:
    return {**case, "setup": {k: v for k, v in case["setup"].items() if k not in keys}}


def _point(vllm: VllmCase, probe: VllmConstants) -> WindowsPoint | None:
    case, request, result, profile = vllm
    found = _non_torch_points([vllm], probe)
    if not found:
        return None
    p = found[0]
    linux = VllmProfile(engine_version=p.version, constants=probe).non_torch_bytes(p.tp, p.pp, p.platform) / GiB
    reported = case["reported"]
    printed = reported.get("non_torch_gib") is not None or reported.get("consumed_gib") is not None
    stage = vllm_stage(request, result, profile.model_copy(update={"constants": probe}), 0, engine_total_bytes(request))
    layers, activation = request.model.num_hidden_layers, stage.activation / GiB
    return WindowsPoint(
        case["id"], p.version, p.weights_gib, p.gib - linux, layers, activation, source_of(case), printed
    )


def points(cases: Iterable[Case], probe: VllmConstants | None = None) -> list[WindowsPoint]:
    """The Windows start-ups' points beyond ``probe``'s Linux figure (the shipped constants without the share)."""
    probe = (probe or fitted_constants()).model_copy(update={"windows_weights_share": 0.0})
    unblind = [_unblind(c, "not_fitted") for c in windows_cases(cases)]
    return [p for v in _vllm_cases(unblind) if (p := _point(v, probe)) is not None]


def records(cases: Iterable[Case]) -> list[WindowsPoint]:
    """:data:`RECORDS`' points, read as :func:`points` reads a start-up (out of scope: fitted by no form)."""
    probe = fitted_constants().model_copy(update={"windows_weights_share": 0.0})
    chosen = [_unblind(c, "not_fitted", "out_of_scope") for c in cases if c["id"] in RECORDS]
    return [p for v in _vllm_cases(chosen) if (p := _point(v, probe)) is not None]


Predict = Callable[[WindowsPoint], float]


def _ratio(pts: list[WindowsPoint], read: Callable[[WindowsPoint], float]) -> Predict:
    k = statistics.median(p.excess_gib / read(p) for p in pts)
    return lambda p: k * read(p)


def _affine(pts: list[WindowsPoint]) -> Predict:
    xs, ys = [p.weights_gib for p in pts], [p.excess_gib for p in pts]
    if len(set(xs)) < 2:
        return lambda p: statistics.median(ys)
    slope = statistics.covariance(xs, ys) / statistics.variance(xs)
    base = statistics.mean(ys) - slope * statistics.mean(xs)
    return lambda p: base + slope * p.weights_gib


FORMS: dict[str, Callable[[list[WindowsPoint]], Predict]] = {
    "none": lambda pts: lambda p: 0.0,
    "amount a process": lambda pts: _ratio(pts, lambda p: 1.0),
    "share of the weights (shipped)": lambda pts: _ratio(pts, lambda p: p.weights_gib),
    "amount a layer (per tensor)": lambda pts: _ratio(pts, lambda p: float(p.layers)),
    "share of weights + activation peak": lambda pts: _ratio(pts, lambda p: p.weights_gib + p.activation_gib),
    "affine in the weights": _affine,
}


def held_out(pts: list[WindowsPoint], form: str, group: Callable[[WindowsPoint], object]) -> dict[str, float]:
    """Each point's excess less what ``form`` fitted without its group predicts (GiB)."""
    errors = {}
    for key in {group(p) for p in pts}:
        predict = FORMS[form]([p for p in pts if group(p) != key])
        errors.update({p.id: p.excess_gib - predict(p) for p in pts if group(p) == key})
    return errors


def scores(pts: list[WindowsPoint], half: frozenset[str]) -> dict[str, tuple[float, float, float, float]]:
    """Per form: median |error| in sample, by halves (``half`` one of them), source out, release out (GiB)."""
    out = {}
    for form, fitter in FORMS.items():
        predict = fitter(pts)
        folds = [held_out(pts, form, g) for g in (lambda p: p.id in half, lambda p: p.source, lambda p: p.release)]
        halved, by_source, by_release = (statistics.median(abs(e) for e in f.values()) for f in folds)
        out[form] = (statistics.median(abs(p.excess_gib - predict(p)) for p in pts), halved, by_source, by_release)
    return out


def main() -> int:
    cases = load_cases()
    pts = points(cases)
    for p in pts:
        how = "printed" if p.printed else "KV-left"
        print(f"{p.release:7s} {p.weights_gib:6.2f} GiB {p.layers:3d} layers {p.excess_gib:+.2f} ({how}) {p.id}")
    print("form: in sample / halves / source out / release out (median |error| GiB)")
    for form, (ins, by_half, by_source, by_release) in scores(pts, halves()[0]).items():
        print(f"  {form}: {ins:.3f} / {by_half:.3f} / {by_source:.3f} / {by_release:.3f}")
    share = FORMS["share of the weights (shipped)"](pts)
    for p in records(cases):
        print(f"record {p.id}: {p.excess_gib:+.2f} beyond Linux's figure, the share plans {share(p):+.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
