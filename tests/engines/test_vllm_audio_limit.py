"""Review 45c, finding 7: ``--limit-mm-per-prompt 0`` is text-only only when it names every modality the model takes.
Gemma 4 E4B takes audio (its config has an audio_config; 0.27.0 ``model_executor/models/gemma4_mm.py:243-248``), and
a modality left out of the JSON keeps vLLM's 999 (``config/multimodal.py:345-356``): the command had said
``{"image": 0, "video": 0}``, so vLLM kept the audio tower (``gemma4_mm.py:1075-1076``, ``interfaces.py:269-308``)
and served multimodal input (``multimodal/registry.py:123-138``) while the planner planned it text-only (5.62 GiB of
KV cache on an RTX 3090 against 4.60 with the towers; 5.72 and 4.71 before the k/v projections 0.27 builds in the
shared-KV layers were planned, 2026-12-06; 5.75 and 4.73 since the desktop cards' share was refitted beside
FlashInfer's decode workspace, 2026-12-07; 5.73 and 4.71 since the allocator's segment tails are counted with the
weights, 2026-12-07). The command now names audio too, so the text-only plan is
what vLLM runs; a key a model does not take is ignored (``multimodal/processing/context.py:396-407``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_catalog import get_gpu, get_model
from planner.engines.launch import launch_commands
from planner.engines.registry import engine_profile, engine_report
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.report import knob_flags
from planner.planning.plan import PlanRequest, plan
from planner.sources.config import spec_from_hf_config

E4B = get_model("google/gemma-4-E4B-it").spec


def _planned(model: str, **settings: object) -> tuple[str, str]:
    """(the vLLM command, its first printed line) of the model on one RTX 3090 at 0.27.0."""
    gpu = get_gpu("rtx-3090")
    request = PlanRequest(
        model=get_model(model).spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True), context_tokens=8192,
        max_model_len=8192, overhead=engine_profile("vllm", version="0.27.0", **settings),
    )  # fmt: skip
    result = plan(request)
    return launch_commands(request, result)["vllm"], engine_report(request, result).lines[0]


@pytest.mark.parametrize(
    ("model", "settings", "flag", "available"),
    [
        # 5.73 / 5.73 / 4.71 before the mechanistic non-torch model (2026-12-07, fifty-third session): no desktop
        # share on the RTX card, the encoder's non-torch amount where the towers are loaded; the third 5.63 until make
        # calibrate refitted that amount without club-3090 #851's INT4 weights (2026-12-07, fifty-fourth session); 5.65
        # until FlashInfer's workspace was placed in FULL's first capture and make calibrate refit the encoder amount
        # to 46,417 B (2026-12-07); 5.64 until make calibrate refit it to 41,312 B beside the MTP drafter's buffers
        # (2026-12-07, fifty-fifth session); 5.65 until make calibrate's encoder refit to 37,217 B (2026-12-07,
        # fifty-sixth session)
        ("google/gemma-4-E4B-it", {"limit_mm_per_prompt": 0},
         """--limit-mm-per-prompt '{"image": 0, "video": 0, "audio": 0}'""", "6.76"),
        ("google/gemma-4-E4B-it", {"language_model_only": True}, "--language-model-only", "6.76"),
        ("google/gemma-4-E4B-it", {"limit_mm_per_prompt": 2},
         """--limit-mm-per-prompt '{"image": 2, "video": 2, "audio": 2}'""", "5.66"),  # every tower loaded
        ("google/gemma-4-26B-A4B-it", {"limit_mm_per_prompt": 0},
         """--limit-mm-per-prompt '{"image": 0, "video": 0}'""", None),  # no audio tower
    ],
)  # fmt: skip
def test_the_limit_names_every_modality_the_model_takes(
    model: str, settings: dict[str, object], flag: str, available: str | None
) -> None:
    command, first = _planned(model, **settings)
    assert command.endswith(f"--max-num-seqs 256 {flag}"), command
    if available is not None:
        assert first == f"Available KV cache memory: {available} GiB"


def test_before_json_the_items_name_audio_too() -> None:
    """KEY=VALUE items before 0.8.5 (nullable_kvs; versions.toml limit_mm_json)."""
    assert knob_flags(VllmProfile(engine_version="0.8.4", limit_mm_per_prompt=0), E4B) == (
        " --limit-mm-per-prompt image=0,video=0,audio=0"
    )


def test_a_config_with_an_audio_config_takes_audio() -> None:
    """A Hub import or an uploaded config.json: audio_config present (E2B / E4B) or null (26B, 31B)."""
    fixture = Path(__file__).parents[1] / "fixtures" / "configs" / "google--gemma-4-26B-A4B.json"
    config = json.loads(fixture.read_text())
    assert not spec_from_hf_config(config, "google/gemma-4-26B-A4B").audio_input
    with_audio = {**config, "audio_config": {"model_type": "gemma4_audio", "output_proj_dims": 1536}}
    assert spec_from_hf_config(with_audio, "google/gemma-4-26B-A4B").audio_input
    assert E4B.audio_input and not get_model("google/gemma-4-31B-it").spec.audio_input
