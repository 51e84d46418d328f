"""Exports a manager can forward: each CSV row carries the inputs, the figures with their units and the
verdict; the HTML report has the headline figures, the inputs in words, the engine and its version, the date,
a link back to the live view, and a layout that fits a phone."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest

from planner.core.units import GB, GiB
from tests.ui.views import llama_70b_fp8
from ui import exports, report, tables
from ui.state import Selection

SEL = llama_70b_fp8(50)
LINK = "http://127.0.0.2:8501/?model=meta-llama%2FLlama-3.1-70B&gpus=2"


def _read(rows: list[dict[str, object]]) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(report.csv_text(rows))))


@pytest.mark.parametrize("unit", ["GiB", "GB"])
def test_memory_csv_row_has_inputs_figures_units_and_verdict(unit: str) -> None:
    sel = SEL.model_copy(update={"unit": unit})
    a = sel.assessment()
    (row,) = _read(exports.breakdown_csv(sel, a))
    assert row["model"] == "meta-llama/Llama-3.1-70B" and row["GPU"] == "H100 SXM5 80GB" and row["GPUs"] == "2"
    assert (row["weights"], row["KV cache dtype"], row["context (tokens)"], row["target users"]) == (
        "fp8",
        "fp8",
        "32768",
        "50",
    )
    assert row["engine"] == f"vLLM {a.report.engine_version}" if a.report else False
    size = GiB if unit == "GiB" else GB
    assert float(row[f"Weights ({unit})"]) == pytest.approx(a.result.per_gpu.weights_bytes / size, abs=1e-3)
    assert float(row[f"GPU memory per GPU ({unit})"]) == pytest.approx(a.request.gpu_memory_bytes / size, abs=1e-3)
    assert not [k for k in row if ("GiB" in k and unit == "GB") or ("(GB" in k and unit == "GiB")]
    assert int(row["conversations (whole, all replicas)"]) == a.conversations
    assert int(row["KV budget (tokens)"]) == a.kv_budget_tokens
    assert row["verdict"] == a.state.value and row["verdict in words"] == a.sentence(unit)
    # the reserve and the room left for the KV cache are named apart
    assert f"Reserved (kept free) ({unit})" in row and f"Room for the KV cache ({unit}; negative: short by)" in row


def test_engine_csv_is_figures_with_units_not_quoted_log_lines() -> None:
    a = SEL.assessment()
    assert a.report is not None
    rows = _read(exports.engine_csv(SEL, a))
    figures = {r["figure"]: r for r in rows}
    kv = figures["KV cache memory per GPU"]
    assert (kv["unit"], float(kv["value"])) == (
        "GiB",
        pytest.approx(a.report.available_kv_cache_bytes_per_gpu / GiB, abs=1e-3),
    )
    assert int(figures["KV cache tokens (one replica)"]["value"]) == a.report.kv_cache_tokens
    assert figures["GPU blocks"]["unit"] == "blocks"
    assert [r["value"] for r in rows if r["figure"].startswith("printed line")] == list(a.report.lines)
    assert all(r["verdict"] == a.state.value and r["model"] == SEL.spec.id for r in rows)


def test_report_inputs_are_words_not_link_keys() -> None:
    a = SEL.assessment()
    inputs = exports.report_inputs(SEL, a)
    assert not {"tp", "pp", "util", "kv", "gpus", "context"} & set(inputs)
    assert inputs["GPUs"].startswith("2 × H100 SXM5 80GB, 79.19 GiB each (the total the engine reports")
    assert inputs["Parallelism"] == "tensor parallel 2 × pipeline parallel 1"
    assert inputs["Engine"] == f"vLLM {a.report.engine_version}" if a.report else False
    assert inputs["Engine memory fraction"] == "0.92"  # vLLM 0.21 (the default release) defaults to 0.92
    assert inputs["Conversation length"] == "32,768 tokens (32k)"
    assert inputs["Target"] == "50 concurrent users"
    simple = SEL.model_copy(update={"engine": "simple"})
    words = exports.report_inputs(simple, simple.assessment())
    assert "Engine memory fraction" not in words, "the simple profile does not use it"
    assert words["Engine"].startswith("Simple: 10 % of memory")


def test_page_settings_in_words() -> None:
    page = {"curves": ["fp8/fp8", "bf16/bf16"], "curve_gpus": ["a100-sxm-80gb"], "contiguous": "true", "model": "x"}
    words = exports.page_inputs(page, {"a100-sxm-80gb": "A100 SXM4 80GB"})
    assert words == {
        "Precisions to compare": "fp8/fp8, bf16/bf16",
        "Other GPUs": "A100 SXM4 80GB",
        "Contiguous reservation": "yes",
    }
    assert exports.page_inputs({"curve_gpus": [""]}) == {"Other GPUs": "none"}


def test_html_report_has_the_headline_link_date_and_fits_a_phone() -> None:
    a = SEL.assessment()
    html = exports.report_html(SEL, "Llama 3.1 70B on 2 × H100", a.sentence(), [], {"breakdown": []}, {}, LINK)
    for label, value in exports.headline_figures(a, "GiB"):
        assert f"<div class='label'>{label}</div><div class='value'>{value}</div>" in html
    assert f"Live view: <a href='{LINK.replace('&', '&amp;')}'>" in html
    assert f"vLLM {a.report.engine_version}" in html if a.report else False
    assert "<th>Engine memory fraction</th><td>0.92</td>"  # vLLM 0.21 (the default release) defaults to 0.92 in html
    assert "<meta name='viewport' content='width=device-width, initial-scale=1'>" in html
    assert "@media (max-width:600px)" in html and ".scroll{overflow-x:auto" in html
    stamped = report.html_report("t", "v", {}, [], when=datetime(2026, 11, 30, 9, 5, tzinfo=UTC))
    assert "Headroom report, 2026-11-30 09:05 UTC." in stamped


def test_report_tables_scroll_and_show_missing_figures_as_empty() -> None:
    html = report.html_report("t", "v", {}, [], {"gpus": [{"id": "x", "price (USD)": None, "memory": 30000}]})
    assert "<div class='scroll'><table class='inputs'>" in html
    assert "<td></td>" in html and "None" not in html and "<td>30,000</td>" in html
    assert tables.cell_text(None) == "" and tables.cell_text(float("nan")) == ""


def test_report_tables_say_once_what_every_row_shares() -> None:
    html = report.html_report("t", "v", {}, [], {"curves": [{"model": "m", "x": 1}, {"model": "m", "x": 2}]})
    assert "<p class='meta'>Every row: model: m.</p>" in html
    assert "<tr><th>x</th></tr><tr><td>1</td></tr><tr><td>2</td></tr>" in html


def test_report_and_csv_of_a_deployment_are_the_pages_answer() -> None:
    """The Memory page with a Deployment section (4 LoRA slots, 6 GiB in use by other processes) judges one
    assessment; its HTML report leads with that assessment's figures (not the plain set-up's) and every CSV row
    names the deployment settings."""
    from ui import settings as S
    from ui.deployment import options_from

    built = options_from(SEL, {S.MAX_LORAS.url: 4, S.USED_MEMORY.url: 6.0})
    a = SEL.assessment(deployment=built.options)
    plain = SEL.assessment()
    assert a.kv_budget_tokens < plain.kv_budget_tokens  # the deployment changes the answer
    page = {S.MAX_LORAS.url: "4", S.USED_MEMORY.url: "6.0"}
    html = exports.report_html(SEL, "t", a.sentence(), [], {}, page, LINK, assessment=a)
    budget = dict(exports.headline_figures(a, "GiB"))["KV budget"]
    assert f"<div class='label'>KV budget</div><div class='value'>{budget}</div>" in html
    assert f"<div class='value'>{dict(exports.headline_figures(plain, 'GiB'))['KV budget']}</div>" not in html
    assert f"<th>{S.MAX_LORAS.label}</th><td>4</td>" in html
    (row,) = _read(exports.breakdown_csv(SEL, a, page))
    assert row[S.MAX_LORAS.label] == "4" and row[S.USED_MEMORY.label] == "6.0"
    assert int(row["KV budget (tokens)"]) == a.kv_budget_tokens
    engine_rows = _read(exports.engine_csv(SEL, a, page))
    assert all(r[S.MAX_LORAS.label] == "4" for r in engine_rows)


def test_a_deployment_report_leads_with_its_summary_in_its_colour_and_stays_small() -> None:
    """Issue 21: with a deployment set, the Memory page's report starts from the deployment's own five-line
    summary in the verdict's colour, and leaves plotly out (under 1 MB even with the page's chart given)."""
    import plotly.graph_objects as go

    from ui import settings as S
    from ui.deployment import options_from

    built = options_from(SEL, {S.MAX_LORAS.url: 4})
    a = SEL.assessment(deployment=built.options)
    chart = go.Figure(go.Bar(x=[1], y=[1]))
    html = exports.report_html(SEL, "t", a.sentence(), [chart], {}, {S.MAX_LORAS.url: "4"}, LINK, assessment=a)
    assert len(html.encode()) < 1_000_000 and "plotly" not in html.lower()
    assert f"class='verdict {a.tone}'" in html and "<ul class='summary'>" in html
    assert f"Holds: {a.conversations:,} conversations" in html
    assert html.index("<ul class='summary'>") < html.index("<h2>Inputs</h2>")


LLAMACPP = Selection(
    model_id="meta-llama/Llama-3.1-70B",
    gpu_id="rtx-3090",
    gpu_count=2,
    engine="llamacpp",
    weights="q4_k_m",
    kv_dtype="fp16",
    context_tokens=8192,
    users=4,
)


def test_a_layer_split_is_reported_as_the_page_says_it() -> None:
    """llama.cpp splits whole layers over its GPUs; its report said 'tensor parallel 2 x pipeline parallel 1' and
    its CSV 'tensor parallel = 2' beside a page that says 'layers split over 2 GPUs' (browser audit, 2026-12-05),
    and its engine CSV had a 'GPU blocks 0' row for an engine with no blocks."""
    a = LLAMACPP.assessment()
    assert exports.report_inputs(LLAMACPP, a)["Parallelism"] == "layers split over 2 GPUs"
    row = _read(exports.breakdown_csv(LLAMACPP, a))[0]
    assert (row["split"], row["tensor parallel"], row["pipeline parallel"]) == ("layers split over 2 GPUs", "", "")
    assert "GPU blocks" not in {r["figure"] for r in exports.engine_csv(LLAMACPP, a)}
    vllm = _read(exports.breakdown_csv(SEL, SEL.assessment()))[0]
    assert (vllm["split"], vllm["tensor parallel"]) == ("TP 2 × PP 1", "2")


def test_a_memory_report_carries_the_verdicts_colour() -> None:
    """The page shows the verdict in its colour (a miss amber, no fit red); the report showed it neutral blue."""
    for sel in (
        SEL,
        LLAMACPP,
        SEL.model_copy(update={"model_id": "meta-llama/Llama-3.1-405B", "gpu_count": 1, "tensor_parallel": 1}),
    ):
        a = sel.assessment()
        html = exports.report_html(sel, "t", a.sentence(sel.unit), [], {}, {}, LINK)
        assert f"<p class='verdict {a.tone}'>" in html, (a.tone, html[:2000])


def test_the_every_row_note_leaves_out_empty_values_and_ends_once() -> None:
    rows = [
        {"model": "m", "caveats": "", "quality": None, "verdict": "holds 4.", "x": 1},
        {"model": "m", "caveats": "", "quality": None, "verdict": "holds 4.", "x": 2},
    ]
    html = report.html_report("t", "v", {}, [], {"curves": rows})
    assert "<p class='meta'>Every row: model: m; verdict: holds 4.</p>" in html


def test_an_sglang_report_states_its_fraction_and_launch_settings_in_its_terms() -> None:
    """Found by an outside review (2026-12-05): an SGLang report's 'engine memory fraction' was blank (the plan used
    mem_fraction_static 0.84, SGLang's heuristic), its inputs left out --max-running-requests 64 and
    --disable-cuda-graph (both change the answer), and its engine figures used vLLM's words ('Activation peak per
    GPU 0 GiB')."""
    sel = Selection(
        model_id="Qwen/Qwen3-30B-A3B",
        gpu_id="h100-sxm-80gb",
        gpu_count=2,
        engine="sglang",
        weights="fp8",
        kv_dtype="fp8",
        context_tokens=32768,
        users=20,
        max_num_seqs=64,
        enforce_eager=True,
    )
    a = sel.assessment()
    inputs = exports.report_inputs(sel, a)
    assert inputs["Engine memory fraction"] == "0.84" and a.report is not None and a.report.fraction == 0.84
    assert inputs["Launch settings"] == "--max-running-requests 64, --disable-cuda-graph"
    assert exports.setup_columns(sel, a)["engine memory fraction"] == 0.84
    figures = {row["figure"] for row in exports.engine_csv(sel, a)}
    assert "Activation peak per GPU" not in figures and "Non-torch memory per GPU" not in figures
    assert "Held before the weights load (CUDA context, NCCL, SGLang's start-up) per GPU" in figures
