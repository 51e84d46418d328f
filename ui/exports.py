"""What a manager forwards: the set-up and its answer in words and in CSV columns (pure; no Streamlit).

Every CSV row starts with the set-up (inputs) and ends with the answer (outputs and the verdict), so a row
pasted into a spreadsheet or an email still says what it is about; every column names its unit, every memory
figure is in the unit chosen (GiB or GB). The HTML report shows the same inputs in words, the headline figures
the Memory page shows, the engine and its version, and a link back to the live view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from planner.assessment.assess import Assessment, VerdictState
from planner.assessment.words import plural, split_label
from planner.core.kv_formats import kv_format
from planner.core.precision import weight_format
from planner.core.units import UNIT_BYTES, format_bytes_auto, format_tokens
from planner.engines.registry import engine_names, get_engine, profile_label
from planner.engines.settings import flag_name
from ui import report, settings, tables
from ui.state import Selection, uses_fraction
from ui.text import context_label, memory_source, planned_share

UNIT_WORDS = {"GiB": "GiB (2^30 bytes, as nvidia-smi and the engines print)", "GB": "GB (10^9 bytes)"}


def engine_name(sel: Selection, a: Assessment) -> str:
    """``vLLM 0.21.0`` for an engine profile (the release the report is for), else the profile's label."""
    if a.report is not None:
        return f"{get_engine(a.report.engine).label} {a.report.engine_version}"
    return profile_label(sel.engine)


def fits_words(a: Assessment) -> str:
    """Whether the set-up fits, as the headline and the reports say it: not a bare "yes" short of the target."""
    if a.fits and a.state is VerdictState.MISSES_TARGET and a.target_users:
        return f"in memory; {a.target_users - a.conversations:,} short of the target"
    return "yes" if a.fits else "no"


def headline_figures(a: Assessment, unit: str) -> list[tuple[str, str]]:
    """The figures at the top of the Memory page, in its words: (label, value). An engine that refuses to start
    allocates no KV cache: its budget says so rather than show a pool that is never made."""
    budget = f"{format_tokens(a.kv_budget_tokens)} tokens"
    if a.state is VerdictState.ENGINE_REFUSES:
        budget = f"none: {a.engine_label} does not start"
    return [
        ("Fits", fits_words(a)),
        ("KV budget", budget),
        (f"Conversations at {context_label(a.result.context_tokens)}", f"{a.conversations:,}"),
        ("KV per token", format_bytes_auto(a.result.kv_bytes_per_token, binary=unit == "GiB")),
    ]


def report_inputs(sel: Selection, a: Assessment) -> dict[str, str]:
    """The set-up in words (never the link's raw keys): what a reader needs to trust the figures."""
    request, result, gpu = a.request, a.result, sel.gpu
    memory = (
        f"{request.gpu_memory_bytes / UNIT_BYTES[sel.unit]:,.2f} {sel.unit} each "
        f"({memory_source(gpu, sel.is_engine, planned_share(request))})"
    )
    if request.overhead.splits_layers:  # llama.cpp: whole layers a GPU, as the page says
        split = split_label(request, result)
    else:
        split = f"tensor parallel {result.tensor_parallel} × pipeline parallel {result.pipeline_parallel}"
        if sel.tensor_parallel is None:
            split += " (the largest split the model allows)"
        if result.replicas > 1:
            split += f"; {result.replicas} replicas"
    inputs = {
        "Model": f"{sel.spec.display_name} ({sel.model_id}, from the catalog)"
        if sel.imported is None
        else f"{sel.spec.display_name} ({sel.model_source})",
        "GPUs": f"{request.gpu_count} × {gpu.name}, {memory}",
        "Parallelism": split,
        "Weights": weight_format(result.weights).label,
        "KV cache": kv_format(result.kv_dtype).label,
        "Engine": engine_name(sel, a),
    }
    fraction = fraction_in_force(sel, a)
    if fraction is not None:
        inputs["Engine memory fraction"] = f"{fraction:.3g}"
    if sel.launch_settings and not sel.calibration:
        inputs["Launch settings"] = launch_words(sel)
    if sel.calibration:
        inputs["Overheads"] = "measured from a pasted start-up log"
    inputs["Conversation length"] = f"{sel.context_tokens:,} tokens ({context_label(sel.context_tokens)})"
    inputs["Target"] = f"{sel.users:,} concurrent users"
    inputs["Memory unit"] = UNIT_WORDS[sel.unit]
    return inputs


def fraction_in_force(sel: Selection, a: Assessment) -> float | None:
    """The memory fraction the plan used: the engine's own report of it (SGLang's heuristic included), else the one
    set for an overhead model that takes one; none under a calibration (its log's overheads stand in) or for an
    engine without one."""
    if sel.calibration:
        return None
    if a.report is not None:
        return a.report.fraction
    return sel.fraction if uses_fraction(sel.engine) else None


def launch_words(sel: Selection) -> str:
    """The launch settings given, as the engine spells them (``--max-running-requests 64, --disable-cuda-graph``)."""
    engine = get_engine(sel.engine) if sel.engine in engine_names() else None
    flags = []
    for name, value in sel.launch_settings.items():
        flag = engine.flag_for(name, sel.engine_version) if engine is not None else flag_name(name)
        flags.append(flag if value is True else f"{flag} {value}")
    return ", ".join(flags)


def page_inputs(params: Mapping[str, str | list[str]], names: Mapping[str, str] | None = None) -> dict[str, str]:
    """A page's own settings in words: the setting's label, its values joined (``names`` renames values, e.g.
    GPU ids to their names); ``true``/``false`` as yes/no; an empty list as "none"."""
    shown: dict[str, str] = {}
    for key, value in params.items():
        setting = settings.BY_URL.get(key)
        if setting is None or setting.scope == settings.SIDEBAR:
            continue
        values = [v for v in (value if isinstance(value, list) else [value]) if v != ""]
        words = [{"true": "yes", "false": "no"}.get(v, (names or {}).get(v, setting.word(v))) for v in values]
        shown[setting.label] = ", ".join(words) or "none"
    return shown


def shared_columns(sel: Selection, a: Assessment) -> dict[str, object]:
    """The inputs every row of a page shares when the rows vary the GPU, the precisions and the context."""
    return {
        "model": sel.spec.id,
        "GPUs": a.request.gpu_count,
        **split_columns(a),
        "engine": engine_name(sel, a),
        "target users": sel.users,
    }


def split_columns(a: Assessment) -> dict[str, object]:
    """How the model is spread, in the page's words, and the tensor and pipeline sizes of an engine that splits
    every layer (empty for one that splits whole layers: llama.cpp has neither)."""
    layers = a.request.overhead.splits_layers
    return {
        "split": split_label(a.request, a.result),
        "tensor parallel": "" if layers else a.result.tensor_parallel,
        "pipeline parallel": "" if layers else a.result.pipeline_parallel,
    }


def setup_columns(sel: Selection, a: Assessment) -> dict[str, object]:
    """The inputs of one set-up as CSV columns (units in the names)."""
    result = a.result
    return {
        "model": sel.spec.id,
        "GPU": a.request.gpu.name if a.request.gpu else sel.gpu.name,
        "GPUs": a.request.gpu_count,
        **split_columns(a),
        "replicas": result.replicas,
        "weights": result.weights,
        "KV cache dtype": result.kv_dtype,
        "engine": engine_name(sel, a),
        "engine memory fraction": "" if (fraction := fraction_in_force(sel, a)) is None else round(fraction, 3),
        f"GPU memory per GPU ({sel.unit})": round(a.request.gpu_memory_bytes / UNIT_BYTES[sel.unit], 3),
        "context (tokens)": result.context_tokens,
        "target users": sel.users,
    }


def answer_columns(sel: Selection, a: Assessment) -> dict[str, object]:
    """The answer for one set-up as CSV columns: the figures, the verdict, and its sentence."""
    return {
        "fits": "yes" if a.fits else "no",
        "KV budget (tokens)": a.kv_budget_tokens,
        "KV budget per replica (tokens)": a.kv_budget_tokens_per_replica,
        "conversations (whole, all replicas)": a.conversations,
        "KV per token (bytes)": a.result.kv_bytes_per_token,
        "verdict": a.state.value,
        "verdict in words": a.sentence(sel.unit),
    }


def with_setup(
    sel: Selection,
    a: Assessment,
    rows: Sequence[Mapping[str, object]],
    page: Mapping[str, str | list[str]] | None = None,
) -> list[dict[str, object]]:
    """``rows`` each between the set-up's inputs (with the page's own settings in words, e.g. the Memory page's
    deployment) and its answer (the CSV of a page about one set-up)."""
    before = {**setup_columns(sel, a), **page_inputs(page or {})}
    after = answer_columns(sel, a)
    return [{**before, **row, **after} for row in rows]


def breakdown_csv(
    sel: Selection, a: Assessment, page: Mapping[str, str | list[str]] | None = None
) -> list[dict[str, object]]:
    """The Memory page's CSV: a row per pipeline stage, every component in the chosen unit."""
    return with_setup(sel, a, tables.breakdown_rows(a.allocated, sel.unit), page)


def engine_csv(
    sel: Selection, a: Assessment, page: Mapping[str, str | list[str]] | None = None
) -> list[dict[str, object]]:
    """What the engine will print, as figures with units (one row each), then the lines themselves."""
    report = a.report
    if report is None:
        return []
    unit, size = sel.unit, UNIT_BYTES[sel.unit]
    figures: list[tuple[str, object, str]] = [
        ("KV cache memory per GPU", round(report.available_kv_cache_bytes_per_gpu / size, 3), unit),
        ("GPU blocks", report.gpu_blocks, "blocks"),
        ("KV cache tokens (one replica)", report.kv_cache_tokens, "tokens"),
        ("Maximum concurrency at the context (one replica)", round(report.max_concurrency, 3), "conversations"),
        ("Maximum model length", report.max_model_len, "tokens"),
        ("Weights per GPU", round(report.weights_bytes / size, 3), unit),
    ]
    activation, non_torch = get_engine(report.engine).report_terms  # each engine's own words for the two
    if activation:
        figures.append((f"{activation} per GPU", round(report.activation_bytes / size, 3), unit))
    figures.append((f"{non_torch} per GPU", round(report.non_torch_bytes / size, 3), unit))
    if not report.gpu_blocks:  # a contiguous cache (llama.cpp's slots): no blocks to count
        figures = [f for f in figures if f[2] != "blocks"]
    rows: list[dict[str, object]] = [{"figure": f, "value": v, "unit": u} for f, v, u in figures]
    rows += [{"figure": f"printed line {i}", "value": line, "unit": ""} for i, line in enumerate(report.lines, 1)]
    return with_setup(sel, a, rows, page)


def deployment_summary(sel: Selection, a: Assessment) -> list[str]:
    """Five lines for a deployment's report: the set-up, whether it fits, what it holds, the KV budget, the main
    caveat (the same figures the Memory page leads with)."""
    result = a.result
    caveat = result.warnings[0] if result.warnings else (a.report.notes[0] if a.report and a.report.notes else "none")
    return [
        f"Set-up: {a.request.gpu_count} x {(a.request.gpu or sel.gpu).name}, {result.weights} weights, "
        f"{result.kv_dtype} KV cache, {engine_name(sel, a)}.",
        f"Fits: {fits_words(a)}.",
        f"Holds: {plural(a.conversations, 'conversation')} of {result.context_tokens:,} tokens at once "
        f"(target {sel.users:,}).",
        f"KV budget: {format_tokens(a.kv_budget_tokens)} tokens.",
        f"Main caveat: {caveat}.",
    ]


def report_html(
    sel: Selection,
    title: str,
    verdict: str,
    figures: Sequence[go.Figure | report.StaticSvg],
    tables: Mapping[str, Sequence[Mapping[str, object]]],
    page: Mapping[str, str | list[str]],
    link: str,
    about_setup: bool = True,
    names: Mapping[str, str] | None = None,
    assessment: Assessment | None = None,
    sections: Sequence[tuple[str, Sequence[str]]] = (),
) -> str:
    """The HTML report of a view: with ``about_setup``, the sidebar's set-up in words and the headline figures
    of ``assessment`` (the page's own answer; the sidebar's set-up when not given); then the page's own settings
    in words. With a deployment set (``assessment`` and page settings worded: the Memory page's Deployment
    section), the report leads with the deployment's own five-line summary in the verdict's colour and leaves the
    plotting library out, so it stays small enough to forward."""
    inputs: dict[str, str] = {}
    headline: list[tuple[str, str]] = []
    a = assessment if assessment is not None else (sel.assessment() if about_setup else None)
    if about_setup and a is not None:
        inputs, headline = report_inputs(sel, a), headline_figures(a, sel.unit)
    inputs.update(page_inputs(page, names))
    deployment = assessment is not None and bool(page)
    if deployment and a is not None:
        return report.html_report(
            title,
            verdict,
            inputs,
            [],
            tables,
            headline=headline,
            link=link,
            tone=a.tone,
            summary=deployment_summary(sel, a),
            sections=sections,
        )
    tone = a.tone if a is not None else None  # the verdict in the page's colour
    return report.html_report(
        title, verdict, inputs, figures, tables, headline=headline, link=link, tone=tone, sections=sections
    )
