"""The tables of ``make fidelity`` (README "Engine fidelity"): the headline for vLLM >= 0.22, per release and per
model family in sample and cross-validated (leave one release out, leave one family out), start-up verdicts,
the release rules, and every case."""

from __future__ import annotations

import statistics

from bench.fidelity_result import CaseResult
from bench.fidelity_unmatched import UNMATCHED
from planner.core.overhead import parse_version
from planner.engines.registry import supported_versions
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.versions import vllm_rules

RECENT = (0, 22, 0)  # the headline covers vLLM 0.22 and later


def release_group(r: CaseResult) -> str:
    """``0.19`` for 0.19.0; V0 releases and other engines keep their own label."""
    major, minor, _ = [*r.engine_version.split("."), "0", "0"][:3]
    return f"{major}.{minor}" if r.engine == "vllm" else r.engine_version or "-"


def _stats(errors: list[float]) -> str:
    if not errors:
        return "–"
    values = [abs(e) for e in errors]
    return f"{statistics.median(values):.2f} / {max(values):.2f} ({len(values)})"


def _verdicts(members: list[CaseResult]) -> str:
    checked = [r.verdict_right for r in members if r.verdict_right is not None]
    return f"{sum(checked)} / {len(checked)}"


def _version_key(label: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in label.split("."))


def summary_rows(results: tuple[CaseResult, ...]) -> list[tuple[str, str, str, str, str, str]]:
    """(engine, release, in sample, left-out release, left-out family, verdicts right / checked); KV errors as
    median / worst absolute GiB per GPU (cases)."""
    rows = []
    groups = sorted({(r.engine, release_group(r)) for r in results}, key=lambda g: (g[0], _version_key(g[1])))
    for engine, group in groups:
        members = [r for r in results if r.engine == engine and release_group(r) == group]
        inside = [r.kv_error_gib for r in members if r.kv_error_gib is not None]
        release = [r.loro_error_gib for r in members if r.loro_error_gib is not None]
        family = [r.cv_error_gib for r in members if r.cv_error_gib is not None]
        rows.append((engine, group, _stats(inside), _stats(release), _stats(family), _verdicts(members)))
    return rows


def recent(results: tuple[CaseResult, ...]) -> list[CaseResult]:
    """vLLM cases of 0.22 and later."""
    return [r for r in results if r.engine == "vllm" and parse_version(r.engine_version or "0") >= RECENT]


def family_rows(results: tuple[CaseResult, ...], group: str = "0.19") -> list[tuple[str, str, str, str]]:
    """(family, in sample, left-out release, left-out family) for the vLLM release ``group`` (``"recent"``: every
    release from 0.22)."""
    if group == "recent":
        members = recent(results)
    else:
        members = [r for r in results if r.engine == "vllm" and release_group(r) == group]
    rows = []
    for family in sorted({r.family for r in members}):
        mine = [r for r in members if r.family == family]
        inside = [r.kv_error_gib for r in mine if r.kv_error_gib is not None]
        release = [r.loro_error_gib for r in mine if r.loro_error_gib is not None]
        outside = [r.cv_error_gib for r in mine if r.cv_error_gib is not None]
        if inside:
            rows.append((family, _stats(inside), _stats(release), _stats(outside)))
    return rows


def headline(results: tuple[CaseResult, ...]) -> list[str]:
    """vLLM >= 0.22: median KV error in sample and cross-validated, the worst family, the verdicts."""
    members = recent(results)
    scored = [r for r in members if r.kv_error_gib is not None]

    def median(values: list[float | None]) -> str:
        present = [abs(v) for v in values if v is not None]
        return f"{statistics.median(present):.2f}" if present else "–"

    worst = max((abs(r.cv_error_gib or 0.0), r.family) for r in scored) if scored else (0.0, "–")
    mapped = [r for r in scored if r.id not in UNMATCHED]
    starts = [r for r in members if r.verdict_right is not None and r.reported_failure is None]
    refuses = [r for r in members if r.verdict_right is not None and r.reported_failure is not None]
    return [
        f"vLLM 0.22 and later: {len(scored)} start-ups with a KV budget (printed, or derived from the printed "
        f"blocks or tokens). Median |KV error| per GPU: **{median([r.kv_error_gib for r in scored])} GiB in "
        f"sample, {median([r.loro_error_gib for r in scored])} GiB leaving the release out, "
        f"{median([r.cv_error_gib for r in scored])} GiB leaving the model family out**; the worst left-out "
        f"family case: {worst[0]:.2f} GiB ({worst[1]}). Verdicts right: **{_verdicts(members)}** (starts "
        f"{_verdicts(starts)}, refuses with the engine's own reason {_verdicts(refuses)}). Without the "
        f"{len(scored) - len(mapped)} unmatched cases (each with its reason below): {len(mapped)} start-ups, "
        f"{median([r.kv_error_gib for r in mapped])} / {median([r.loro_error_gib for r in mapped])} / "
        f"{median([r.cv_error_gib for r in mapped])} GiB.",
    ]


def _fmt(value: float | int | None, spec: str) -> str:
    return "–" if value is None else format(value, spec)


def case_row(r: CaseResult) -> str:
    mark = "" if r.kv_how in ("printed", "") else "≈"
    kv = f"{_fmt(r.predicted_kv_gib, '.2f')} / {mark}{_fmt(r.reported_kv_gib, '.2f')}"
    if r.kv_error_gib is not None:
        kv += f" ({r.kv_error_gib:+.2f}"
        kv += f"; release out {r.loro_error_gib:+.2f}" if r.loro_error_gib is not None else ""
        kv += f"; family out {r.cv_error_gib:+.2f})" if r.cv_error_gib is not None else ")"
    tokens = f"{r.report.kv_cache_tokens:,}" if r.report else "–"
    tokens += f" / {_fmt(r.reported_tokens, ',')}"
    if r.token_error is not None:
        tokens += f" ({r.token_error:+.1%})"
    verdict = f"{r.predicted_failure or 'starts'} / {r.reported_failure or 'starts'}"
    note = f"out of scope: {r.setup.out_of_scope}" if r.setup.out_of_scope else r.setup.mapping_note
    if r.kv_how and r.kv_how != "printed":
        note = f"KV {r.kv_how}; " + note
    if r.id in UNMATCHED:
        note = (note + "; " if note else "") + "**unmatched**: " + UNMATCHED[r.id]
    return f"| `{r.id}` | {r.engine} {r.engine_version} | {r.family} | {kv} | {tokens} | {verdict} | {note} |"


def release_rows() -> list[str]:
    """vLLM's releases as the planner models them (versions.toml) with the logs behind each."""
    rows = [
        "| vLLM release | logs | default util | sampler | CUDA graphs | prefix caching (hybrids) | printed tokens "
        "| model runner | batch defaults |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for v in supported_versions("vllm"):
        rules = vllm_rules(v.version)
        profile = VllmProfile(engine_version=v.version)  # the release's defaults on a CUDA device
        graphs = "in the budget" if profile.cudagraph_in_budget else "in the headroom"
        graphs = "measured, then the pool (extensible)" if profile.extensible() else graphs
        sampler = rules.sampler if rules.v1 else "V0 (no warm-up)"
        mark = " (default)" if v.default else ""
        prefix = ("on" if rules.hybrid_prefix_caching else "off") + (", align" if rules.mamba_align_always else "")
        rows.append(
            f"| {v.version}{mark} | {v.logs or 'extrapolated'} | {profile.utilization:g} | {sampler} "
            f"| {graphs} | {prefix} | {rules.printed_tokens} | {rules.model_runner} | {rules.batch_defaults} |"
        )
    return rows


def markdown(results: tuple[CaseResult, ...]) -> str:
    rows = [
        *headline(results),
        "",
        "KV cache GiB per GPU, predicted against the log: median / worst absolute error (cases). In sample: the "
        "shipped constants (`make calibrate` fits them to every log). Release out / family out: each release, each "
        "model family, predicted by constants fitted without it (vLLM V1; the other engines fit nothing). A budget "
        "marked ≈ is derived from the printed blocks or tokens (`bench/derived.py`). Verdicts: starts, or fails "
        "for the same reason, as the log shows.",
        "",
        "| engine | release | in sample | release out | family out | verdicts right |",
        "|---|---|---|---|---|---|",
        *[f"| {e} | {g} | {i} | {lr} | {lf} | {v} |" for e, g, i, lr, lf, v in summary_rows(results)],
        "",
        "vLLM 0.22 and later by model family:",
        "",
        "| family | in sample | release out | family out |",
        "|---|---|---|---|",
        *[f"| {f} | {i} | {lr} | {lf} |" for f, i, lr, lf in family_rows(results, "recent")],
        "",
        "vLLM 0.19 by model family:",
        "",
        "| family | in sample | release out | family out |",
        "|---|---|---|---|",
        *[f"| {f} | {i} | {lr} | {lf} |" for f, i, lr, lf in family_rows(results)],
        "",
        "vLLM releases (`planner/engines/vllm/versions.toml`, each rule with the source that shows it):",
        "",
        *release_rows(),
        "",
        "<details><summary>Every case</summary>",
        "",
        "| case | engine | family | KV GiB/GPU pred / log (err; left out) | tokens pred / log | start-up pred / log "
        "| note |",
        "|---|---|---|---|---|---|---|",
        *[case_row(r) for r in results],
        "",
        "</details>",
        "",
        "Logs: `tests/fixtures/reference/engine-logs-*.json` and "
        "`tests/fidelity/cases/` (sources per case). Regenerate with `make calibrate` then `make fidelity`.",
    ]
    return "\n".join(rows)
