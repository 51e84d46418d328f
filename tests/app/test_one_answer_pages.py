"""The pages show the one answer: on a sample of random set-ups (the strategy of tests/test_one_answer.py) the
Memory page's metrics and verdict, the what-if sentence, the Compare grid's row and the advisor's row for the same
set-up equal :func:`planner.assessment.assess.assess` (issue "one answer everywhere", cases 5 to 7)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from planner.assessment.assess import STATE_WORDS
from planner.bounds.errors import PlannerError
from tests.app.conftest import figures, run_page, texts
from tests.test_one_answer import setups
from ui import links, text
from ui.advisor_settings import TABLE_TAB
from ui.state import Selection


def _params(sel: Selection) -> dict[str, str | list[str]]:
    return {k: v for k, v in links.selection_params(sel).items()}


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(sel=setups())
def test_memory_what_if_and_compare_pages_show_the_planners_answer(sel: Selection) -> None:
    try:
        a = sel.assessment()
    except PlannerError:
        return
    at = run_page("memory", _params(sel))
    assert not at.exception
    metrics = dict(figures(at))
    label = text.context_label(sel.context_tokens)
    assert metrics[f"Conversations at {label}"] == f"{a.conversations:,}"
    assert metrics["Fits"] == ("yes" if a.fits else "no")
    shown = {"success": at.success, "warning": at.warning, "error": at.error}[a.tone]
    assert a.sentence(sel.unit) in texts(shown)
    what_if = run_page("what_if", _params(sel))
    said = " ".join(texts(what_if.markdown))
    assert f"at the chosen {label} it holds {a.conversations:,}." in said, said
    compare = run_page("compare", _params(sel))
    grid = compare.dataframe[0].value
    row = grid[(grid["weights"] == sel.weights) & (grid["KV cache dtype"] == sel.kv_dtype)].iloc[0]
    assert (int(row["conversations"]), row["verdict"]) == (a.conversations, STATE_WORDS[a.state])


@pytest.mark.parametrize(
    "sel",
    [
        Selection(
            model_id="meta-llama/Llama-3.1-70B", gpu_id="h100-sxm-80gb", gpu_count=4, weights="fp8", kv_dtype="fp8"
        ),
        Selection(model_id="google/gemma-3-27b-it", gpu_id="h100-sxm-80gb", gpu_count=2, context_tokens=32768),
    ],
    ids=["70b-fp8", "gemma3-sliding"],
)
def test_the_advisor_row_is_the_memory_pages_figure(sel: Selection) -> None:
    """Case 7: the same H100 plan gave 94.5 conversations on the buying page and 93.8 on the Memory page."""
    a = sel.assessment()
    params = {**_params(sel), "users": "1", "pricing": "cloud", "gpu_filter": [sel.gpu_id], "preset": "sidebar"}
    params["min_tps"] = "0"
    at = run_page("advisor", params, tab=TABLE_TAB)
    assert not at.exception
    table = at.dataframe[0].value
    label = (
        f"{sel.gpu_count} x {sel.gpu.name} (TP {a.result.tensor_parallel}), {sel.weights} weights, {sel.kv_dtype} KV"
    )
    match = table[table["set-up"] == label]
    assert len(match) == 1, (label, list(table["set-up"])[:5])
    assert int(match.iloc[0]["conversations"]) == a.conversations
