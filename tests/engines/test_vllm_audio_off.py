"""``--limit-mm-per-prompt`` with audio at 0 (issue 20): vLLM leaves the audio tower unloaded, the vision tower stays.

vLLM builds each tower of a multimodal model inside ``_mark_tower_model(vllm_config, modalities)`` and, where
``get_limit_per_prompt`` is 0 for every one of its modalities, builds it as ``StageMissingLayer`` under
``no_init_weights``: no weights allocated or loaded (0.29.0 ``model_executor/models/interfaces.py:332-378``, the test
at :374; the same at 0.22.0 :284-287, 0.24.0 :285-288, 0.26.0 :290-293, 0.27.1 :302-305, 0.28.0 :329-332, 0.30.0
:373-376, 0.31.0 :375-378, and 0.17.0 :258-261 with Gemma 3n's towers at ``gemma3n_mm.py:509``
and :515; not in 0.11.0, whose Gemma 3n builds both towers whatever the limits; made generic by vllm-project/vllm#32757,
after the per-model skips of #22299). Gemma 4 builds its vision tower for ``{"image", "video"}`` and its audio
tower with ``embed_audio`` for ``"audio"`` (0.29.0 ``gemma4_mm.py:1086`` and :1103-1120), Gemma 3n likewise
(``gemma3n_mm.py:636`` and :642). A modality left out of the JSON keeps 999 (0.29.0 ``config/multimodal.py:490-503``)
and ``--language-model-only`` makes every limit 0 (:495-496). The encoder's profile and cache budget take only the
modalities with a limit above 0 (0.29.0 ``multimodal/encoder_budget.py:79-84``); Gemma 4's largest item stays the
32-frame video (``gemma4_mm.py:259-284``: an audio clip is ``audio_seq_length`` tokens, a video 2,496), so turning
audio off moves the weights, not the encoder profile.

The audio tower's size is computed from its config (hidden 1,024, 12 Conformer layers, 8 heads,
``subsampling_conv_channels`` [128, 32], ``output_proj_dims`` 1,536, ``use_clipped_linears``: the released
``audio_config`` as public parsers quote it, find_string ids 58071598685 and 63418043157) and the modules of
``transformers`` ``models/gemma4/modeling_gemma4.py`` (Gemma4AudioLayer: two feed-forwards 1,024 -> 4,096 -> 1,024
with two norms each, attention q/k/v/post and ``relative_k_proj`` 1,024 x 1,024 and ``per_dim_scale`` 128, a light
convolution 1,024 -> 2,048, 1,024 -> 1,024, depthwise 1,024 x 5 and two norms, three norms; four clip bounds a clipped
linear; the sub-sample convolutions and ``input_proj_linear`` 1,024 x 1,024; ``output_proj`` 1,024 -> 1,536 with
bias; find_string id 51764282975) and vLLM's ``Gemma4MultimodalEmbedder`` (a bias-free projection from 1,536 into the
text width, no norm weight: 0.29.0 ``gemma4_mm.py:939-984``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_catalog import get_gpu, get_model
from planner.core.overhead import LoadContext, StageContext
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.report import knob_flags
from planner.engines.vllm.towers import towers_off

E2B = get_model("google/gemma-4-E2B-it").spec
E4B = get_model("google/gemma-4-E4B-it").spec
MI300X = get_gpu("mi300x")
CASE = Path(__file__).parents[1] / "fidelity" / "cases" / "vllm-relboots-2026-12.json"


def _audio_tower_parameters(hidden: int = 1024, layers: int = 12, heads: int = 8, out: int = 1536) -> int:
    """Gemma4AudioModel's tensors (module docstring)."""
    feed_forward = 2 * hidden * 4 * hidden + 2 * hidden
    attention = 5 * hidden * hidden + hidden // heads
    light_conv = hidden * 2 * hidden + hidden * hidden + hidden * 5 + 2 * hidden
    clip_bounds = 4 * (2 * 2 + 4 + 2)  # ten clipped linears a layer
    layer = 2 * feed_forward + attention + light_conv + 3 * hidden + clip_bounds
    subsample = 1 * 128 * 9 + 128 + 128 * 32 * 9 + 32 + (128 // 4) * 32 * hidden
    return layers * layer + subsample + hidden * out + out


def _audio(spec: object) -> int:
    return sum(m.parameters for m in spec.attached_modules if m.audio)  # type: ignore[attr-defined]


def test_the_audio_tower_is_its_own_module() -> None:
    """The towers' remainder of the Hub total splits into the audio tower with ``embed_audio`` (computed) and the
    vision tower with ``embed_vision`` (the rest): E2B 307,184,384 + 168,543,776, E4B 308,757,248 + 169,330,208; the
    two vision parts differ by exactly ``embed_vision``'s 768 x (2,560 - 1,536)."""
    tower = _audio_tower_parameters()
    assert tower == 304_825_088
    assert _audio(E2B) == tower + 1536 * 1536 == 307_184_384
    assert _audio(E4B) == tower + 1536 * 2560 == 308_757_248
    e2b_vision = sum(m.parameters for m in E2B.attached_modules if not m.audio)
    e4b_vision = sum(m.parameters for m in E4B.attached_modules if not m.audio)
    assert (e2b_vision, e4b_vision) == (168_543_776, 169_330_208)
    assert e4b_vision - e2b_vision == 768 * (2560 - 1536)


def _loaded(profile: VllmProfile) -> int:
    ctx = LoadContext(
        model=E2B, weights_bytes=0, weights_format="bf16", tensor_parallel=1, pipeline_parallel=1, stage_index=0,
        layers=(0, E2B.num_hidden_layers),
    )  # fmt: skip
    return profile.loaded_weights_bytes(ctx)


def test_audio_at_zero_unloads_the_audio_tower_only() -> None:
    """At 0.29.0 the weights drop by the audio tower's bf16 bytes (614,368,768, 0.57 GiB) and no more; the vision
    tower goes only with image and video at 0 too."""
    served = VllmProfile(engine_version="0.29.0")
    audio_off = VllmProfile(engine_version="0.29.0", limit_mm_audio=0)
    all_off = VllmProfile(engine_version="0.29.0", limit_mm_per_prompt=0)
    assert _loaded(served) - _loaded(audio_off) == 2 * 307_184_384
    assert _loaded(served) - _loaded(all_off) == 2 * (307_184_384 + 168_543_776)
    assert towers_off(audio_off) == (False, True)
    assert audio_off.loads_encoder(E2B) and not all_off.loads_encoder(E2B)


def test_audio_alone_keeps_the_audio_tower() -> None:
    """Images and videos at 0 with audio given: the vision tower goes, the audio tower stays."""
    audio_only = VllmProfile(engine_version="0.29.0", limit_mm_per_prompt=0, limit_mm_audio=1)
    assert towers_off(audio_only) == (True, False)
    assert _loaded(VllmProfile(engine_version="0.29.0")) - _loaded(audio_only) == 2 * 168_543_776


def test_the_encoder_profile_is_unchanged() -> None:
    """The video item stays the largest, so the profile run's encoder term is the same with audio off."""
    ctx = StageContext(
        model=E2B, gpu_memory_bytes=MI300X.engine_visible_bytes or MI300X.memory_bytes, tensor_parallel=1,
        pipeline_parallel=1, is_last_stage=True, weights_format="bf16", gpu_name=MI300X.name,
    )  # fmt: skip
    served, audio_off = VllmProfile(engine_version="0.29.0"), VllmProfile(engine_version="0.29.0", limit_mm_audio=0)
    assert served.stage_terms(ctx).encoder == audio_off.stage_terms(ctx).encoder > 0


@pytest.mark.parametrize(
    ("settings", "flag"),
    [
        ({"limit_mm_audio": 0}, """ --limit-mm-per-prompt '{"audio": 0}'"""),
        ({"limit_mm_per_prompt": 4, "limit_mm_audio": 0},
         """ --limit-mm-per-prompt '{"image": 4, "video": 4, "audio": 0}'"""),
        ({"limit_mm_per_prompt": 4}, """ --limit-mm-per-prompt '{"image": 4, "video": 4, "audio": 4}'"""),
    ],
)  # fmt: skip
def test_the_command_names_audio(settings: dict[str, int], flag: str) -> None:
    assert knob_flags(VllmProfile(engine_version="0.29.0", **settings), E2B) == flag  # type: ignore[arg-type]


def test_audio_is_ignored_without_an_audio_tower() -> None:
    """Gemma 4 31B takes no audio: vLLM reads only the modalities the model supports (0.27.0
    ``multimodal/processing/context.py:396-407``), so nothing is written and nothing moves."""
    spec = get_model("google/gemma-4-31B-it").spec
    assert knob_flags(VllmProfile(engine_version="0.29.0", limit_mm_audio=0), spec) == ""
    assert towers_off(VllmProfile(engine_version="0.29.0", limit_mm_audio=0)) == (False, True)


def test_the_mi300x_boot_is_mapped_with_audio_off() -> None:
    """The 0.29.1rc1 MI300X E2B boot served ``--limit-mm-per-prompt '{"image": 4, "audio": 0}'``: its profile states
    audio 0 (images at 4 against 999 moves no memory: the encoder's item and budget are per item)."""
    case = json.loads(CASE.read_text())[0]
    assert '\'{\\"image\\": 4, \\"audio\\": 0}\'' in json.dumps(case["notes"])
    assert VllmProfile(**case["setup"]["profile"]).limit_mm_audio == 0
