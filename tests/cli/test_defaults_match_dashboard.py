"""One answer by default: ``python -m planner fit --model M --gpu G`` with nothing else given plans what the
dashboard's Memory page shows for a link that names only that model and GPU: the same engine (the registry's
first), context (8,192 tokens or the model's maximum), target users (32), weights and KV dtype. Before, the CLI
planned the generic estimate at 4,096 tokens with no target (the 70B in FP8 on two H100s: 438,519 tokens where
the page said 435,296)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from model_catalog import get_model
from planner.cli import main
from planner.core.defaults import DEFAULT_CONTEXT_TOKENS, DEFAULT_USERS, default_context_tokens
from ui import settings, state
from ui.model_defaults import model_defaults
from ui.state import Selection

CASES = (
    ("meta-llama/Llama-3.1-8B", "h100-sxm-80gb", 1),
    ("meta-llama/Llama-3.1-70B", "h100-sxm-80gb", 2),
    ("Qwen/Qwen3-30B-A3B", "rtx-4090", 2),
    ("openai/gpt-oss-20b", "rtx-5090", 1),
    ("google/gemma-2-9b", "l40s", 1),
    ("deepseek-ai/DeepSeek-V2-Lite", "a100-sxm-80gb", 1),
)


def _page_selection(model: str, gpu: str, gpus: int) -> Selection:
    """What the Memory page plans for ``?model=...&gpu=...&gpus=...``: the sidebar's defaults for that model
    (:func:`ui.model_defaults.model_defaults`) under the default engine."""
    spec = get_model(model).spec
    defaults = model_defaults(spec, state.DEFAULT_ENGINE)
    return Selection(
        model_id=model,
        gpu_id=gpu,
        gpu_count=gpus,
        weights=defaults[settings.WEIGHTS.url],
        kv_dtype=defaults[settings.KV.url],
        context_tokens=defaults[settings.CONTEXT.url],
    )


def _fit(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    main(["fit", *argv, "--json"])
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


@pytest.mark.parametrize(("model", "gpu", "gpus"), CASES)
def test_fit_with_only_a_model_and_a_gpu_gives_the_pages_answer(
    model: str, gpu: str, gpus: int, capsys: pytest.CaptureFixture[str]
) -> None:
    sel = _page_selection(model, gpu, gpus)
    a = sel.assessment()
    data = _fit(capsys, "--model", model, "--gpu", gpu, "--gpus", str(gpus))
    assert data["kv_budget_tokens_total"] == a.kv_budget_tokens
    assert data["conversations_total"] == a.conversations
    assert data["verdict"] == a.state.value
    assert data["verdict_sentence"] == a.sentence("GiB")
    assert data["target_users"] == sel.users == DEFAULT_USERS


def test_the_70b_in_fp8_on_two_h100s_reads_as_on_the_page(capsys: pytest.CaptureFixture[str]) -> None:
    """The case the thirty-ninth session's review found: 435,296 tokens on the page, 438,519 from the CLI."""
    argv = ("--model", "meta-llama/Llama-3.1-70B", "--gpu", "h100-sxm-80gb", "--gpus", "2", "--weights", "fp8")
    data = _fit(capsys, *argv, "--kv-dtype", "fp8", "--context", "8192")
    assert data["kv_budget_tokens_total"] == 435_296
    assert data["engine"] == "vllm"


def test_the_default_context_is_the_models_maximum_when_shorter() -> None:
    """8,192 tokens where the model has them; a model of 4,096 positions gets its 4,096 (as the slider)."""
    assert default_context_tokens(131_072) == DEFAULT_CONTEXT_TOKENS == 8_192
    assert default_context_tokens(4_096) == 4_096
    assert default_context_tokens(512) == 512  # never past the model's own maximum (an engine refuses it)
    for model in ("meta-llama/Llama-3.1-8B", "mistralai/Mistral-7B-v0.1", "google/gemma-2-9b"):
        spec = get_model(model).spec
        assert state.default_context(spec) == default_context_tokens(spec.max_position_embeddings)


def test_an_overhead_fraction_plans_the_simple_model_and_an_engine_beside_it_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--overhead-fraction`` is the simple model's share: given alone it plans that model (as before, when the
    default engine was the generic estimate); beside an engine's profile, which has its own memory fraction
    (``--gpu-util``), it was silently ignored and is now refused with a named message."""
    data = _fit(capsys, "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--overhead-fraction", "0.1")
    assert "engine" not in data  # the simple model: no engine report
    both = ("--engine", "vllm", "--overhead-fraction", "0.1")
    status = main(["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", *both])
    err = capsys.readouterr().err
    assert status == 2
    assert "--overhead-fraction" in err and "--gpu-util" in err and "Traceback" not in err


def test_advise_with_only_a_model_ranks_what_the_advisor_page_ranks(capsys: pytest.CaptureFixture[str]) -> None:
    """``advise --model M`` (no users, no context) ranks the workload the "Which GPU to buy" page opens with for a
    link naming only that model: the sidebar's context and users (8,192 tokens, 32 users), every other setting at
    its default. Before, the command stopped: --users was required and a context or a preset had to be given."""
    from planner.advisor import Workload, rank

    model = "meta-llama/Llama-3.1-8B"
    status = main(["advise", "--model", model, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0
    spec = get_model(model).spec
    page = rank(spec, Workload.fixed_length(state.default_context(spec), concurrent_conversations=state.DEFAULT_USERS))
    assert data["target_concurrency"] == DEFAULT_USERS == page.workload.target_concurrency
    assert data["context_tokens"] == DEFAULT_CONTEXT_TOKENS
    fields = ("gpu_id", "gpu_count", "tensor_parallel", "replicas", "weights", "kv_dtype", "engine")
    assert [tuple(o[f] for f in fields) for o in data["options"][:10]] == [
        tuple(getattr(o, f) for f in fields) for o in page.options[:10]
    ]
    assert data["options"][0]["conversations"] == page.options[0].conversations


def test_a_model_shorter_than_the_default_is_planned_at_its_own_maximum(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A config of 512 positions (``--config``): planned at 512 tokens under vLLM, which starts it; planned past
    its maximum it would refuse (max-model-len)."""
    config = {
        "model_type": "llama",
        "hidden_size": 2048,
        "num_hidden_layers": 16,
        "num_attention_heads": 16,
        "num_key_value_heads": 4,
        "intermediate_size": 5632,
        "vocab_size": 32000,
        "max_position_embeddings": 512,
        "torch_dtype": "bfloat16",
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    data = _fit(capsys, "--config", str(path), "--gpu", "rtx-4090")
    assert data["context_tokens"] == 512 and data["max_model_len"] == 512
    assert data["engine_starts"] is True and data["fits"] is True


def test_flags_the_default_engine_does_not_take_name_it_as_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    """``--gpu-layers`` (llama.cpp's) without ``--engine``: refused in one line that says the engine was the
    dashboard's default, not one the user typed; with ``--engine llamacpp`` it plans."""
    argv = ["fit", "--model", "mistralai/Mistral-7B-v0.1", "--gpu", "rtx-4090", "--gpu-layers", "20"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "no --engine given, so vllm (the dashboard's default)" in err and "--engine vllm" not in err
    assert main([*argv, "--engine", "llamacpp", "--json"]) in (0, 1)
    capsys.readouterr()


@pytest.mark.parametrize(
    "beside",
    [("--gpu-util", "0.8"), ("--engine-version", "0.19.0"), ("--max-num-seqs", "8"), ("--kv-cache-memory-gib", "2")],
)
def test_an_overhead_fraction_beside_an_engines_setting_is_refused(
    beside: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The simple model ignores every engine setting; given beside ``--overhead-fraction`` each was silently
    dropped (an outside review of the defaults change, 2026-12-06). Now one named line, exit 2."""
    argv = ["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--overhead-fraction", "0.1"]
    assert main([*argv, *beside]) == 2
    err = capsys.readouterr().err
    assert beside[0] in err and "--overhead-fraction" in err and "Traceback" not in err
