"""``--cpu-offload-gb`` on Model Runner V2 (``versions.toml`` rule ``v2_weight_offload``): only the V1 runner installs
the weight offloader before 0.28.0 (0.27.1 ``v1/worker/gpu_model_runner.py:939``; Model Runner V2 from 0.28.0
``v1/worker/gpu/model_runner.py:324``), so on V2 the flag moves nothing (vllm-project/vllm#51396). Found by an outside
review (2026-12-06): Qwen3-14B on an RTX 4090 at 0.27.1 planned to fit with 12 GiB offloaded, and "offload needed
(GiB) 10" offered as the cure of its weights OOM."""

from __future__ import annotations

from model_catalog import get_model
from planner.assessment.assess import assess
from planner.assessment.search import deployment_answers
from planner.cli import main
from planner.core.units import GiB
from planner.deploy.options import DeploymentOptions, SpeculativeOptions
from planner.engines.launch import launch_commands
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.versions import vllm_rules
from planner.planning.plan import PlanRequest
from tests.engines.vllm_planned import on_one_gpu


def _request(version: str, offload_gib: int = 0, **changes: object) -> PlanRequest:
    offload = DeploymentOptions(cpu_offload_bytes=offload_gib * GiB) if offload_gib else None
    return on_one_gpu("Qwen/Qwen3-14B", version, **{"deployment": offload, **changes})


def test_model_runner_v2_installs_the_offloader_from_0_28() -> None:
    assert not any(vllm_rules(v).v2_weight_offload for v in ("0.22.0", "0.25.1", "0.26.0", "0.27.0", "0.27.1"))
    assert vllm_rules("0.28.0").v2_weight_offload and vllm_rules("0.29.0").v2_weight_offload


def test_the_offload_moves_nothing_on_v2_before_0_28() -> None:
    """0.27.1 runs Qwen3-14B (dense) on V2: 27.52 GiB load whole on the 24 GiB card, a weights OOM as vLLM's; 0.28.0
    offloads the 12 GiB and starts with 4.39 GiB of KV cache (4.25, the review's figure, until the desktop cards'
    share was refitted beside FlashInfer's decode workspace, 2026-12-07, 4.38 until its refit on the merged tree,
    the same day, 4.39 until the mechanistic non-torch model planned no desktop share, the same day, fifty-third
    session: 5.42 since; before: also at 0.27.1)."""
    old, new = assess(_request("0.27.1", 12)), assess(_request("0.28.0", 12))
    assert old.report is not None and new.report is not None
    assert old.report.failure_kind == "weights-oom" and not old.fits
    assert round(old.result.per_gpu.weights_bytes / GiB, 2) == 27.52
    assert all(s.host_weights_bytes == 0 for s in old.result.deployment_stages or ())
    assert new.fits and round(new.report.available_kv_cache_bytes_per_gpu / GiB, 2) == 5.42
    assert round(new.result.per_gpu.weights_bytes / GiB, 2) == 15.52
    note = next(n for n in old.report.notes if n.startswith("--cpu-offload-gb 12 moves nothing"))
    assert "vLLM 0.27.1 runs Qwen3 14B on Model Runner V2" in note
    assert note.endswith("VLLM_USE_V2_MODEL_RUNNER=0 starts the V1 runner, which offloads.")
    assert not any("moves nothing" in n for n in new.report.notes)
    command = launch_commands(old.request, old.result)["vllm"]
    assert command.startswith("# predicted not to start as planned: torch.OutOfMemoryError")


def test_the_v1_runner_offloads_at_0_27() -> None:
    """Forced to V1 (VLLM_USE_V2_MODEL_RUNNER=0), or on V1 by its speculative method (a draft model runs V1 until
    0.31), 0.27.1 offloads as 0.28.0 does."""
    forced = assess(_request("0.27.1", 12, overhead=VllmProfile(engine_version="0.27.1", use_v2_model_runner=False)))
    assert forced.fits and round(forced.result.per_gpu.weights_bytes / GiB, 2) == 15.52
    draft = SpeculativeOptions(method="draft", num_speculative_tokens=4, draft_model=get_model("Qwen/Qwen3-0.6B").spec)
    drafted = _request("0.27.1", 12, deployment=DeploymentOptions(cpu_offload_bytes=12 * GiB, speculative=draft))
    stages = assess(drafted).result.deployment_stages or ()
    assert [s.host_weights_bytes for s in stages] == [12 * GiB]


def test_the_cure_of_a_weights_oom_on_v2_names_the_v1_runner() -> None:
    """Without the flag the set-up is a weights OOM at both releases; 9 GiB cures it, at 0.27.1 only with
    VLLM_USE_V2_MODEL_RUNNER=0 (before: 10 with nothing said, an offload that does not happen); 0.28.0 needs 9 since the
    desktop cards' share was refitted beside FlashInfer's decode workspace (2026-12-07), 10 before; since the
    mechanistic non-torch model plans no desktop share (the same day, fifty-third session) 9 cures it at 0.27.1 and
    8 at 0.28.0."""
    old, new = assess(_request("0.27.1")), assess(_request("0.28.0"))
    assert old.report is not None and old.report.failure_kind == "weights-oom"
    assert deployment_answers(old) == {"cpu_offload_gib_needed": 9, "cpu_offload_needs": "VLLM_USE_V2_MODEL_RUNNER=0"}
    assert deployment_answers(new) == {"cpu_offload_gib_needed": 8}


def test_fit_prints_what_the_offload_needs(capsys: object) -> None:
    args = ["fit", "--model", "Qwen/Qwen3-14B", "--gpu", "rtx-4090", "--engine-version", "0.27.1"]
    assert main(args) == 1  # does not fit
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "offload needed (GiB)  9\n" in out  # 10 before the mechanistic non-torch model (2026-12-07)
    assert "offload needs         VLLM_USE_V2_MODEL_RUNNER=0 (the release ignores --cpu-offload-gb without it)" in out
