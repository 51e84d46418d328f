"""The advisor page with several workloads: it renders, and its recommendation is the planner's."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pyarrow as pa
import pytest

from model_catalog import get_model, load_gpus
from planner.advisor import ContextDistribution, Ranking, Workload, headline, rank, recommendation
from planner.advisor.validation import scored
from tests.app.conftest import figures, run_page, texts
from ui.advisor_report import advisor_report_html
from ui.advisor_settings import (
    ASSUMPTIONS_TAB,
    MODELS_TAB,
    REJECTED_TAB,
    RISK_TAB,
    TAB_KEY,
    TABLE_TAB,
    TABS,
    WHY_OPEN_KEY,
)
from ui.guard import as_text
from ui.state import Selection

WORKLOADS: dict[str, dict[str, str | list[str]]] = {
    "support-chat": {"preset": "support-chat"},
    "rag-cloud": {"preset": "rag", "pricing": "cloud"},
    "coding-agent-70b": {"preset": "coding-agent", "model": "meta-llama/Llama-3.1-70B", "users": "16"},
    "long-document-budget": {"preset": "long-document", "budget": "60000", "users": "4"},
    "custom-mean": {"preset": "custom", "ctx_mean": "3000", "ctx_p95": "9000", "plan_at": "mean"},
    "requests-per-second": {"rps": "5", "prefix": "1000", "gpu_filter": ["h100-sxm-80gb", "l40s", "a100-sxm-80gb"]},
    "latency-targets": {"ttft": "0.5", "min_tps": "30", "model": "Qwen/Qwen3-30B-A3B"},
    "compare-models": {"compare_models": ["Qwen/Qwen3-8B", "mistralai/Mistral-7B-v0.3"]},
    "nothing-fits": {"model": "deepseek-ai/DeepSeek-V3", "gpu_filter": ["rtx-4090"], "users": "500"},
}


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_advisor_page_renders(name: str) -> None:
    at = run_page("advisor", WORKLOADS[name], tab=MODELS_TAB if name == "compare-models" else None)
    assert not at.exception, [e.value for e in at.exception]
    verdicts = texts(at.success) + texts(at.error) + texts(at.warning)
    assert verdicts, "a recommendation is always shown"
    if name == "compare-models":
        models = at.dataframe[0].value
        assert list(models["model"]) == ["meta-llama/Llama-3.1-8B", "Qwen/Qwen3-8B", "mistralai/Mistral-7B-v0.3"]
    if name == "nothing-fits":
        assert any(v.startswith("No set-up in the catalog serves") for v in verdicts)


def test_recommendation_equals_the_planner() -> None:
    at = run_page("advisor", {"preset": "custom", "ctx_mean": "3000", "ctx_p95": "9000", "users": "20"})
    sel = Selection(users=20)
    workload = Workload(
        concurrent_conversations=20,
        context=ContextDistribution(
            mean_tokens=3000, p95_tokens=9000, max_tokens=get_model(sel.model_id).spec.max_position_embeddings
        ),
    )
    expected = rank(sel.spec, workload, gpus=list(load_gpus().values()))
    assert headline(expected) in texts(at.success) + texts(at.warning)
    details = next(e for e in at.expander if e.label.startswith("Why, the alternatives"))
    assert not details.markdown  # closed: its text is not sent (a lazy expander)
    at.session_state[WHY_OPEN_KEY] = True  # what clicking it sends
    at.session_state[TAB_KEY] = TABLE_TAB  # and clicking the table's tab
    at.run()
    details = next(e for e in at.expander if e.label.startswith("Why, the alternatives"))
    assert recommendation(expected) in texts(details.markdown)
    table = at.dataframe[0].value
    assert list(table["#"][:3]) == [1, 2, 3]
    assert table["open"][0].startswith("/?model=")


def test_impossible_distribution_names_the_field() -> None:
    at = run_page("advisor", {"preset": "custom", "ctx_mean": "1000", "ctx_p95": "9000"})
    assert any("p95_tokens can be at most" in e for e in texts(at.error))
    assert not at.exception


def test_the_page_starts_from_the_sidebar() -> None:
    at = run_page("advisor", {"model": "meta-llama/Llama-3.1-70B", "context": "32768", "users": "50"}, tab=TABLE_TAB)
    assert not at.exception
    assert any("From the sidebar: 50 users" in c.value and "32,768 tokens" in c.value for c in at.caption)
    table = at.dataframe[0].value
    assert {"buy", "engine", "bound"} <= set(table.columns)
    assert all(unit and "x" in unit for unit in table["buy"])
    preset = run_page("advisor", {"preset": "rag", "context": "16384"})
    assert any("replaces the sidebar's context of 16,384 tokens" in c.value for c in preset.caption)


def test_buyer_constraints_are_bound_to_the_url() -> None:
    params: dict[str, str | list[str]] = {
        "allow_weights": ["bf16", "fp8"],
        "engines": ["sglang"],
        "vendors": ["NVIDIA"],
        "form_factors": ["card"],
    }
    at = run_page("advisor", params, tab=TABLE_TAB)
    assert not at.exception
    table = at.dataframe[0].value
    assert all(engine.startswith("SGLang ") for engine in table["engine"])
    assert all(" weights" in label and label.split(", ")[-2].split()[0] in ("bf16", "fp8") for label in table["set-up"])
    assert all("PCIe card" in unit for unit in table["buy"])
    for key, value in params.items():  # a one-element list travels as a plain value
        assert at.query_params[key] == (value[0] if len(value) == 1 else value)


def test_verdict_colour_is_amber_with_an_undermining_caveat() -> None:
    """The DGX Spark's 16-bit tensor figures are NVIDIA's own measured peaks (it publishes only FP4): its verdict
    cannot be green, and the caveat is in the verdict, the table and the CSV columns. (The L40 served here until
    its figures were verified against its datasheet table.)"""
    at = run_page("advisor", {"gpu_filter": ["dgx-spark-gb10"], "users": "4"}, tab=TABLE_TAB)
    assert not at.exception
    assert not at.success and any("unverified catalog figures" in w for w in texts(at.warning))
    table = at.dataframe[0].value
    assert all("unverified catalog figures" in c for c in table["caveats"])


def test_mac_memory_share_setting() -> None:
    at = run_page("advisor", {"vendors": ["Apple"], "unified_share": "0.9", "users": "4"}, tab=TABLE_TAB)
    assert at.dataframe[0].value["engine"][0].startswith("llama.cpp")
    assert not at.exception
    assert at.query_params["unified_share"] == "0.9"


def test_the_row_link_opens_the_same_answer_on_the_memory_page() -> None:
    """The first row's Memory-page link carries the option's engine, release, memory fraction and users: the
    Memory page shows the same conversations as the advisor's table."""
    asked = {"model": "meta-llama/Llama-3.1-70B", "context": "32768", "users": "50", "util": "0.7"}
    at = run_page("advisor", asked, tab=TABLE_TAB)
    table = at.dataframe[0].value
    link = table["open"][0]
    params = {k: v[0] if len(v) == 1 else v for k, v in parse_qs(urlsplit(link).query).items()}
    assert params["engine"] in ("vllm", "sglang", "trtllm", "llamacpp") and params["util"] != "0.7"
    memory = run_page("memory", params)
    assert not memory.exception
    held = [value for label, value in figures(memory) if label.startswith("Conversations at")]
    assert held and int(str(held[0]).replace(",", "")) == int(table["conversations"][0])


def test_the_report_is_small_and_leads_with_the_answer() -> None:
    """What a VP receives: the summary first, the verdict's colour, no plotting library, no rejected set-ups."""
    workload = Workload.fixed_length(32_768, concurrent_conversations=50)
    ranking = rank(get_model("openai/gpt-oss-120b").spec, workload)
    html = advisor_report_html(ranking, "gpt-oss-120b", "https://example.test/advisor", {})
    assert len(html.encode()) < 1_000_000
    assert "class='verdict success'" in html and "Main caveat:" in html and "Total price:" in html
    assert html.index("What to buy:") < html.index("<h2>Inputs</h2>") and "plotly" not in html.lower()
    assert "Rejected" not in html and "On another vendor or form factor" in html


def test_the_report_opens_on_a_phone_with_its_summary() -> None:
    """An outside review read the report at 390 px (2026-12-05): a 250-word paragraph came first and the five-line
    summary 1.5 screens below; a tile read "106 of 32,768 tokens". The verdict box is one line, the summary right
    under it, the paragraph further down; the tile names conversations."""
    workload = Workload.fixed_length(32_768, concurrent_conversations=50)
    ranking = rank(get_model("meta-llama/Llama-3.3-70B-Instruct").spec, workload)
    html = advisor_report_html(ranking, "Llama 3.3 70B", "https://example.test/advisor", {})
    box = html[html.index("<p class='verdict") : html.index("</p>", html.index("<p class='verdict"))]
    assert len(box.split()) <= 12, box
    assert html.index("class='summary'") < html.index("class='figures'") < html.index("The recommendation in full")
    best = ranking.best
    assert best is not None
    assert f"{best.conversations:,} conversations of 32,768 tokens" in html


def test_the_verdict_is_one_sentence_with_the_details_below() -> None:
    """Issue 22: the verdict was a 230-word paragraph (a wall on a phone); it leads with one sentence now and the
    paragraph (alternatives, caveats, assumptions) sits in an expander below it."""
    at = run_page("advisor", {"model": "meta-llama/Llama-3.1-70B", "context": "32768", "users": "50"})
    assert not at.exception
    verdict = (texts(at.success) + texts(at.warning))[0]
    assert len(verdict.split()) <= 60 and verdict.count(". ") == 0, verdict
    at.session_state[WHY_OPEN_KEY] = True  # opened (a lazy expander: closed, its text is not sent)
    at.run()
    details = " ".join(texts(next(e for e in at.expander if e.label.startswith("Why")).markdown))
    assert "It holds" in details and "On other hardware" in details


def test_the_pareto_cost_axis_reads_in_dollars() -> None:
    at = run_page("advisor", {"pareto": "capacity"})
    spec = json.loads(at.get("vega_lite_chart")[0].proto.spec)
    x = spec["layer"][0]["encoding"]["x"]
    assert x["axis"]["format"] == "$~s" and x["scale"]["type"] == "log"


def test_the_pareto_chart_keeps_its_id_when_the_ranking_changes() -> None:
    """A Plotly chart is ided by its figure and mounted again on every change; the keyed Vega-Lite chart keeps its
    id when the context (and so every point) changes, so the browser updates it in place (ui/pareto.py)."""
    charts = []
    for context in ("4096", "65536"):
        at = run_page("advisor", {"model": "meta-llama/Llama-3.1-8B", "context": context, "users": "20"})
        charts.append(at.get("vega_lite_chart")[0].proto)
    short, long = charts
    assert short.id and short.id == long.id
    assert short.data.data != long.data.data and short.spec == long.spec  # only the rows change


def test_the_rejected_table_is_built_only_when_opened() -> None:
    """The 500-row table of rejected set-ups sits in a lazy expander in its tab: closed (every run, every slider
    move) it is neither formatted nor sent; opened, it shows the first 500 (every one stays in the CSV)."""
    params = {"model": "meta-llama/Llama-3.1-70B", "gpu": "h100-sxm-80gb", "context": "8192"}
    at = run_page("advisor", params, tab=REJECTED_TAB)
    assert not at.exception and not at.dataframe
    assert any(m.value.startswith("**") and "set-ups rejected:**" in m.value for m in at.markdown)
    at.session_state["rejected_open"] = True
    at.run()
    assert [len(table.value) for table in at.dataframe] == [500]


def test_the_assumptions_are_drawn_only_when_their_tab_is_open() -> None:
    """ "What the figures assume" holds the speed model against 166 public measurements as a table of ~1,700 nodes:
    a lazy tab, so closed (every run, every slider move) the browser neither receives nor rebuilds it; opened, it
    shows every assumption and the whole table."""
    params = {"model": "meta-llama/Llama-3.1-70B", "gpu": "h100-sxm-80gb", "context": "8192"}
    at = run_page("advisor", params)
    assert not at.exception
    assert not [h for h in at.get("html") if "hr-table" in h.proto.body]
    at.session_state[TAB_KEY] = ASSUMPTIONS_TAB
    at.run()
    (table,) = [h.proto.body for h in at.get("html") if "hr-table" in h.proto.body]
    assert table.count("<tr>") == len(scored()) + 1
    shown = " ".join(m.value for m in at.markdown)
    assert "**prices**" in shown and "**purchase**" in shown


def test_only_the_open_tab_is_drawn_and_closed_tabs_keep_their_settings() -> None:
    """Streamlit's lazy tabs: a cold link draws the chart and none of the table, the risk, the other models, the
    rejected set-ups or the assumptions (a slider move sends the chart, not them). The settings in a closed tab
    (the chart's axis, the compared models) stay in the link, and the CSV still holds the compared models."""
    params = {"model": "meta-llama/Llama-3.1-70B", "context": "8192", "pareto": "throughput"}
    at = run_page("advisor", {**params, "compare_models": ["Qwen/Qwen3-8B"]})
    assert not at.exception and [t.label for t in at.tabs] == list(TABS)
    assert len(at.get("vega_lite_chart")) == 1 and not at.dataframe and not at.metric and not at.multiselect
    at.session_state[TAB_KEY] = TABLE_TAB
    at.run()
    assert not at.get("vega_lite_chart") and [len(t.value) for t in at.dataframe] == [40]
    assert at.query_params["pareto"] == "throughput" and at.query_params["compare_models"] == "Qwen/Qwen3-8B"
    at.session_state[TAB_KEY] = RISK_TAB
    at.run()
    assert {m.label for m in at.metric} >= {"Conversations at 1 % risk", "Conversations at 5 % risk"}
    assert not at.dataframe and at.query_params["compare_models"] == "Qwen/Qwen3-8B"
    at.session_state[TAB_KEY] = MODELS_TAB
    at.run()
    assert at.multiselect[0].value == ["Qwen/Qwen3-8B"] and len(at.dataframe[0].value) == 2
    assert at.query_params["pareto"] == "throughput"


def _widget_keys(at) -> set[str]:
    kinds = ("number_input", "multiselect", "toggle")
    return {str(w.key) for kind in kinds for w in at.get(kind)}


def test_settings_expanders_draw_their_widgets_only_when_open_or_set() -> None:
    """The three settings expanders are lazy: closed, with their settings at the defaults, none of their 18 widgets
    is drawn (a slider move rebuilds none); a link that sets one (a budget) opens that expander with its widgets;
    opening one draws it; a value set keeps it drawn and in the link; back at its default and closed, it is not
    drawn again."""
    base = {"model": "meta-llama/Llama-3.1-70B", "context": "8192", "users": "20"}
    at = run_page("advisor", base)
    assert not at.exception
    assert not _widget_keys(at) & {"budget", "min_tps", "allow_weights", "kwh"}
    boxes = {e.label: e for e in at.expander}
    assert {"Targets, budget and GPUs", "The buyer's constraints", "Power and life (total cost of ownership)"} <= set(
        boxes
    )
    budget = run_page("advisor", {**base, "budget": "60000"})
    assert {"budget", "min_tps", "gpu_filter"} <= _widget_keys(budget)
    assert not _widget_keys(budget) & {"allow_weights", "kwh"}, "only the expander with a setting opens"
    assert budget.number_input(key="budget").value == 60000
    at.session_state["costs_open"] = True
    at.run()
    assert {"kwh", "pue", "life"} <= _widget_keys(at)
    at.number_input(key="kwh").set_value(0.3).run()
    at.session_state["costs_open"] = False
    at.run()
    assert not at.exception and "kwh" in _widget_keys(at), "a set value keeps its widgets drawn"
    assert at.query_params["kwh"] == "0.3"
    at.number_input(key="kwh").set_value(0.0).run()
    assert "kwh" not in _widget_keys(at), "back at the defaults and closed: not drawn"
    assert at.query_params["kwh"] == "0" and not at.exception


def test_a_set_value_opens_its_expander_again_after_another_page() -> None:
    """Streamlit drops a page's widget state when another page runs; the value kept for the page
    (:func:`ui.binding.ensure`) still opens its expander on the first run back, with its widget showing it."""
    at = run_page("advisor", {"model": "meta-llama/Llama-3.1-70B", "context": "8192", "budget": "60000"})
    assert "budget" in _widget_keys(at)
    at.switch_page("pages/memory.py").run()
    at.switch_page("pages/advisor.py").run()
    assert not at.exception
    assert "budget" in _widget_keys(at) and at.number_input(key="budget").value == 60000


def test_the_answer_is_under_the_title_above_the_workloads_widgets() -> None:
    """A manager opening a link on a phone sees the verdict and the five-line summary first: they are drawn in a
    container placed under the title, above the workload's widgets, and filled once the ranking is made."""
    at = run_page("advisor", {"model": "openai/gpt-oss-120b", "context": "32768", "users": "50"})
    nodes = list(at.main.children.values())
    title = next(i for i, n in enumerate(nodes) if n.type == "title")
    answer = nodes[title + 1]
    assert [type(c).__name__ for c in answer.children.values()] == ["Success", "Expander", "Markdown"]
    assert answer.success[0].value.startswith("Buy ")
    assert answer.markdown[-1].value.startswith("- What to buy\\: ")  # as_text escapes Markdown
    widgets = [i for i, n in enumerate(nodes) if n.type == "flex_container" and n.selectbox]
    assert widgets and min(widgets) > title + 1  # the workload's widgets come after it


def test_the_chart_says_why_a_cheaper_point_is_not_the_pick() -> None:
    """Under the Pareto chart, the cheaper set-up it shows and what ranks it after (planner.advisor.passed_over)."""
    at = run_page("advisor", {"model": "meta-llama/Llama-3.1-70B", "context": "32768", "users": "40"})
    captions = texts(at.caption)
    assert any(c.startswith("A cheaper set-up, 4 x RTX PRO 6000") and "floor" in c for c in captions), captions


def test_the_compared_models_csv_is_offered_with_their_tab_closed() -> None:
    """The compared models are a setting of a tab that is not drawn on a cold link (the chart's is): the CSV of their
    rows is still offered (made when its button is pressed), and the tab shows them when opened."""
    params = {"model": "meta-llama/Llama-3.1-8B", "context": "8192", "compare_models": ["Qwen/Qwen3-8B"]}
    closed = run_page("advisor", params, share=True)
    assert not closed.exception and not closed.multiselect
    assert "CSV: models" in [b.label for b in closed.get("download_button")]
    shown = run_page("advisor", params, tab=MODELS_TAB)
    assert list(shown.dataframe[0].value["model"]) == ["meta-llama/Llama-3.1-8B", "Qwen/Qwen3-8B"]


def test_a_ranking_is_shared_and_never_pickled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rankings are kept as objects shared by every session (issue 24): a second session on the same link ranks
    nothing, a compared model's ranking serves the page when the reader switches to it, and no ranking is pickled
    on the way (a slider move would pay ~50-230 ms pickling and unpickling ~1.4 MB)."""
    import planner.advisor

    ranked: list[str] = []
    pickled: list[str] = []
    real_rank = planner.advisor.rank

    def counted(spec: Any, *args: Any, **kw: Any) -> Ranking:
        ranked.append(spec.id)
        return real_rank(spec, *args, **kw)

    def refused(self: Ranking) -> Any:
        pickled.append(self.workload.target_note)
        raise AssertionError("a ranking was pickled")

    monkeypatch.setattr(planner.advisor, "rank", counted)
    monkeypatch.setattr(Ranking, "__getstate__", refused, raising=False)
    link = {"model": "Qwen/Qwen3-8B", "context": "12288", "users": "7", "compare_models": ["mistralai/Mistral-7B-v0.3"]}
    first = run_page("advisor", link, tab=MODELS_TAB)
    assert not first.exception, [e.value for e in first.exception]
    assert ranked == ["Qwen/Qwen3-8B", "mistralai/Mistral-7B-v0.3"]
    second = run_page("advisor", link, tab=MODELS_TAB)
    switched = run_page(
        "advisor", {k: v for k, v in link.items() if k != "compare_models"} | {"model": "mistralai/Mistral-7B-v0.3"}
    )
    assert not second.exception and not switched.exception
    assert ranked == ["Qwen/Qwen3-8B", "mistralai/Mistral-7B-v0.3"] and not pickled
    answer = [texts(at.success) + texts(at.warning) + texts(at.error) for at in (first, second)]
    assert answer[0] and answer[0] == answer[1]


def test_the_chart_draws_the_set_up_its_caption_names() -> None:
    """The caption under the chart names a cheaper set-up ranked after the recommendation; the chart draws one
    point per purchase (ui/pareto.py), and that set-up is one of its points, not hidden under its purchase's best
    (Llama-3.1-70B, 8,192 tokens, 64 users: it was; 100 users since the 300 W Max-Q edition made the 64-user
    recommendation the cheapest set-up too)."""
    at = run_page("advisor", {"model": "meta-llama/Llama-3.1-70B", "context": "8192", "users": "100"})
    assert not at.exception
    lead = as_text("A cheaper set-up, ")  # the caption is text (Markdown's characters escaped)
    caption = next(c.value for c in at.caption if c.value.startswith(lead))
    rows = pa.ipc.open_stream(at.get("vega_lite_chart")[0].proto.data.data).read_all().to_pylist()
    assert any(caption.startswith(as_text(f"A cheaper set-up, {row['label']} (")) for row in rows), caption


def test_the_caption_names_every_launch_setting_an_option_may_carry() -> None:
    """Gemma 4 31B's pick carries --max-num-batched-tokens 2496; the caption named only --max-num-seqs."""
    at = run_page("advisor", {"model": "google/gemma-4-31B-it", "context": "32768", "users": "50"})
    assert not at.exception
    caption = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "--max-num-batched-tokens where a sliding-window model's default step" in caption, caption


def test_a_rental_asks_which_gpu_to_rent() -> None:
    """The page's title said "Which GPU to buy" under cloud pricing (an outside review, 2026-12-05)."""
    at = run_page("advisor", {"model": "meta-llama/Llama-3.1-8B", "users": "4", "pricing": "cloud"})
    assert not at.exception and at.title[0].value.startswith("Which GPU to rent for ")
    at = run_page("advisor", {"model": "meta-llama/Llama-3.1-8B", "users": "4"})
    assert at.title[0].value.startswith("Which GPU to buy for ")


def test_the_cloud_tier_is_the_planner_s() -> None:
    """The page's cloud tier (a declared setting, in its link) ranks as the planner's Workload.cloud_tier does, as
    ``advise --cloud-tier`` (tests/advisor/test_cloud_tier.py)."""
    params: dict[str, str | list[str]] = {
        "users": "4",
        "context": "8192",
        "pricing": "cloud",
        "gpu_filter": ["h100-sxm-80gb"],
    }
    at = run_page("advisor", {**params, "cloud_tier": "community"})
    assert not at.exception, [e.value for e in at.exception]
    workload = Workload.fixed_length(
        8192, concurrent_conversations=4, pricing="cloud", cloud_tier="community", gpu_ids=("h100-sxm-80gb",)
    )
    expected = rank(Selection().spec, workload, gpus=list(load_gpus().values()))
    assert expected.options[0].usd_per_hour == pytest.approx(1.99)
    assert headline(expected) in texts(at.success) + texts(at.warning)
    assert at.selectbox(key="cloud_tier").value == "community"
