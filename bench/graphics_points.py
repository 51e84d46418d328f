"""The desktop cards' fitted share (``VllmConstants.graphics_extra``) start-up by start-up (issue 20): for every
compiled vLLM V1 start-up from 0.20 at TP 1 on a desktop GeForce / RTX card with a KV figure, fitted or held out,
what share its printed KV implies beside the set-up's features, and how each feature splits them.

``python -m bench.graphics_points`` prints one row per start-up, sorted by the implied share, then one line per
feature (the median and quartiles of the implied share on each side). The implied share is the share planned plus
the in-sample KV error (planned - printed): what the share would have to be for the planned KV to equal the printed
one, every other term as planned. ``bench.calibrate_terms._graphics_extra`` fits the share as the median of the
same quantity over the fitted start-ups alone (their non-torch figure less the era's base), 17 of the rows here;
the held-out blind sets are the other rows (docs/fidelity.md, 'Graphics dies').

The features: the release, the card, the host (:func:`bench.split_audit.host_of`), the compile cache the case
states (``VllmProfile.compile_cache``; warm when not stated), the model runner (Model Runner V2's sampler, or V1's),
whether the KV budget loses a CUDA-graph estimate (:meth:`VllmProfile.graphs_in_budget`), ``max_num_seqs`` and the
profile's batched tokens (:meth:`VllmProfile.batch`), the weights format, the hidden size, the vocabulary and whether
the profile runs the vision encoder (:meth:`VllmProfile.loads_encoder`). Each row also gives the cold compile's copy:
how much less KV the plan gives when the same start-up is planned with a cold torch.compile cache
(:mod:`planner.engines.vllm.compile_copy`; 0 where the case states its cache or no copy is planned), and the last
lines split the share less that copy (docs/fidelity.md, 'The share decomposed').
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from bench.fidelity import run_case
from bench.fidelity_cases import build_request, load_cases, setup_of
from bench.split_audit import host_of
from planner.bounds.errors import PlannerError
from planner.core.units import GiB
from planner.engines.platform import vllm_platform
from planner.engines.registry import engine_report
from planner.engines.vllm.profile import VllmProfile
from planner.planning.context import speculative_method
from planner.planning.plan import plan
from planner.planning.request import PlanRequest

Case = dict[str, Any]


class SharePoint(NamedTuple):
    """One compiled TP 1 start-up on a desktop card: its features, the share planned and its KV error (GiB)."""

    id: str
    release: str
    gpu: str
    host: str
    fitted: bool  # enters `make calibrate` (not a held-out blind case)
    compile_cache: str
    runner: str  # "v2": Model Runner V2; "v1"
    graphs_in_budget: bool
    seqs: int
    tokens: int
    weights: str
    hidden: int
    vocab: int
    encoder: bool  # the profile runs the vision encoder on its largest dummy item
    cold_copy: float  # KV the plan loses when planned cold (GiB; 0 where the case states its compile cache)
    applied: float  # the share planned
    error: float  # in-sample KV error, planned - printed

    @property
    def implied(self) -> float:
        """The share the printed KV implies, every other term as planned."""
        return self.applied + self.error

    @property
    def implied_cold(self) -> float:
        """The implied share left when a start-up that does not state its compile cache is planned cold."""
        return self.implied - self.cold_copy


def cold_copy_gib(request: PlanRequest, kv_bytes: int) -> float:
    """How much less KV (GiB) ``request`` is planned with when its compile cache is cold, where its profile plans it
    warm without the case saying so (``kv_bytes``: the KV planned as given); 0 where the case states it."""
    profile = request.overhead
    if not isinstance(profile, VllmProfile) or "compile_cache" in profile.model_fields_set:
        return 0.0
    cold = request.model_copy(update={"overhead": profile.model_copy(update={"compile_cache": "cold"})})
    return (kv_bytes - engine_report(cold, plan(cold)).available_kv_cache_bytes_per_gpu) / GiB


def share_point(case: Case) -> SharePoint | None:
    """``case`` as a :class:`SharePoint`, or None when it is not a compiled TP 1 V1 start-up on a desktop card from
    0.20 with a KV figure."""
    setup = setup_of(case)
    if setup.engine != "vllm" or setup.out_of_scope:
        return None
    try:
        request = build_request(case, setup)
        result = plan(request)
    except PlannerError:
        return None
    profile, gpu, platform = request.overhead, request.gpu, vllm_platform(request.gpu)
    single = result.tensor_parallel == 1 and result.pipeline_parallel == 1
    if not isinstance(profile, VllmProfile) or gpu is None or not platform.desktop_card or not single:
        return None
    if not profile.is_v1 or profile.enforce_eager or profile.version < (0, 20, 0):
        return None
    error = run_case(case).kv_error_gib
    if error is None:
        return None
    model, weights = request.model, request.resolved_weights
    tokens, seqs = profile.batch(request.gpu_memory_bytes, gpu.name, request.max_model_len, model)
    return SharePoint(
        id=case["id"],
        release=profile.engine_version,
        gpu=gpu.id,
        host=host_of(case, True, platform.integrated, platform.runtime),
        fitted=setup.not_fitted is None,
        compile_cache=profile.compile_cache,
        runner="v2" if profile.runs_v2(model, weights, speculative_method(request)) else "v1",
        graphs_in_budget=profile.graphs_in_budget(model, weights, speculative_method(request)),
        seqs=seqs,
        tokens=tokens,
        weights=weights,
        hidden=model.hidden_size or 0,
        vocab=model.vocab_size or 0,
        encoder=profile.loads_encoder(model),
        cold_copy=cold_copy_gib(request, engine_report(request, result).available_kv_cache_bytes_per_gpu),
        applied=profile.graphics_compile_bytes(1, platform) / GiB,
        error=error,
    )


def share_points(cases: Iterable[Case] | None = None) -> list[SharePoint]:
    """Every :class:`SharePoint` of ``cases`` (default: every case), sorted by the implied share."""
    found = (share_point(c) for c in (load_cases() if cases is None else cases))
    return sorted((p for p in found if p is not None), key=lambda p: p.implied)


FEATURES: dict[str, Callable[[SharePoint], bool]] = {
    "release >= 0.29": lambda p: p.release >= "0.29",
    "RTX 5090 / PRO 6000 (sm120)": lambda p: p.gpu.startswith(("rtx-5090", "rtx-pro-6000")),
    "RTX 3090 / A5000 (sm86)": lambda p: p.gpu in ("rtx-3090", "rtx-a5000"),
    "WSL2 / Docker Desktop": lambda p: p.host == "wsl2",
    "rented / VM / headless": lambda p: p.host == "rented",
    "cold compile stated": lambda p: p.compile_cache == "cold",
    "Model Runner V2": lambda p: p.runner == "v2",
    "graph estimate in budget": lambda p: p.graphs_in_budget,
    "max_num_seqs <= 16": lambda p: p.seqs <= 16,
    "batched tokens >= 4096": lambda p: p.tokens >= 4096,
    "4-bit weights": lambda p: p.weights.startswith(("int4", "nvfp4")),
    "hidden >= 5120": lambda p: p.hidden >= 5120,
    "vocabulary 248,320 (Qwen3.5+)": lambda p: p.vocab == 248_320,
    "held out (blind sets)": lambda p: not p.fitted,
    "vision encoder profiled": lambda p: p.encoder,
}


def _spread(values: list[float]) -> str:
    ordered = sorted(values)
    n = len(ordered)
    return f"n={n:2} median {statistics.median(ordered):+.2f} ({ordered[n // 4]:+.2f} to {ordered[3 * n // 4]:+.2f})"


def feature_lines(points: list[SharePoint], cold: bool = False) -> list[str]:
    """One line per :data:`FEATURES` entry: the implied share (``cold``: less the cold compile's copy) where it holds
    and where it does not."""
    lines = []
    for name, holds in FEATURES.items():
        yes = [p.implied_cold if cold else p.implied for p in points if holds(p)]
        no = [p.implied_cold if cold else p.implied for p in points if not holds(p)]
        if yes and no:
            lines.append(f"{name:30} yes {_spread(yes)} | no {_spread(no)}")
    return lines


def row(p: SharePoint) -> str:
    """One start-up's line."""
    return (
        f"{p.implied:+.2f} {p.error:+.2f} {p.release:7} {p.gpu[:12]:12} {p.host:8} {'fit ' if p.fitted else 'held'} "
        f"{p.compile_cache:4} {p.runner} {'budget' if p.graphs_in_budget else 'after '} seqs={p.seqs:<4} "
        f"tok={p.tokens:<5} {p.weights[:14]:14} H={p.hidden:<5} {'enc' if p.encoder else '   '} "
        f"copy={p.cold_copy:.2f} {p.id}"
    )


def main() -> int:
    points = share_points()
    print("implied share, KV error (GiB), release, card, host, fitted, compile cache, runner, graph estimate, ...")
    for p in points:
        print(row(p))
    print()
    print(f"all: {_spread([p.implied for p in points])}")
    print(f"fitted: {_spread([p.implied for p in points if p.fitted])}")
    for line in feature_lines(points):
        print(line)
    print()
    print("less a cold compile's copy where the case does not state its cache:")
    print(f"all: {_spread([p.implied_cold for p in points])}")
    for line in feature_lines(points, cold=True):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
