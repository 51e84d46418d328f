"""A wall-clock budget per page run and per CLI command: every loop that can grow stops with a named error
(issue 11: a hostile link pinned a core for 15-20 minutes, and closing the tab did not stop it)."""

from __future__ import annotations

import time

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor import Workload, rank
from planner.assessment.alternatives import nearest_fitting
from planner.assessment.assess import assess
from planner.assessment.curve import concurrency_curve
from planner.assessment.trial import longest_context_that_fits
from planner.bounds import walltime as budget_module
from planner.bounds.errors import PlannerError
from planner.bounds.walltime import BudgetExceeded, budget, check, remaining
from planner.cli import main
from planner.engines.registry import overhead_profile
from planner.planning.plan import PlanRequest

GPU = get_gpu("h100-sxm-80gb")
REQUEST = PlanRequest(
    model=get_model("meta-llama/Llama-3.1-70B").spec,
    gpu=GPU,
    gpu_memory_bytes=GPU.memory_bytes_for(True),
    gpu_count=2,
    context_tokens=8192,
    max_model_len=8192,
    overhead=overhead_profile("vllm"),
)


def test_the_budget_is_a_planner_error_and_nests() -> None:
    assert issubclass(BudgetExceeded, PlannerError)
    assert remaining() is None
    with budget(60, "outer"):
        with budget(0, "inner"), pytest.raises(BudgetExceeded, match="inner took longer than its budget of 0 s"):
            check()
        check()  # the outer budget is back in force
        with budget(3600, "looser"):
            remaining_now = remaining()
            assert remaining_now is not None and remaining_now <= 60  # the earlier deadline wins
    check()  # no budget: nothing to exceed


@pytest.mark.parametrize(
    "work",
    [
        lambda: assess(REQUEST),
        lambda: concurrency_curve(REQUEST, [1024 * n for n in range(1, 64)]),
        lambda: longest_context_that_fits(REQUEST, 10),
        lambda: nearest_fitting(REQUEST, 10_000),
        lambda: rank(REQUEST.model, Workload.fixed_length(8192, concurrent_conversations=50)),
    ],
    ids=["assess", "curve", "binary-search", "alternatives", "advisor"],
)
def test_every_loop_that_can_grow_stops_at_the_budget(work) -> None:
    start = time.perf_counter()
    with budget(0, "the test"), pytest.raises(BudgetExceeded, match="the test took longer"):
        work()
    assert time.perf_counter() - start < 0.5


def test_the_advisor_stops_midway(monkeypatch: pytest.MonkeyPatch) -> None:
    """A budget that runs out during the enumeration stops it there (the advisor checks every candidate)."""
    calls = 0
    real = budget_module.time.monotonic

    def ticking() -> float:
        nonlocal calls
        calls += 1
        return real() + (1000 if calls > 50 else 0)

    monkeypatch.setattr(budget_module.time, "monotonic", ticking)
    with budget(10, "ranking"), pytest.raises(BudgetExceeded):
        rank(REQUEST.model, Workload.fixed_length(8192, concurrent_conversations=50))
    assert 50 < calls < 100


def test_a_cli_command_over_its_budget_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr("planner.cli.COMMAND_BUDGET_SECONDS", 0.0)
    status = main(["advise", "--model", "meta-llama/Llama-3.1-8B", "--users", "10", "--context", "4096", "--json"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert err.startswith("error: the advise command took longer than its budget of 0 s")
