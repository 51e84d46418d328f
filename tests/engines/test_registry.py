"""The engine registry: every registered engine is complete, an unknown name is an error everywhere, and a new
engine is one module plus one registry line (a toy engine registered here shows on the CLI and the Memory
page)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import ClassVar, Literal, get_args

import pytest

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.cli import main
from planner.core.overhead import EngineProfile, Fraction, OverheadBytes, StageContext
from planner.core.units import GiB
from planner.engines import launch, registry
from planner.engines.base import Engine, EngineReport, engine_total_bytes
from planner.engines.commands import command
from planner.engines.settings import BY_NAME
from planner.engines.support import EngineSupport, Family, PlatformRow
from planner.planning.plan import PlanRequest, plan
from planner.planning.results import PlanResult
from tests.app.conftest import COMMANDS, run_page, texts

MODEL = get_model("meta-llama/Llama-3.1-8B").spec
H100 = get_gpu("h100-sxm-80gb")


def _request(overhead: object, gpus: int = 1) -> PlanRequest:
    return PlanRequest(
        model=MODEL,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        gpu_count=gpus,
        context_tokens=8192,
        max_model_len=8192,
        overhead=overhead,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("engine", registry.engines(), ids=lambda e: e.name)
def test_every_registered_engine_is_complete(engine: Engine) -> None:
    assert engine.name and engine.name == engine.name.lower(), "a lower-case registry name"
    assert engine.label and engine.description, f"{engine.name}: set label and description"
    assert len(engine.full_pool_behaviour) > 40, f"{engine.name}: describe what it does when the KV pool is full"
    profile = engine.profile()
    assert isinstance(profile, engine.profile_type), f"{engine.name}: profile() must return its profile_type"
    assert profile.kind == engine.name == profile.engine_name, f"{engine.name}: the profile's kind is the name"
    for gpus in (1, 2):
        request = _request(profile, gpus)
        result = plan(request)
        report = engine.report(request, result, profile)
        assert isinstance(report, EngineReport) and report.engine == engine.name
        assert report.lines, f"{engine.name}: the report prints the engine's start-up lines"
        assert report.kv_cache_tokens > 0 and report.fits
        command = engine.launch_command(request, result, None)
        assert MODEL.id.split("/")[-1] in command, f"{engine.name}: the launch command names the model"
        assert 0 < engine.max_model_len(request, result, profile) <= MODEL.max_position_embeddings
    assert engine.name in registry.profile_names()
    for setting, field in engine.setting_fields.items():  # each setting fills a field of the engine's profile
        assert field in engine.profile_type.model_fields, f"{engine.name}: {setting} names no profile field {field!r}"
    if engine.window_setting is not None:  # a flag it takes, off by default
        assert engine.window_setting in engine.setting_fields, f"{engine.name}: take its window_setting"
        assert BY_NAME[engine.window_setting].kind == "flag", f"{engine.name}: window_setting must be a flag"
        assert not registry.launch_values(profile).get(engine.window_setting)


def test_unknown_engine_names_are_errors_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    for call in (
        lambda: registry.get_engine("lmdeploy"),
        lambda: registry.engine_profile("lmdeploy"),
        lambda: registry.overhead_profile("lmdeploy"),
        lambda: registry.profile_label("lmdeploy"),
    ):
        with pytest.raises(PlannerError, match="unknown engine 'lmdeploy'"):
            call()


def test_cli_refuses_an_unknown_engine(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["fit", "--model", MODEL.id, "--gpu", H100.id, "--engine", "lmdeploy"])
    assert exit_info.value.code == 2
    assert "lmdeploy" in capsys.readouterr().err


class HalfAdded(EngineProfile, frozen=True, extra="forbid"):
    """A profile whose engine was never registered (the review's half-added LMDeploy)."""

    kind: Literal["lmdeploy"] = "lmdeploy"
    engine_version: str = "0.6"

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        return OverheadBytes(activation_bytes=0, framework_bytes=0, reserved_bytes=0)


def test_a_half_added_engine_never_borrows_vllms_figures() -> None:
    request = _request(HalfAdded())
    result = plan(request)
    with pytest.raises(PlannerError, match="unknown engine 'lmdeploy'"):
        registry.engine_report(request, result)
    with pytest.raises(PlannerError, match="unknown engine 'lmdeploy'"):
        registry.max_model_len_allowed(request, result)


# -- a toy engine: a fixed share of memory for weights and KV, blocks of 32 tokens --------------------------


class ToyProfile(EngineProfile, frozen=True, extra="forbid"):
    kind: Literal["toy"] = "toy"
    engine_version: str = "1.0"
    share: Fraction = 0.8

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        return OverheadBytes(
            activation_bytes=0,
            framework_bytes=GiB,
            reserved_bytes=ctx.gpu_memory_bytes - math.floor(self.share * ctx.gpu_memory_bytes),
        )


class ToyEngine(Engine):
    name: ClassVar[str] = "toy"
    label: ClassVar[str] = "ToyServe"
    description: ClassVar[str] = "ToyServe: a fixed share of memory for weights + KV"
    profile_type: ClassVar[type[EngineProfile]] = ToyProfile
    fraction_flag: ClassVar[str | None] = "--share"
    default_fraction: ClassVar[float | None] = 0.8
    setting_fields: ClassVar[dict[str, str]] = {"fraction": "share"}
    support: ClassVar[EngineSupport] = EngineSupport(
        label="ToyServe",
        platforms=(
            PlatformRow(
                families=tuple(get_args(Family)),
                weights=("bf16", "fp16", "fp8"),
                kv_dtypes=("bf16", "fp16", "fp8"),
                compute="16-bit",
                source="the toy engine of this test",
            ),
        ),
        kv_cache_names={"bf16": "auto", "fp16": "auto", "fp8": "fp8"},
        context_flag="--max-len",
    )
    full_pool_behaviour: ClassVar[str] = "ToyServe queues new requests until a running one finishes; it never preempts."

    def report(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> EngineReport:
        assert isinstance(profile, ToyProfile)
        stage = result.per_gpu
        tokens = stage.kv_cache_bytes // stage.kv_bytes_per_token // 32 * 32
        return EngineReport(
            engine=self.name,
            engine_version=profile.engine_version,
            total_memory_bytes=engine_total_bytes(request),
            budget_bytes=math.floor(profile.share * engine_total_bytes(request)),
            weights_bytes=stage.weights_bytes,
            activation_bytes=0,
            non_torch_bytes=GiB,
            cuda_graph_bytes=0,
            available_kv_cache_bytes_per_gpu=stage.kv_cache_bytes,
            min_available_kv_cache_bytes=stage.kv_cache_bytes,
            block_size=32,
            gpu_blocks=tokens // 32,
            kv_cache_groups=1,
            kv_cache_tokens=tokens,
            max_model_len=result.max_model_len,
            max_concurrency=tokens / result.max_model_len,
            fits_max_model_len=tokens >= result.max_model_len,
            estimated_max_model_len=None,
            fits=tokens >= result.max_model_len,
            lines=(f"[toy] KV pool: {tokens} tokens",),
        )

    def launch_command(self, request: PlanRequest, result: PlanResult, profile: EngineProfile | None) -> str:
        return command("toy-serve", request.model.id, "--tp", result.tensor_parallel, "--max-len", result.max_model_len)


@pytest.fixture
def toy() -> Iterator[ToyEngine]:
    engine = ToyEngine()
    registry.register(engine)  # the "one registry line"
    yield engine
    registry.unregister(engine.name)


def test_a_registered_toy_engine_is_complete(toy: ToyEngine) -> None:
    test_every_registered_engine_is_complete(toy)
    with pytest.raises(PlannerError, match="already registered"):
        registry.register(ToyEngine())


def test_a_registered_toy_engine_shows_on_the_cli(toy: ToyEngine, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["fit", "--model", MODEL.id, "--gpu", H100.id, "--engine", "toy", "--context", "8192", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["engine"] == "toy"
    request = _request(ToyProfile())
    report = toy.report(request, plan(request), ToyProfile())
    assert data["engine_lines"] == list(report.lines)
    assert data["kv_budget_tokens_per_replica"] == report.kv_cache_tokens


@pytest.mark.apptest
def test_a_registered_toy_engine_shows_on_the_memory_page(toy: ToyEngine) -> None:
    at = run_page("memory", {"engine": "toy", "context": "8192"}, open_keys=[COMMANDS])  # Launch commands open
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["engine"] == "toy"
    assert "What ToyServe 1.0 will print at start-up" in texts(at.subheader)
    codes = [c.value for c in at.code]
    assert any("<pre class='hr-pre'" in h.proto.body and "[toy] KV pool:" in h.proto.body for h in at.get("html"))
    assert any(code.startswith(f"toy-serve {MODEL.id} --tp 1") for code in codes)
    assert "ToyServe" in [tab.label for tab in at.tabs]


def test_every_engine_takes_its_own_profile_and_refuses_another() -> None:
    """``report`` and ``launch_command`` take the engine's own profile (its defaults when none is given) and name
    another engine's profile as a PlannerError."""
    request = PlanRequest(model=MODEL, gpu=H100, gpu_memory_bytes=H100.memory_bytes, context_tokens=8192)
    result = plan(request)
    for engine in registry.engines():
        assert engine.launch_command(request, result, None).strip()
        foreign = registry.get_engine("trtllm" if engine.name == "sglang" else "sglang").profile()
        with pytest.raises(PlannerError, match=f"engine: a '{foreign.kind}' profile is not"):
            engine.launch_command(request, result, foreign)


def test_a_registered_toy_engine_is_advised(toy: ToyEngine, capsys: pytest.CaptureFixture[str]) -> None:
    """``advise --engine toy`` is accepted and plans on the toy engine's own platforms (no list to edit)."""
    argv = ["advise", "--model", MODEL.id, "--context", "8192", "--users", "4", "--engine", "toy", "--json"]
    assert main([*argv, "--gpu", "h100-sxm-80gb"]) == 0
    data = json.loads(capsys.readouterr().out)
    best = data["options"][0]
    assert best["engine"] == "toy" and best["gpu_id"] == "h100-sxm-80gb"
    assert all(option["engine"] == "toy" for option in data["options"])


def test_a_registered_toy_engine_has_a_launch_command_everywhere(toy: ToyEngine) -> None:
    request = _request(registry.engine_profile("vllm"))
    commands = launch.launch_commands(request, plan(request))
    assert commands["toy"] == f"toy-serve {MODEL.id} --tp 1 --max-len 8192"


@pytest.mark.apptest
def test_a_registered_toy_engine_shows_on_the_advisor_page(toy: ToyEngine) -> None:
    at = run_page("advisor", {"engines": "toy", "gpu_filter": "h100-sxm-80gb", "users": "4"})
    assert not at.exception, [e.value for e in at.exception]
    assert any("ToyServe" in text for text in texts(at.success) + texts(at.warning)), texts(at.success)


def test_engine_labelled_reads_a_benchmark_rows_engine() -> None:
    """A source's engine text names a registered engine by its label; the prompt chunk is that engine's own rule
    (vLLM 2,048 on an A100, SGLang 8,192 there: planner.engines.vllm.defaults, planner.engines.sglang)."""
    from planner.core.units import GiB
    from planner.engines.registry import engine_labelled, get_engine

    sglang, vllm = engine_labelled("SGLang 0.5.3"), engine_labelled("vLLM 0.11.0")
    assert sglang is not None and sglang.name == "sglang"
    assert vllm is not None and vllm.name == "vllm"
    assert engine_labelled("MLC 0.1") is None
    a100 = int(79.25 * GiB)
    assert vllm.prefill_chunk_tokens(a100, "NVIDIA A100 80GB", 1) == 2048
    assert sglang.prefill_chunk_tokens(a100, "NVIDIA A100 80GB", 1) == 8192
    assert get_engine("llamacpp").prefill_chunk_tokens(a100, "NVIDIA A100 80GB", 1) is None
