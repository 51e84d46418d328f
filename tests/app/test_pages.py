"""Every page renders with defaults and with URL parameter sets, raises nothing, and shows the planner's
numbers."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from planner.assessment.assess import assess
from planner.assessment.trial import longest_context_that_fits
from tests.app.conftest import PAGES, figures, plain, run_page, texts, vega_rows
from ui import exports, text
from ui.compare_charts import CELLS
from ui.state import Selection

PARAMETER_SETS: dict[str, dict[str, str]] = {
    "defaults": {},
    "does-not-fit": {"model": "meta-llama/Llama-3.1-70B", "gpu": "rtx-4090", "weights": "bf16"},
    "mla": {"model": "deepseek-ai/DeepSeek-V2-Lite", "gpu": "a100-sxm-80gb", "context": "32768"},
    "mla-tp8": {"model": "deepseek-ai/DeepSeek-V3", "gpu": "h200-sxm-141gb", "gpus": "8", "tp": "8", "weights": "fp8"},
    "sliding-window": {"model": "google/gemma-3-27b-it", "gpu": "l40s", "gpus": "2", "context": "65536"},
    "moe-tp8": {"model": "Qwen/Qwen3-235B-A22B", "gpu": "h100-sxm-80gb", "gpus": "8", "tp": "8", "weights": "fp8"},
    "fp8-kv": {"model": "meta-llama/Llama-3.1-8B", "gpu": "rtx-4090", "kv": "fp8", "context": "16384"},
    "gguf": {
        "model": "Qwen/Qwen2.5-32B",
        "gpu": "rtx-3090",
        "weights": "q4_k_m",
        "kv": "int8",
        "context": "8192",
        "engine": "simple-fixed",
    },
    "hybrid-linear": {
        "model": "Qwen/Qwen3-Next-80B-A3B-Instruct",
        "gpu": "h100-sxm-80gb",
        "gpus": "2",
        "weights": "fp8",
    },
    "pipeline": {"model": "meta-llama/Llama-3.1-70B", "gpu": "a100-sxm-80gb", "gpus": "4", "tp": "2", "pp": "2"},
    "gb-unit": {"model": "mistralai/Mistral-7B-v0.1", "gpu": "a10", "unit": "GB", "engine": "simple"},
}


def _selection(at) -> Selection:
    """The selection the page planned (the frame hands it to the page)."""
    selection = at.session_state["_selection"]
    assert isinstance(selection, Selection)
    return selection


@pytest.mark.parametrize("page", sorted(PAGES))
@pytest.mark.parametrize("name", sorted(PARAMETER_SETS))
def test_page_renders(page: str, name: str) -> None:
    params = PARAMETER_SETS[name]
    at = run_page(page, params)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error or (name == "does-not-fit" and page == "memory"), [e.value for e in at.error]
    assert not at.warning or all("ignored" not in w.value for w in at.warning), [w.value for w in at.warning]
    for key, value in params.items():  # every parameter of the link was taken, and is in the address bar
        assert str(at.session_state[key]) == value, key
        assert at.query_params[key] in (value, [value]), key


@pytest.mark.parametrize("name", sorted(PARAMETER_SETS))
def test_memory_verdict_equals_the_planner(name: str) -> None:
    at = run_page("memory", PARAMETER_SETS[name])
    sel = _selection(at)
    a = sel.assessment()
    shown = {"success": at.success, "warning": at.warning, "error": at.error}[a.tone]
    assert a.sentence(sel.unit) in texts(shown)
    metrics = dict(figures(at))
    assert metrics["Fits"] == exports.fits_words(a)  # one answer: the page's tile is the reports' words
    assert metrics[f"Conversations at {text.context_label(sel.context_tokens)}"] == f"{a.conversations:,}"


def test_does_not_fit_offers_nearest_setups() -> None:
    at = run_page("memory", {"model": "Qwen/Qwen2.5-14B", "gpu": "rtx-4090"})
    assert any("does not fit" in e.value for e in at.error)
    subheaders = [s.value for s in at.subheader]
    assert "Nearest set-ups that fit" in subheaders
    links = [m.value for m in at.markdown if "[open](?" in m.value]
    assert links, "each alternative links to its view"
    assert any("GPUs" in link for link in links) and any("weights in" in link for link in links)


def test_what_if_answers_with_the_planners_numbers() -> None:
    """The page's question (how long can conversations get before the target no longer fits?) answered per
    curve, in a sentence and a table, with the planner's longest context and the Memory page's count."""
    for context in ("4096", "32768"):
        at = run_page("what_if", {"context": context, "users": "20", "curves": ["bf16/bf16", "fp8/fp8"]})
        sel = _selection(at)
        assert not at.exception, [e.value for e in at.exception]
        longest = longest_context_that_fits(sel.request(), 20)
        shown = " ".join(plain(m.value) for m in at.markdown)
        assert f"holds 20 conversations up to {longest:,} tokens each" in shown
        assert f"at the chosen {text.context_label(int(context))} it holds {sel.assessment().conversations:,}" in shown
        (table,) = [h.proto.body for h in at.get("html") if "hr-table" in h.proto.body]
        fp8 = sel.request(weights="fp8", kv_dtype="fp8")
        assert "<th class='text'>longest context for 20 users</th>" in table
        for pair, request in (("bf16/bf16", sel.request()), ("fp8/fp8", fp8)):
            row = (
                f"<td class='text'>{pair}</td><td class='text'>{longest_context_that_fits(request, 20):,} tokens</td>"
                f"<td>{assess(request, 20).conversations:,}</td>"
            )
            assert row in table, (row, table)


def test_compare_page_pairs_from_the_link() -> None:
    at = run_page("compare", {"engine": "llamacpp", "combos": ["bf16/bf16", "q8_0/int8", "q4_k_m/int4"]})
    assert list(at.session_state["combos"]) == ["bf16/bf16", "q8_0/int8", "q4_k_m/int4"]
    assert not at.exception


def test_compare_page_offers_only_what_the_engine_runs() -> None:
    """Under vLLM neither a GGUF file nor an INT8/INT4 KV cache is offered (they are llama.cpp's); a link asking for
    one keeps the rest and says what it left out."""
    at = run_page("compare", {"engine": "vllm", "combos": ["bf16/bf16", "fp8/fp8", "q4_k_m/int4"]})
    assert not at.exception
    assert list(at.session_state["combos"]) == ["bf16/bf16", "fp8/fp8"]
    cells = vega_rows(at.get("vega_lite_chart")[0].proto)[CELLS]
    assert [r["kv"] for r in cells if r["row"] == 0] == ["bf16", "fp8"]
    assert "q4_k_m" not in {r["weights"] for r in cells}
    assert any("What vLLM runs on" in c for c in texts(at.caption))


def test_context_exact_number_moves_the_slider() -> None:
    at = run_page("memory", editor=True)
    at.number_input(key="context_exact").set_value(12345).run()
    assert at.session_state["context"] == 12345
    assert at.query_params["context"] in ("12345", ["12345"])
    assert f"{12345:,}" in at.title[0].value or "12,345" in " ".join(c.value for c in at.caption)


def test_copy_link_reproduces_the_view() -> None:
    params = PARAMETER_SETS["moe-tp8"]
    at = run_page("memory", params, share=True)
    links = [c.value for c in at.code if "?model=" in c.value]
    assert len(links) == 1
    query = parse_qs(urlsplit(links[0]).query)
    again = run_page("memory", {k: v[0] for k, v in query.items()})
    first = [s.value for s in at.success] + [e.value for e in at.error]
    second = [s.value for s in again.success] + [e.value for e in again.error]
    assert first[0] == second[0]
    assert figures(at) == figures(again)


def test_every_page_offers_html_and_csv_exports() -> None:
    for page in ("memory", "what_if", "compare", "advisor", "catalog"):
        at = run_page(page, share=True)
        labels = [b.label for b in at.get("download_button")]
        assert "HTML report" in labels, page
        assert any(label.startswith("CSV: ") for label in labels), page


def test_an_engine_that_would_not_start_is_red_everywhere_on_the_page() -> None:
    """Issue "one answer", case 4: two replicas of half a conversation; the page must not show "fits" next to
    "refuses to start", and the engine's own error line is shown."""
    params = {
        "model": "meta-llama/Llama-3.1-70B",
        "gpus": "2",
        "tp": "1",
        "weights": "fp8",
        "kv": "fp8",
        "context": "9000",
        "users": "50",
        "engine": "vllm",
    }
    at = run_page("memory", params)
    a = _selection(at).assessment()
    assert a.state.value == "engine-refuses-to-start" and not a.fits
    assert not at.success and not [w for w in texts(at.warning) if "short of the target" in w]
    errors = texts(at.error)
    assert a.sentence("GiB") in errors and "would refuse to start" in a.sentence("GiB")
    assert any(e.startswith("vLLM would stop with:") for e in errors)
    metrics = dict(figures(at))
    assert metrics["Fits"] == "no" and metrics["Conversations at 9,000"] == "0"
    assert any("TP 2 on the same 2 GPUs" in m for m in texts(at.markdown)), "the wider split is offered"


def test_a_missed_target_is_amber_not_green() -> None:
    """Issue "one answer", case 5: "1 concurrent conversation … 49 short of the target" was a green box."""
    at = run_page("memory", {"model": "meta-llama/Llama-3.1-70B", "gpus": "2", "weights": "fp8", "users": "500"})
    a = _selection(at).assessment()
    assert a.state.value == "misses-target"
    assert not at.success and a.sentence("GiB") in texts(at.warning)
    metrics = dict(figures(at))
    assert metrics[f"Conversations at {text.context_label(a.result.context_tokens)}"] == f"{a.conversations:,}"
    assert f"{a.conversations:,} concurrent conversations" in a.sentence("GiB")


def test_compare_never_shows_the_same_pair_twice() -> None:
    """Case 6: the current pair was listed twice and drew two identical bars that read as twice the memory."""
    for params in ({"weights": "fp8", "kv": "fp8"}, {"combos": ["fp8/fp8", "fp8/fp8", "bf16/bf16"]}):
        at = run_page("compare", params)
        combos = list(at.session_state["combos"])
        assert len(combos) == len(set(combos)) >= 2, combos


def test_memory_figures_are_one_html_element_with_their_meanings() -> None:
    """The headline figures are the report's (:func:`ui.exports.headline_figures`), each with what it means, in one
    HTML element: no ``st.metric`` and no columns, whose scripts a cold link fetched and ran before the chart."""
    at = run_page("memory", PARAMETER_SETS["mla-tp8"])
    a = _selection(at).assessment()
    (row,) = [h.proto.body for h in at.get("html") if "hr-figures" in h.proto.body]
    assert figures(at) == exports.headline_figures(a, "GiB") and not at.metric and not at.columns
    meanings = re.findall(r"<span class='hr-tip'>(.*?)</span>", row)
    assert meanings[2] == "Whole conversations of the chosen context held at once, every replica counted."
    assert len(meanings) == 4 and row.count("tabindex='0'") == 4  # each reachable by keyboard and by a tap


def test_the_catalog_says_how_each_gpu_is_sold_and_cooled() -> None:
    """A buyer sees on the catalog page that an L40S is a passive card (it needs a GPU server around it), an RTX
    4090 a card with its own fans no longer sold new (NVIDIA ended it in 2024-10) and an H100 SXM an 8-GPU
    baseboard."""
    from ui.catalog_rows import gpu_rows

    sold = {row["id"]: row["sold as"] for row in gpu_rows()}
    assert (
        sold["l40s"] == "card, dual-slot, passive (needs a GPU server)"
        and sold["rtx-4090"] == "card, 3-slot, active; not sold new since 2024-10"
    )
    assert sold["h100-nvl-94gb"] == "NVLink pair, dual-slot, passive (needs a GPU server)"
    assert sold["apple-m4-max"] == "machine"
    assert sold["h100-sxm-80gb"] in ("4-GPU baseboard", "8-GPU baseboard")
