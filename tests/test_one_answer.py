"""One set-up, one answer: for 200 random set-ups the Memory page's figures, the what-if curve at the chosen
context, the Compare cell, the advisor's row, ``python -m planner fit --json`` and the HTML report give the same
KV tokens, conversations and verdict (issue "one answer everywhere"). The pages themselves are checked on a
sample of these through AppTest in ``tests/app/test_one_answer_pages.py``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from model_catalog import get_model, running_costs
from planner.advisor import Assumptions, ContextDistribution, Workload
from planner.advisor.evaluate import Evaluator
from planner.advisor.options import Candidate, Option, Rejected
from planner.assessment.curve import concurrency_curve
from planner.assessment.words import plural
from planner.bounds.errors import PlannerError
from planner.cli import main
from planner.core.parallel import parallel_problem
from ui import exports
from ui.state import Selection

MODELS = (
    "meta-llama/Llama-3.1-8B",
    "meta-llama/Llama-3.1-70B",
    "Qwen/Qwen3-30B-A3B",
    "google/gemma-3-27b-it",
    "deepseek-ai/DeepSeek-V2-Lite",
    "mistralai/Mistral-7B-v0.1",
    "openai/gpt-oss-20b",
    "Qwen/Qwen2.5-7B",
)
GPUS = ("h100-sxm-80gb", "a100-sxm-80gb", "l40s", "rtx-4090", "mi300x", "h200-sxm-141gb")
ENGINES = ("vllm", "sglang", "trtllm", "llamacpp", "generic", "simple")
PAIRS = (("bf16", "bf16"), ("fp8", "fp8"), ("int4-awq", "fp8"), ("bf16", "fp8"))


@st.composite
def setups(draw: st.DrawFn) -> Selection:
    model = draw(st.sampled_from(MODELS))
    spec = get_model(model).spec
    count = draw(st.sampled_from((1, 2, 4, 8)))
    legal = [tp for tp in (1, 2, 4, 8) if count % tp == 0 and parallel_problem(spec, tp, 1, count) is None]
    tp = draw(st.sampled_from([None, *legal]))
    weights, kv = draw(st.sampled_from(PAIRS))
    context = draw(st.sampled_from([c for c in (2048, 4096, 8192, 16384, 32768) if c <= spec.max_position_embeddings]))
    return Selection(
        model_id=model,
        gpu_id=draw(st.sampled_from(GPUS)),
        gpu_count=count,
        tensor_parallel=tp,
        weights=weights,
        kv_dtype=kv,
        engine=draw(st.sampled_from(ENGINES)),
        context_tokens=context,
        users=draw(st.sampled_from((1, 8, 50))),
    )


def _cli(sel: Selection, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    status = main(_argv(sel))
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert status == (0 if data["fits"] else 1)
    return data


def _argv(sel: Selection) -> list[str]:
    argv = ["fit", "--model", sel.model_id, "--gpu", sel.gpu_id, "--gpus", str(sel.gpu_count), "--json"]
    argv += ["--weights", sel.weights, "--kv-dtype", sel.kv_dtype, "--context", str(sel.context_tokens)]
    argv += ["--users", str(sel.users)]
    if sel.tensor_parallel is not None:
        argv += ["--tp", str(sel.tensor_parallel)]
    if sel.engine == "simple":
        argv += ["--overhead-fraction", "0.1"]
    else:
        argv += ["--engine", sel.engine]
    return argv


def _advisor_row(sel: Selection) -> Option | Rejected:
    """The advisor's evaluation of exactly this set-up against the same target users (renting, so whole purchase
    units do not matter)."""
    result = sel.assessment().result
    request = sel.request()
    workload = Workload(
        concurrent_conversations=sel.users,
        context=ContextDistribution(
            mean_tokens=sel.context_tokens, p95_tokens=sel.context_tokens, max_tokens=sel.context_tokens
        ),
        pricing="cloud",
        min_tokens_per_s_per_user=None,
    )
    costs = Assumptions.from_catalog(running_costs())
    evaluator = Evaluator(request.model, workload, request.overhead, request.block_size, (), costs)
    candidate = Candidate(
        sel.gpu, sel.gpu_count, result.tensor_parallel, result.replicas, sel.weights, sel.kv_dtype, None
    )
    return evaluator.evaluate(candidate)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sel=setups())
def test_every_surface_gives_the_same_answer(sel: Selection, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        a = sel.assessment()
    except PlannerError:  # an illegal split, or what the engine does not run: every surface refuses it (exit 2)
        event("refused")
        assert main(_argv(sel)) == 2
        capsys.readouterr()
        return
    event(f"verdict {a.state.value}")
    # the what-if curve at the chosen context
    point = concurrency_curve(sel.request(), [sel.context_tokens], sel.users)[0]
    assert (point.conversations, point.concurrency) == (a.conversations, a.served_concurrency)
    # the Compare page's cell for the same pair
    cell = sel.assessment(weights=sel.weights, kv_dtype=sel.kv_dtype)
    assert (cell.conversations, cell.state, cell.kv_budget_tokens) == (a.conversations, a.state, a.kv_budget_tokens)
    # python -m planner fit --json
    data = _cli(sel, capsys)
    assert data["conversations_total"] == a.conversations
    assert data["kv_budget_tokens_per_replica"] == a.kv_budget_tokens_per_replica
    assert data["kv_budget_tokens_total"] == a.kv_budget_tokens
    assert data["verdict"] == a.state.value and data["verdict_sentence"] == a.sentence("GiB")
    assert data["fits"] == a.fits
    # the Memory page's CSV (a row per stage) and its HTML report's headline
    for row in exports.breakdown_csv(sel, a):
        assert (row["KV budget (tokens)"], row["conversations (whole, all replicas)"]) == (
            a.kv_budget_tokens,
            a.conversations,
        )
        assert (row["verdict"], row["fits"]) == (a.state.value, "yes" if a.fits else "no")
    html = exports.report_html(sel, "set-up", a.sentence(sel.unit), [], {}, {}, "http://127.0.0.2:8501/")
    for label, value in exports.headline_figures(a, sel.unit):
        assert f"<div class='label'>{label}</div><div class='value'>{value}</div>" in html
    # the advisor's row for the same set-up (PP 1; it plans every split it can rent)
    if a.result.pipeline_parallel == 1 and a.fits and sel.engine != "simple":
        row = _advisor_row(sel)
        if isinstance(row, Option):
            event("advisor row")
            # planned with --max-num-seqs at the users where vLLM's default limit misses them (the row's link sets it)
            seqs = row.engine_max_num_seqs
            same = a if seqs is None else sel.model_copy(update={"max_num_seqs": seqs}).assessment()
            assert same.state.value == "meets-target"
            assert row.conversations == same.conversations
            assert row.concurrency == pytest.approx(same.concurrency, rel=1e-9)
        elif row.reason == "below-target":  # the advisor's words for the Memory page's amber verdict
            event("advisor: below the target")
            assert a.state.value == "misses-target"
            assert row.detail.startswith(f"holds {plural(a.conversations, 'conversation')} ")  # "1 conversation"
        else:  # no engine of the support table runs it, it suits too few users, or it has replicas no user fills
            event(f"advisor: {row.reason}")
            assert row.reason in ("no-engine", "engine-unsuited", "idle-replicas"), row
