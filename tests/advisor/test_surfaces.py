"""One answer inside the advisor: on 100 random workloads (seeded), the verdict, the table row, the CSV, the risk
section, the HTML report, the row's Memory-page link and ``advise --json`` all show the same figures for the
options they show."""

from __future__ import annotations

import csv
import io
import json
import random
import re
from typing import Any

import pytest

from model_catalog import get_gpu, get_model, load_gpus
from planner.advisor import (
    PRESETS,
    Ranking,
    Workload,
    caveats,
    overflow_for,
    rank,
    recommendation,
    summary_lines,
    verdict,
)
from planner.assessment.words import plural, seconds
from planner.cli import main
from planner.cli.advise import ranking_data
from planner.deploy.options import DeploymentOptions
from ui.advisor_report import TONES, advisor_report_html
from ui.advisor_rows import option_link, option_selection, ranking_rows
from ui.report import csv_text
from ui.state import Selection

MODELS = (
    "meta-llama/Llama-3.1-8B",
    "meta-llama/Llama-3.1-70B",
    "Qwen/Qwen3-30B-A3B",
    "openai/gpt-oss-120b",
    "google/gemma-3-27b-it",
    "google/gemma-4-31B-it",
    "mistralai/Mistral-7B-v0.3",
    "Qwen/Qwen3-8B",
)
GPUS = sorted(load_gpus())


def random_workload(seed: int) -> tuple[str, Workload, tuple[str, ...]]:
    rng = random.Random(20261201 + seed)
    model_id = rng.choice(MODELS)
    users = rng.choice((1, 2, 4, 8, 16, 32, 50, 100))
    fields: dict[str, Any] = {
        "concurrent_conversations": users,
        "pricing": rng.choice(("purchase", "purchase", "cloud")),
        "include_personal": rng.random() < 0.3,
        "include_restricted": rng.random() < 0.2,
        "min_tokens_per_s_per_user": rng.choice((None, 10.0, 20.0)),
        "plan_at": rng.choice(("p95", "mean", "max")),
        "usd_per_kwh": rng.choice((None, 0.09, 0.2)),
    }
    gpus = tuple(rng.sample(GPUS, rng.randint(3, 7)))
    if rng.random() < 0.5:
        workload = Workload.from_preset(rng.choice(sorted(PRESETS)), **fields)
    else:
        workload = Workload.fixed_length(rng.choice((2_048, 8_192, 32_768)), **fields)
    limit = get_model(model_id).spec.max_position_embeddings
    if workload.context.max_tokens and workload.context.max_tokens > limit:
        workload = Workload.fixed_length(4_096, **fields)
    return model_id, workload.model_copy(update={"gpu_ids": gpus}), gpus


def _csv_rows(rows: list[dict[str, object]]) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(csv_text(rows))))


def check_surfaces(model_id: str, ranking: Ranking) -> None:
    best = ranking.best
    text = recommendation(ranking)
    data = json.loads(json.dumps(ranking_data(ranking)))
    assert data["verdict"] == verdict(ranking) and data["recommendation"] == text
    assert data["summary"] == summary_lines(ranking)
    if best is None:
        assert verdict(ranking) == "none" and text.startswith("No set-up")
        return
    # the verdict: the best option's own count, every caveat, green only without one
    assert f"holds {plural(best.conversations, 'conversation')}" in text
    assert all(c in text for c in caveats(ranking))
    assert (verdict(ranking) == "met") == (not caveats(ranking))
    # the table and the CSV: the same counts and caveats as the options (and advise --json)
    sel = Selection(model_id=model_id)
    rows = ranking_rows(ranking, sel, None, limit=5)
    for row, written, option, listed in zip(rows, _csv_rows(rows), ranking.options, data["options"], strict=False):
        assert row["conversations"] == option.conversations == listed["conversations"]
        assert int(written["conversations"]) == option.conversations
        assert written["caveats"] == "; ".join(option.undermining) == "; ".join(listed["undermining"])
        assert row["set-up"] == option.label
    # the risk section: the count at the planning length is the option's
    report = overflow_for(best, ranking.workload, get_model(model_id).spec)
    planned = {"mean": report.planned_at_mean, "p95": report.planned_at_p95, "max": report.planned_at_max}
    assert planned[ranking.workload.plan_at] == best.conversations
    # the report: the summary, the verdict's colour, the best option's count
    html = advisor_report_html(ranking, model_id, "https://example.test/advisor", {})
    assert f"class='verdict {TONES[verdict(ranking)]}'" in html and f"{best.conversations:,}" in html
    # its headline figures as the summary words them: the first token to the same digits, the speed at the target
    first = seconds(best.prefill_seconds) if best.prefill_seconds is not None else "not estimated"
    assert f"<div class='label'>First token</div><div class='value'>{first}</div>" in html
    at_once = f" with {plural(ranking.target_concurrency, 'conversation')} at once</div>"
    if best.decode_tokens_per_s_per_user is None:
        at_once = "speed not estimated</div>"  # not "... with N at once" beside no speed
    assert re.search(rf"Tokens/s per user</div><div class='value'>[^<]*{at_once}", html), html
    # the row's Memory-page link: the sidebar set to the option (and a Mac's GPU share) gives the same count
    share = ranking.workload.unified_memory_share if best.gpu_id and get_gpu(best.gpu_id).unified_memory else None
    deployment = DeploymentOptions(unified_share=share) if share is not None else None
    assert option_selection(sel, best).assessment(deployment=deployment).conversations == best.conversations
    link = option_link(sel, best, None, ranking.workload.unified_memory_share)
    assert ("gpu_share=" in link) == (share is not None) and (share is None or f"gpu_share={share:g}" in link), link


@pytest.mark.parametrize("seed", range(100))
def test_every_surface_agrees(seed: int) -> None:
    model_id, workload, _ = random_workload(seed)
    ranking = rank(get_model(model_id).spec, workload)
    check_surfaces(model_id, ranking)


@pytest.mark.parametrize("seed", range(0, 100, 10))
def test_the_cli_gives_the_same_answer(seed: int, capsys: pytest.CaptureFixture[str]) -> None:
    """``advise --json`` through the command line, for workloads it can state (a fixed length)."""
    model_id, workload, gpus = random_workload(seed)
    length = workload.context_tokens
    argv = ["advise", "--model", model_id, "--context", str(length), "--users", str(workload.target_concurrency)]
    argv += [x for g in gpus for x in ("--gpu", g)] + ["--json"]
    code = main(argv)
    data = json.loads(capsys.readouterr().out)
    expected = rank(
        get_model(model_id).spec,
        Workload.fixed_length(length, concurrent_conversations=workload.target_concurrency, gpu_ids=gpus),
    )
    assert code == (0 if expected.options else 1)
    assert data["verdict"] == verdict(expected) and data["recommendation"] == recommendation(expected)
    assert [o["conversations"] for o in data["options"]] == [o.conversations for o in expected.options]


def test_one_user_reads_as_one_conversation() -> None:
    """llama.cpp holds one slot for one user: the summary and the recommendation say "1 conversation"."""
    model = get_model("meta-llama/Llama-3.1-8B").spec
    workload = Workload.fixed_length(8_192, concurrent_conversations=1, engines=("llamacpp",))
    ranking = rank(model, workload, gpus=[load_gpus()["rtx-4090"]], counts=(1,))
    assert ranking.options[0].conversations == 1
    text = " ".join(summary_lines(ranking)) + recommendation(ranking)
    assert "Users held: 1 conversation of 8,192 tokens" in text and "It holds 1 conversation of" in text
    assert "1 conversations" not in text


def test_a_ranking_with_no_option_downloads_a_csv_that_says_so() -> None:
    """With a budget no set-up meets, 'CSV: ranking' downloaded zero bytes (browser audit, 2026-12-05)."""
    from planner.advisor.workload import ContextDistribution

    dist = ContextDistribution(mean_tokens=32_768, p95_tokens=32_768, max_tokens=32_768)
    work = Workload.model_validate({"concurrent_conversations": 50, "context": dist, "budget_usd": 5_000})
    ranking = rank(get_model("openai/gpt-oss-120b").spec, work)
    assert not ranking.options
    text = csv_text(ranking_rows(ranking, Selection(model_id="openai/gpt-oss-120b"), None))
    assert text.startswith("note\r\nno set-up meets every condition"), text
