"""Issue 22: every engine × the Deployment options, on 100 set-ups drawn at random (a fixed seed): the Memory page
(verdict, headline figures, chart, nearest set-ups, start-up lines), the CLI (``fit --json``) and the exports (CSV,
headline) agree, and no surface shows a figure the engine would not produce — no KV pool for an engine that does
not start, no option the engine has no flag for, no weight format or KV dtype it does not run.

A set-up asks for options the engine does not take one time in eight: the page greys them out and notes the link's
value, the CLI refuses it with the engine's reason.
"""

from __future__ import annotations

import html
import json
import random
from typing import Any, NamedTuple

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.alternatives import nearest_fitting
from planner.assessment.assess import Assessment, VerdictState, assess
from planner.cli import main
from planner.core.units import GiB, format_tokens
from planner.engines.registry import engine_names, get_engine, max_model_len_allowed
from planner.planning.plan import PlanRequest
from tests.app.conftest import figures, plain, run_page, texts, vega_rows
from ui import exports, state
from ui.deployment import not_taken, options_from
from ui.memory_chart import BARS
from ui.settings import DEPLOYMENT_SETTINGS
from ui.state import Selection

SETUPS = 100
MODELS = (
    "meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-70B", "Qwen/Qwen3-30B-A3B", "google/gemma-4-31B-it",
    "mistralai/Mistral-7B-v0.1", "microsoft/phi-4", "Qwen/Qwen3-14B",
)  # fmt: skip
GPUS = ("h100-sxm-80gb", "a100-sxm-80gb", "l40s", "rtx-4090", "l4", "h200-sxm-141gb")
CONTEXTS = (2048, 4096, 8192, 32768)
OPTIONS = ("none", "used_mem", "colocate", "offload", "lora", "speculation", "mixed", "host")
DRAFT = "meta-llama/Llama-3.2-1B"


class SetUp(NamedTuple):
    params: dict[str, str]  # the page's link
    argv: list[str]  # the same set-up for fit
    taken: bool  # every option asked for is one the engine takes


def _deployment(
    rng: random.Random, option: str, engine: str, gpu: str, count: int, model: str
) -> tuple[dict[str, str], list[str]]:
    """``option`` as URL parameters and fit flags (those the engine takes, or any: :func:`_setups` keeps 1 in 8)."""
    support = get_engine(engine).support if engine in engine_names() else None
    if option == "used_mem":
        gib = rng.choice((2, 10, 20))
        return {"used_mem": str(gib)}, ["--used-memory-gib", str(gib)]
    if option == "host":  # the machine (planner.deploy.host); Windows with memory in use given half the time
        host = rng.choice(("linux", "windows"))
        used = rng.choice(((), ("2",))) if host == "windows" else ()
        return {"host": host, **dict.fromkeys(("used_mem",) if used else (), "2")}, [
            "--host",
            host,
            *(f for g in used for f in ("--used-memory-gib", g)),
        ]
    if option == "colocate":
        util = rng.choice((0.2, 0.3))
        return {"colocate": "meta-llama/Llama-3.2-1B", "colocate_util": str(util)}, [
            "--colocate", f"meta-llama/Llama-3.2-1B@{util}"
        ]  # fmt: skip
    if option == "offload":
        if support is not None and support.layer_offload_flags and count == 1:
            layers = rng.choice((8, 16, 24))
            return {"ngl": str(layers)}, ["--gpu-layers", str(layers)]
        gib = rng.choice((4, 16))
        return {"cpu_offload": str(gib)}, ["--cpu-offload-gb", str(gib)]
    if option == "lora":
        loras = rng.choice((1, 4))
        return {"loras": str(loras), "lora_rank": "16"}, ["--max-loras", str(loras), "--max-lora-rank", "16"]
    if option == "speculation" and model.startswith("meta-llama/Llama-3"):
        return {"spec_method": "draft", "draft": DRAFT, "spec_tokens": "3"}, [
            "--speculative-method", "draft", "--draft-model", DRAFT, "--num-speculative-tokens", "3"
        ]  # fmt: skip
    if option == "mixed" and count == 1:
        other = rng.choice([g for g in GPUS if g != gpu])
        return {"stage_gpus": other}, ["--gpu", other]
    return {}, []


def _setups() -> list[SetUp]:
    rng = random.Random(22)
    out = []
    while len(out) < SETUPS:
        engine = rng.choice((*engine_names(), "generic"))
        model, gpu = rng.choice(MODELS), rng.choice(GPUS)
        option = rng.choice(OPTIONS)
        one = option in ("offload", "mixed") and rng.random() < 0.7  # -ngl and mixed GPUs start from one GPU
        count = 1 if one else rng.choice((1, 2, 3, 4, 8))
        longest = get_model(model).spec.max_position_embeddings  # a link beyond it is dropped (malformed)
        context, users = rng.choice([c for c in CONTEXTS if c <= longest]), rng.choice((1, 8, 32))
        moe = get_model(model).spec.moe is not None
        weights = rng.choice(state.weight_options(engine, get_gpu(gpu), moe))
        kv = rng.choice(state.kv_options(engine, weights, get_gpu(gpu), moe))
        extra, flags = _deployment(rng, option, engine, gpu, count, model)
        params = {"model": model, "gpu": gpu, "gpus": str(count), "weights": weights, "kv": kv, "engine": engine}
        params |= {"context": str(context), "users": str(users), **extra}
        argv = ["fit", "--model", model, "--gpu", gpu, "--gpus", str(count), "--weights", weights, "--kv-dtype", kv]
        argv += ["--engine", engine, "--context", str(context), "--users", str(users), *flags]
        sel = Selection(model_id=model, gpu_id=gpu, gpu_count=count, engine=engine)
        taken = not set(extra) & set(not_taken(sel))
        if taken or rng.random() < 1 / 8:
            out.append(SetUp(params, argv, taken))
    return out


SET_UPS = _setups()


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else {}), err


def _page_assessment(at: Any) -> tuple[Selection, Assessment, PlanRequest]:
    """The page's selection, its assessment and its request as asked (before the engine sized its launch)."""
    sel: Selection = at.session_state["_selection"]
    values = {s.url: at.session_state[s.url] for s in DEPLOYMENT_SETTINGS if s.url in at.session_state}
    asked = sel.request(deployment=options_from(sel, values).options)
    return sel, assess(asked, sel.users), asked


def _chart_kv(at: Any) -> list[float]:
    """The KV cache pool of each GPU in the Memory page's chart (its rows: :mod:`ui.memory_chart`)."""
    (chart,) = at.get("vega_lite_chart")
    return [float(row["value"]) for row in vega_rows(chart.proto)[BARS] if row["component"] == "KV cache pool"]


def _check_page_against_cli(at: Any, a: Assessment, cli: dict[str, Any]) -> None:
    shown = texts(at.success) + texts(at.warning) + texts(at.error)
    assert cli["verdict_sentence"] in shown, (cli["verdict_sentence"], shown)
    assert a.sentence() == cli["verdict_sentence"] and a.state.value == cli["verdict"]
    metrics = dict(figures(at))
    headline = dict(exports.headline_figures(a, "GiB"))
    assert {k: metrics[k] for k in headline} == headline  # the page's figures are the report's
    label = next(k for k in metrics if k.startswith("Conversations at"))
    assert metrics[label] == f"{cli['conversations_total']:,}"
    refused = a.state is VerdictState.ENGINE_REFUSES
    budget = "none: " if refused else f"{format_tokens(cli['kv_budget_tokens_total'])} tokens"
    assert metrics["KV budget"].startswith(budget)
    kv = _chart_kv(at)
    assert kv and any(abs(x - cli["kv_cache_bytes_per_gpu"] / GiB) < 1e-6 for x in kv), (kv, cli)
    csv_kv = [row["KV cache pool (GiB)"] for row in exports.breakdown_csv(_sel(at), a)]
    assert csv_kv == [round(s.kv_cache_bytes / GiB, 3) for s in a.allocated.stages]
    if refused:  # no pool, no context, no figure the engine would not print
        assert set(kv) == {0.0} and set(csv_kv) == {0.0} and cli["kv_budget_tokens_total"] == 0
    if a.report is not None:
        printed = "\n".join(h.proto.body for h in at.get("html") if "hr-pre" in h.proto.body)
        assert all(_html(line) in printed for line in cli["engine_lines"])
        allowed = max_model_len_allowed(a.request, a.result)
        words = get_engine(a.report.engine).context_limit_words()
        markdown = "\n".join(plain(str(m.value)) for m in at.markdown)
        if allowed == 0 and a.report.failure is not None:
            assert f"No {words} starts this set-up" in markdown
        else:
            assert f"Largest {words} this set-up allows: **{allowed:,} tokens**" in markdown


def _sel(at: Any) -> Selection:
    selection: Selection = at.session_state["_selection"]
    return selection


def _html(line: str) -> str:
    """A line as the page's preformatted block escapes it (:func:`ui.tables.preformatted`: quotes too)."""
    return html.escape(line)


def _check_nearest(at: Any, a: Assessment, sel: Selection, asked: PlanRequest) -> None:
    if a.state is VerdictState.MEETS_TARGET:
        assert not any("Nearest set-ups" in plain(str(s.value)) for s in at.subheader)
        return
    goal = sel.users if a.state is VerdictState.MISSES_TARGET else None
    expected = [alt.change for alt in nearest_fitting(asked, goal)]
    markdown = [plain(str(m.value)) for m in at.markdown if plain(str(m.value)).startswith("- **")]
    assert [line.split("**")[1] for line in markdown] == expected


def _check_engine_runs_it(a: Assessment, sel: Selection) -> None:
    """Nothing planned that the engine would not do: its weights, KV dtype and every option it was given."""
    if sel.engine not in engine_names():
        return
    engine = get_engine(sel.engine)
    assert engine.refusal(a.request) is None
    options = a.request.deployment
    if options is None:
        return
    support = engine.support
    assert (options.gpu_layers is None and not options.cpu_moe_layers) or support.layer_offload_flags
    assert not options.cpu_offload_bytes or support.cpu_offload_flag
    assert options.lora is None or support.lora is not None
    assert options.speculative is None or options.speculative.method in support.speculative_methods


@pytest.mark.parametrize("setup", SET_UPS, ids=[f"{i:03d}" for i in range(len(SET_UPS))])
def test_every_surface_agrees(setup: SetUp, capsys: pytest.CaptureFixture[str]) -> None:
    at = run_page("memory", setup.params)
    assert not at.exception, [e.value for e in at.exception]
    code, cli, err = _cli(setup.argv, capsys)
    if not setup.taken:
        assert code == 2 and "error:" in err, err  # the CLI refuses the option with the engine's reason
        notes = " ".join(texts(at.warning))
        assert "ignored" in notes  # the page planned without it and said so
        return
    if code == 2:  # a combination no engine runs (e.g. offload with mixed GPUs): both refuse it
        assert any(e.startswith(("deployment", "engine", "offload", "speculative", "mixed", "gpu layers"))
                   or "left out of the plan" in e or "refuse" in e for e in [*texts(at.error), err]), err  # fmt: skip
        return
    sel, a, asked = _page_assessment(at)
    _check_page_against_cli(at, a, cli)
    _check_nearest(at, a, sel, asked)
    _check_engine_runs_it(a, sel)


def test_the_draw_covers_every_engine_and_option() -> None:
    engines = {s.params["engine"] for s in SET_UPS}
    assert engines == {*engine_names(), "generic"}
    asked = {k for s in SET_UPS for k in s.params} & {"used_mem", "colocate", "ngl", "cpu_offload", "loras",
                                                      "spec_method", "stage_gpus"}  # fmt: skip
    assert asked == {"used_mem", "colocate", "ngl", "cpu_offload", "loras", "spec_method", "stage_gpus"}
    assert any(not s.taken for s in SET_UPS) and sum(s.taken for s in SET_UPS) > 80
