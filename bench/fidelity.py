"""Engine fidelity: predicted start-up figures against every public engine log, in sample and cross-validated.

``python -m bench.fidelity`` (``make fidelity``) runs every case of :mod:`bench.fidelity_cases` through the
engine profiles and rewrites the tables between ``<!-- fidelity:start -->`` and ``<!-- fidelity:end -->`` in
docs/fidelity.md (``--check`` only prints them; ``make docs`` rewrites them with every other generated file).
Per engine and release it reports the KV error in sample (the shipped
constants of ``planner/engines/vllm/fitted.toml``, fitted on every log), leaving the release out and leaving the
model family out (the vLLM constants refitted by :func:`bench.calibrate.fit` without that release or family, then
its cases predicted), and whether each start-up's verdict (starts / does not, and why) matches the log; the tables
are :mod:`bench.fidelity_tables`. A log without a printed KV budget but with blocks or tokens is compared with the
budget they imply (:mod:`bench.derived`).
"""

from __future__ import annotations

import argparse
import sys
from functools import cache
from pathlib import Path
from typing import Any

from bench.calibrate import fit
from bench.derived import printed_kv
from bench.fidelity_cases import Setup, build_request, load_cases, setup_of
from bench.fidelity_result import CaseResult
from bench.fidelity_tables import family_rows, markdown, release_group, summary_rows
from bench.fidelity_unmatched import UNMATCHED
from planner.bounds.errors import PlannerError
from planner.core.units import GiB
from planner.engines.base import EngineReport
from planner.engines.registry import engine_report
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.versions import VllmConstants
from planner.planning.plan import plan

__all__ = [
    "UNMATCHED",
    "CaseResult",
    "family_rows",
    "markdown",
    "misses",
    "release_group",
    "run_all",
    "summary_rows",
    "update_readme",
]
ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "docs" / "fidelity.md"
START, END = "<!-- fidelity:start -->", "<!-- fidelity:end -->"
KV_TOLERANCE_GIB = 0.5
TOKEN_TOLERANCE = 0.03
TOKEN_CHECK_MIN_KV_GIB = 10.0


def reported_failure(case: dict[str, Any]) -> str | None:
    """The failure kind a case's log shows (or records), None when the engine started."""
    if case.get("failure_kind"):
        return str(case["failure_kind"])
    text = " ".join(case.get("verbatim", []))
    kv = case["reported"].get("kv_cache_gib")
    kinds = (
        ("on startup is less than desired", "free-memory"),
        ("warming up sampler", "sampler-oom"),
        ("is not divisible by", "tp-indivisible"),
        ("greater than the derived max_model_len", "max-model-len"),
        ("estimated maximum model length", "kv-cache-too-small"),
        ("is larger than the maximum number of tokens", "kv-cache-too-small"),
    )
    for marker, kind in kinds:
        if marker in text:
            return kind
    if kv is not None and kv <= 0:
        return "no-kv-memory"
    return "other" if case.get("failed") else None


def _report(case: dict[str, Any], setup: Setup, constants: VllmConstants | None = None) -> EngineReport:
    request = build_request(case, setup)
    if constants is not None and isinstance(request.overhead, VllmProfile):
        request = request.model_copy(update={"overhead": request.overhead.model_copy(update={"constants": constants})})
    return engine_report(request, plan(request))


def _printed_kv(case: dict[str, Any], setup: Setup) -> tuple[float | None, str]:
    """The KV budget the log gives, printed or derived (:mod:`bench.derived`; vLLM V1 only)."""
    reported = case["reported"].get("kv_cache_gib")
    if setup.engine != "vllm" or setup.out_of_scope:
        return reported, "printed" if reported is not None else ""
    try:
        request = build_request(case, setup)
        profile = request.overhead
        if not isinstance(profile, VllmProfile):
            return reported, "printed" if reported is not None else ""
        return printed_kv(case, request, plan(request), profile)
    except PlannerError:
        return reported, "printed" if reported is not None else ""


def _left_out_kv(case: dict[str, Any], setup: Setup, constants: VllmConstants | None, kv: float | None) -> float | None:
    if constants is None or kv is None:
        return None
    return _report(case, setup, constants).available_kv_cache_bytes_per_gpu / GiB


def run_case(
    case: dict[str, Any], constants: VllmConstants | None = None, release_constants: VllmConstants | None = None
) -> CaseResult:
    """One case in sample, and (vLLM V1) by the constants fitted without its family (``constants``) and without
    its release (``release_constants``)."""
    setup = setup_of(case)
    reported = case["reported"]
    report, error = None, None
    if not setup.out_of_scope:
        try:
            report = _report(case, setup)
        except PlannerError as exc:
            error = str(exc)
    kv, how = _printed_kv(case, setup) if report is not None else (reported.get("kv_cache_gib"), "printed")
    cv = _left_out_kv(case, setup, constants, kv) if report is not None else None
    loro = _left_out_kv(case, setup, release_constants, kv) if report is not None else None
    version = str(setup.profile.get("engine_version") or (report.engine_version if report else ""))
    return CaseResult(
        id=case["id"],
        engine=setup.engine,
        engine_version=version,
        family=setup.family,
        setup=setup,
        source=case["source"],
        reported_kv_gib=kv,
        reported_tokens=reported.get("kv_cache_tokens"),
        reported_blocks=reported.get("gpu_blocks"),
        reported_concurrency=reported.get("max_concurrency"),
        reported_failure=reported_failure(case),
        report=report,
        error=error,
        cv_kv_gib=cv,
        loro_kv_gib=loro,
        kv_how=how if kv is not None else "",
        reported_weights_gib=reported.get("weights_gib"),
    )


def _is_fitted(case: dict[str, Any]) -> bool:
    setup = setup_of(case)
    if setup.engine != "vllm" or setup.out_of_scope:
        return False
    try:
        profile = build_request(case, setup).overhead
    except PlannerError:
        return False
    return isinstance(profile, VllmProfile) and profile.is_v1


def case_release(case: dict[str, Any]) -> str:
    """``0.24`` for a case planned as 0.24.0 (the leave-one-release-out fold)."""
    version = str(setup_of(case).profile.get("engine_version") or case.get("engine_version") or "")
    major, minor, *_ = [*version.split("."), "0", "0"]
    return f"{major}.{minor}"


@cache
def run_all() -> tuple[CaseResult, ...]:
    """Every case in sample; vLLM V1 cases also predicted by constants refitted without their family and without
    their release (the folds are the families and the releases, fixed by the cases, not by the errors)."""
    cases = load_cases()
    fitted = [c for c in cases if _is_fitted(c)]
    families = sorted({setup_of(c).family for c in fitted})
    releases = sorted({case_release(c) for c in fitted})
    by_family = {f: fit([c for c in cases if setup_of(c).family != f]) for f in families}
    by_release = {r: fit([c for c in cases if case_release(c) != r]) for r in releases}
    return tuple(
        run_case(case, by_family[setup_of(case).family], by_release[case_release(case)])
        if _is_fitted(case)
        else run_case(case)
        for case in cases
    )


def misses(r: CaseResult) -> list[str]:
    """The targets case ``r`` misses: KV within 0.5 GiB (vLLM, SGLang, TensorRT-LLM), tokens within 3 % where
    the log's pool is at least 10 GiB (10 % below), vLLM's loaded weights within 0.5 GiB where printed, and the
    start-up verdict."""
    found = []
    if r.engine == "vllm" and r.weights_error_gib is not None and abs(r.weights_error_gib) > KV_TOLERANCE_GIB:
        found.append("weights")
    if r.kv_error_gib is not None and r.engine != "llamacpp" and abs(r.kv_error_gib) > KV_TOLERANCE_GIB:
        found.append("kv")
    if r.token_error is not None and r.reported_failure is None:
        big = r.reported_kv_gib is None or r.reported_kv_gib >= TOKEN_CHECK_MIN_KV_GIB
        if abs(r.token_error) > (TOKEN_TOLERANCE if big else 0.10):
            found.append("tokens")
    if r.verdict_right is False:
        found.append("verdict")
    return found


def update_readme(table: str, path: Path = README) -> None:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    block = f"{START}\n{table}\n{END}"
    if START in text and END in text:
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        text = head + block + tail
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + "## Engine fidelity\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fidelity", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="print the tables, do not touch docs/fidelity.md")
    args = parser.parse_args(argv)
    table = markdown(run_all())
    if args.check:
        print(table)
        return 0
    update_readme(table)
    print(f"docs/fidelity.md: fidelity tables updated ({table.count(chr(10)) + 1} lines)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
