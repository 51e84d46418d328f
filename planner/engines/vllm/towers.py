"""The towers vLLM loads: which it leaves out under the multimodal limits (:func:`towers_off`: a tower whose
modalities are all at 0, Gemma 4's audio tower with audio alone at 0), and the vision-tower weights it keeps whole on
every tensor-parallel rank, where the generic plan splits them.

The generic plan (:func:`planner.core.weights.stage_weights_bytes_per_gpu`) divides a loaded attached module (a vision
tower) by TP on the first pipeline stage, as vLLM's vision encoders built from ``QKVParallelLinear`` /
``ColumnParallelLinear`` / ``RowParallelLinear`` are split under the default ``mm_encoder_tp_mode = "weights"``
(``vllm/config/multimodal.py`` line 144 at v0.19.0; Pixtral-HF ``pixtral.py`` lines 1010 and 1052, SigLIP
``siglip.py`` lines 383-463, Llama 4 ``mllama4.py`` lines 130-287, Qwen3-VL ``qwen3_vl.py`` lines 190-300).

One implementation is not split: ``PixtralForConditionalGeneration``, which vLLM builds when it reads a model in
Mistral's own format. With ``config_format`` "auto" a repo holding ``consolidated*.safetensors`` and
``params.json`` is read as Mistral format (``vllm/transformers_utils/config.py`` lines 637-646,
``repo_utils.py`` lines 151-163), whose multimodal config names ``PixtralForConditionalGeneration``
(``transformers_utils/configs/mistral.py`` lines 96-105), and ``load_format`` "auto" then loads the consolidated
files (``model_executor/model_loader/default_loader.py`` lines 110-123). That class builds its vision encoder,
patch merger and adapter from plain ``nn.Linear`` / ``Conv2dLayer`` / ``RMSNorm`` (``pixtral.py`` lines 328-345,
620-639, 733-740, 825-831, 855): every rank holds all of them.

Not counted: the HF-format ``Mistral3ForConditionalGeneration`` path (a quantized checkpoint's) keeps only its
norms, ``patch_conv`` and the patch merger's ``merging_layer`` whole (``mistral3.py`` line 88; 4.8 M parameters,
under 5 MiB per rank at TP 2); Kimi-VL's ``ReplicatedLinear`` projector (``kimi_vl.py`` lines 110-120) and
Gemma 4's ``embedding_projection`` (``gemma4_mm.py`` line 823) are small and not planned here either.
"""

from __future__ import annotations

import json
import math
from typing import NamedTuple, Protocol

from planner.core.model import ModelSpec
from planner.core.params import parameter_breakdown
from planner.core.precision import weight_format
from planner.core.serving import serving_weights
from planner.core.weights import category_bits


def serves_mistral_native_files(model: ModelSpec, weights: str) -> bool:
    """Whether vLLM loads the model from its Mistral-format files: the repo ships them
    (``ModelSpec.mistral_native_files``) and the weights served are the repo's own (its native precision). A
    quantized checkpoint of these models (RedHatAI's W8A8, FP8, GPTQ) is a separate repo of ``config.json`` and
    ``model-*.safetensors``, read as Hugging Face format (``Mistral3ForConditionalGeneration``)."""
    return model.mistral_native_files and weights == serving_weights(model)


def replicated_tower_extra_bytes(model: ModelSpec, weights: str, tensor_parallel: int, first_stage: bool) -> int:
    """Bytes one rank of the first pipeline stage holds beyond the generic plan's split of the vision tower when
    vLLM serves the Mistral-format files: ``tower bytes x (1 - 1 / tp)`` (the plan counted ``tower bytes / tp``,
    vLLM holds it whole). Zero otherwise.

    Mistral Small 3.1 (438,958,080 vision parameters, bf16): 0.41 GiB more per rank at TP 2, 0.61 at TP 4; the
    0.19 runs print 22.80 and 11.86 GiB where the split tower gives 22.39 and 11.21.
    """
    if not first_stage or tensor_parallel == 1 or not serves_mistral_native_files(model, weights):
        return 0
    params = parameter_breakdown(model)
    bits = category_bits(weight_format(weights), params.experts > 0)["attached"]
    tower_bits = params.attached_loaded * bits
    return math.ceil(tower_bits / 8) - math.ceil(tower_bits / tensor_parallel / 8)


class TowersOff(NamedTuple):
    """The towers vLLM leaves unloaded (:func:`towers_off`)."""

    vision: bool  # the vision tower and its embedder (images and videos)
    audio: bool  # the audio tower and its embedder (AttachedModule.audio)


class TowerLimits(Protocol):
    """What :func:`towers_off` reads of a vLLM profile (``VllmProfile``)."""

    @property
    def language_model_only(self) -> bool: ...

    @property
    def limit_mm_per_prompt(self) -> int | None: ...

    @property
    def limit_mm_audio(self) -> int | None: ...


def towers_off(limits: TowerLimits) -> TowersOff:
    """Which towers vLLM does not build: one whose modalities all have a limit of 0 is a ``StageMissingLayer``
    under ``no_init_weights`` (0.29.0 ``model_executor/models/interfaces.py:332-378``, the test at :374; 0.17.0
    :258-261 and every release read since; not 0.11.0), Gemma 4's vision tower for images and videos, its audio
    tower for audio (``gemma4_mm.py:1086``, :1103-1120). ``--language-model-only`` makes every limit 0
    (``config/multimodal.py:495``); audio's limit is ``limit_mm_audio`` where given, else the shared count. The flags
    alone decide it: a model without an audio tower has no audio module for ``audio`` to leave out
    (:func:`unloaded_tower_bytes`, :func:`loads_a_tower`)."""
    vision = not serves_multimodal(limits.language_model_only, limits.limit_mm_per_prompt)
    audio_items = limits.limit_mm_per_prompt if limits.limit_mm_audio is None else limits.limit_mm_audio
    return TowersOff(vision=vision, audio=limits.language_model_only or audio_items == 0)


def loads_a_tower(off: TowersOff, model: ModelSpec) -> bool:
    """Whether vLLM loads any tower of the model, so profiles its encoder: the vision tower, or an audio tower alone
    (images and videos at 0, audio given)."""
    return is_multimodal(model) and not (off.vision and (off.audio or not model.audio_input))


def unloaded_tower_bytes(model: ModelSpec, weights: str, tensor_parallel: int, off: TowersOff) -> int:
    """The loaded attached modules (towers) vLLM leaves unloaded, on one rank of the first stage as the generic plan
    splits them (``parameters / tp`` at the attached modules' bits): the audio modules where ``off.audio``, the
    others where ``off.vision`` (:func:`towers_off`)."""
    unloaded = sum(
        m.parameters for m in model.attached_modules if m.loaded_for_serving and (off.audio if m.audio else off.vision)
    )
    bits = category_bits(weight_format(weights), parameter_breakdown(model).experts > 0)["attached"]
    return math.ceil(unloaded * bits / tensor_parallel / 8)


def is_multimodal(model: ModelSpec) -> bool:
    """An attached module loaded for serving (a vision tower) makes vLLM profile its encoder first."""
    return any(module.loaded_for_serving for module in model.attached_modules)


def serves_multimodal(language_model_only: bool, limit_mm_per_prompt: int | None) -> bool:
    """Whether the server takes multimodal input: not with ``--language-model-only`` or a limit of 0 items per
    prompt (``config/multimodal.py``, 0.21.0 :77-79 and :315-316)."""
    return not language_model_only and limit_mm_per_prompt != 0


def prefix_floor_applies(floor: str, language_model_only: bool, limit_mm_per_prompt: int | None) -> bool:
    """Whether a release's prefix-LM batch floor (``VllmRules.mm_prefix_batch_floor``) is raised under these flags:
    before 0.27.0 whatever input is enabled, then only where the server takes multimodal input.

    >>> prefix_floor_applies("always", True, None), prefix_floor_applies("with-mm-input", True, None)
    (True, False)
    """
    served = serves_multimodal(language_model_only, limit_mm_per_prompt)
    return floor == "always" or (floor == "with-mm-input" and served)


def mm_limits(items: int | None, model: ModelSpec | None, audio: int | None = None) -> dict[str, int]:
    """``--limit-mm-per-prompt`` for every modality the model takes: images and videos, and audio where it has an
    audio tower (:attr:`ModelSpec.audio_input`). A modality left out keeps vLLM's default of 999 (0.27.0
    ``config/multimodal.py:345-356``), so a limit of 0 would leave Gemma 4 E4B's audio on, its audio tower loaded
    (``model_executor/models/gemma4_mm.py:1075-1076``; ``interfaces.py:269-308`` skips a tower only when all its
    modalities are 0) and the server not text-only (``multimodal/registry.py:123-138``). A key the model does not
    take is ignored (``multimodal/processing/context.py:396-407`` reads the supported modalities only). ``audio``
    (``--limit-mm-audio``) sets audio's own count, alone where ``items`` is None (images and videos keep 999).

    >>> from model_catalog import get_model
    >>> mm_limits(0, get_model("google/gemma-4-E4B-it").spec), mm_limits(2, get_model("google/gemma-4-31B-it").spec)
    ({'image': 0, 'video': 0, 'audio': 0}, {'image': 2, 'video': 2})
    >>> mm_limits(None, get_model("google/gemma-4-E2B-it").spec, 0)
    {'audio': 0}
    """
    takes_audio = model is not None and model.audio_input
    modalities = ("image", "video", "audio") if takes_audio else ("image", "video")
    limits = {} if items is None else dict.fromkeys(modalities, items)
    return limits | ({"audio": audio} if takes_audio and audio is not None else {})


def limit_mm_argument(items: int | None, model: ModelSpec | None, audio: int | None, as_json: bool = True) -> str:
    """``--limit-mm-per-prompt`` as ``vllm serve`` takes it, from :func:`mm_limits` (``""``: no limit given): a JSON
    of counts by modality, or ``KEY=VALUE`` items before 0.8.5 (``as_json`` False: ``nullable_kvs``).

    >>> from model_catalog import get_model
    >>> print(limit_mm_argument(2, get_model("google/gemma-4-E2B-it").spec, 0))
    --limit-mm-per-prompt '{"image": 2, "video": 2, "audio": 0}'
    >>> limit_mm_argument(2, get_model("google/gemma-4-31B-it").spec, None, as_json=False)
    '--limit-mm-per-prompt image=2,video=2'
    """
    limits = mm_limits(items, model, audio)
    if not limits:
        return ""
    if as_json:
        return f"--limit-mm-per-prompt '{json.dumps(limits)}'"
    return "--limit-mm-per-prompt " + ",".join(f"{key}={n}" for key, n in limits.items())
