"""vLLM's defaults for ``max_num_batched_tokens`` and ``max_num_seqs`` by release, device and usage context
(``EngineArgs.get_batch_defaults``; rule ``batch_defaults`` in ``versions.toml``).

``device memory`` is ``current_platform.get_device_total_memory()`` (the total the engine prints) and the device
name is lower-cased:

- every release: 70 GiB or more and not an A100: 1024 sequences, 8192 tokens for ``vllm serve`` and 16384 for the
  ``LLM`` class; otherwise 256 sequences and 2048 / 8192 tokens (0.19.0 ``engine/arg_utils.py:2024-2091``, 0.24.0
  ``:2375-2420``);
- from 0.28.0: 160 GiB or more (B200, B300, MI300X): 1024 sequences and 16384 tokens for both (0.28.0 ``:2582``);
- the GB10 (DGX Spark) is on the small tier in every release: until 0.32 NVML's device memory query, which
  ``get_device_total_memory`` calls, fails on it ("Integrated parts (e.g. GB10 / DGX Spark) do not implement
  the device-level NVML memory query", 0.33.0 ``platforms/cuda.py:807-814``; no fallback before, 0.27.0
  ``:770-773``), and ``get_batch_defaults`` then takes 0 GiB (``except Exception``, 0.27.0
  ``engine/arg_utils.py:2533-2539``); from 0.33.0 the query falls back to CUDA's total and ``is_gb10`` (compute
  capability 12.1) keeps it off the 70 GiB tier (0.33.0 ``:2963-2986``). A DGX Spark log shows it: 'Profiling
  CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)' at vLLM 0.27.1 with no batch flags;
- an AMD APU (Strix Halo) is on the small tier from 0.24.0 (rule ``rocm_vram_defaults``): ROCm's device total is
  then amdsmi's VRAM total (0.28.0 ``platforms/rocm.py:192-196``, ``:847-863``), on an APU the BIOS carve-out, while
  vLLM allocates from the shared pool (GTT) that the planned memory is; the carve-out is taken below 70 GiB, as
  Linux set-ups for vLLM leave it (a public 0.28 boot with an 80 GiB pool logs the small tier's 2,048-token step).

What the engine then runs with, the defaults and the flags given settled (:func:`settled_batch`): a defaulted
``max_num_seqs`` never above the tokens; from 0.12.0 defaulted tokens capped at ``max_num_seqs x max_model_len``;
from 0.22.0 raised to a multimodal prefix-LM model's largest item (:func:`mm_prefix_item_tokens`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from planner.core.model import ModelSpec
from planner.core.units import GiB
from planner.engines.vllm.towers import is_multimodal

SMALL = ((2048, 8192), 256)  # (server, LLM-class) tokens, sequences
LARGE = ((8192, 16384), 1024)
LARGEST = ((16384, 16384), 1024)
# AMD APUs by the catalog's name: an integrated GPU whose VRAM total (amdsmi) is its BIOS carve-out
APU_NAMES = ("strix halo",)
LARGEST_DEFAULT_TOKENS = max(tokens for (pair, _) in (SMALL, LARGE, LARGEST) for tokens in pair)


@lru_cache(maxsize=1024)  # pure, asked several times per stage of every plan; bounded
def default_batch(
    gpu_memory_bytes: int,
    gpu_name: str | None,
    usage_context: str = "server",
    tiers: str = "v1",
    rocm_vram: bool = False,
) -> tuple[int, int]:
    """``(max_num_batched_tokens, max_num_seqs)`` vLLM picks when neither is set (module docstring); ``rocm_vram``:
    the release reads ROCm's VRAM total, an APU's carve-out.

    >>> strix = "AMD Ryzen AI Max+ 395 (Strix Halo, Radeon 8060S, 128 GB)"
    >>> default_batch(80 * GiB, strix), default_batch(80 * GiB, strix, rocm_vram=True)
    ((8192, 1024), (2048, 256))
    """
    name = (gpu_name or "").lower()
    gb10 = "gb10" in name  # every release (module docstring)
    carve_out = rocm_vram and any(apu in name for apu in APU_NAMES)
    if carve_out:
        tokens, seqs = SMALL
    elif tiers != "v1" and gpu_memory_bytes >= 160 * GiB:
        tokens, seqs = LARGEST
    elif gpu_memory_bytes >= 70 * GiB and "a100" not in name and not gb10:
        tokens, seqs = LARGE
    else:
        tokens, seqs = SMALL
    return tokens[0] if usage_context == "server" else tokens[1], seqs


# Gemma 4's largest multimodal item, the per-item ceiling vLLM's Gemma 4 processor gives the prefix-LM floor: a video
# of ``_VIDEO_MAX_FRAMES`` 32 frames, each ``_VIDEO_MAX_SOFT_TOKENS`` 70 soft tokens + boi + eoi + ~6 timestamp
# tokens (0.22.0 - 0.34.0 ``model_executor/models/gemma4_mm.py`` ``get_mm_max_tokens_per_item``, :232-259 at
# 0.22.0); the image's default 280 soft tokens (1,120 at most) and the audio's 750 are smaller.
GEMMA4_ITEM_TOKENS = 32 * (70 + 2 + 6)
# Multimodal prefix-LM model types whose processor gives a per-item ceiling (``get_mm_max_tokens_per_item``); others
# (Gemma 3, PaliGemma) return None and vLLM keeps its default. vLLM takes a Gemma 4 for a prefix LM when its text
# config's ``use_bidirectional_attention`` is "vision" (``Gemma4ModelArchConfigConvertor.is_mm_prefix_lm``, 0.22.0
# ``transformers_utils/model_arch_config_convertor.py`` :527-532): ``ModelSpec.mm_prefix_lm``.
PREFIX_LM_ITEM_TOKENS = {"gemma4": GEMMA4_ITEM_TOKENS, "gemma4_text": GEMMA4_ITEM_TOKENS}


def mm_prefix_item_tokens(model: ModelSpec) -> int:
    """The largest multimodal item of a prefix-LM model, which vLLM will not split across steps (0: not one). Public
    start-ups agree: Gemma 4 26B-A4B's printed tokens on an L40S and a DGX Spark (0.25) are those of 2,496 batched
    tokens, the E4B's on an RTX 3090 Ti, an L40S and an L4 (0.22-0.28) those of 2,048 (its config is no prefix LM).

    >>> from model_catalog import get_model
    >>> mm_prefix_item_tokens(get_model("google/gemma-4-31B-it").spec)
    2496
    """
    return PREFIX_LM_ITEM_TOKENS.get(model.model_type, 0) if model.mm_prefix_lm else 0


def settled_batch(
    default: tuple[int, int],
    tokens_given: int | None,
    seqs_given: int | None,
    max_model_len: int | None,
    item_floor: int,
    capped: bool,
) -> tuple[int, int]:
    """``(max_num_batched_tokens, max_num_seqs)`` as V1 settles them from ``default`` (:func:`default_batch`) and
    the flags given (``EngineArgs._set_default_max_num_seqs_and_batched_tokens_args``): defaulted tokens are raised
    to ``item_floor`` (a multimodal prefix-LM model's largest item, 0.22.0 ``engine/arg_utils.py`` :2525-2540), then
    capped at ``max_num_seqs x max_model_len`` when ``capped`` (0.12.0 :2000-2006); a defaulted ``max_num_seqs``
    never exceeds the tokens (0.11.0 :1676-1678, 0.12.0 :2014-2016). V1 always chunks prefills, so its defaulted
    tokens are never raised to ``max_model_len``.

    >>> settled_batch((8192, 1024), None, 1, 4096, 0, capped=True)
    (4096, 1)
    >>> settled_batch((8192, 1024), 512, None, 8192, 0, capped=False)
    (512, 512)
    >>> settled_batch((2048, 256), None, None, 32768, 2496, capped=True)
    (2496, 256)
    """
    tokens, seqs = tokens_given or default[0], seqs_given or default[1]
    if tokens_given is None:
        tokens = max(tokens, item_floor)
        if capped and max_model_len:
            tokens = min(seqs * max_model_len, tokens)
    if seqs_given is None:
        seqs = min(seqs, tokens)
    return tokens, seqs


def v0_batch(
    tokens_given: int | None, seqs_given: int | None, chunked: bool | None, max_model_len: int | None
) -> tuple[int, int]:
    """``(tokens per profile step, max_num_seqs)`` of the V0 engine (before 0.8): 256 sequences; without chunked
    prefill a step of ``max(max_model_len, 2048)`` tokens, chunked prefill on from 32,768 tokens (``chunked`` None),
    then 2,048 (0.7.2 ``engine/arg_utils.py``).

    >>> v0_batch(None, None, None, 4096), v0_batch(None, None, None, 32768)
    ((4096, 256), (2048, 256))
    """
    if chunked is None:
        chunked = (max_model_len or 0) >= 32768
    tokens = 2048 if chunked else max(max_model_len or 2048, 2048)
    return tokens_given or tokens, seqs_given or 256


class BatchFlags(NamedTuple):
    """What settles a profile's batch: its release's rules (V1, the default tiers, the length cap, the prefix-LM
    floor, this one off for a text-only serve) and the flags given (``None``: the default)."""

    v1: bool
    tiers: str
    capped: bool
    floored: bool
    usage_context: str
    tokens: int | None
    seqs: int | None
    chunked: bool | None
    rocm_vram: bool = False  # the defaults read ROCm's VRAM total (rule rocm_vram_defaults)


def release_defaults(flags: BatchFlags, gpu_memory_bytes: int, gpu_name: str | None) -> tuple[int, int]:
    """:func:`default_batch` as the release of ``flags`` reads the device (its tiers, ROCm's VRAM total)."""
    return default_batch(gpu_memory_bytes, gpu_name, flags.usage_context, flags.tiers, flags.rocm_vram)


def engine_batch(
    flags: BatchFlags, gpu_memory_bytes: int, gpu_name: str | None, max_model_len: int | None, model: ModelSpec | None
) -> tuple[int, int]:
    """``(tokens per profile step, max_num_seqs)``: V1's defaults (:func:`default_batch`) and the flags given,
    settled (:func:`settled_batch`; ``model``'s largest multimodal item where it is a prefix-LM model whose vision
    tower is loaded); V0's (:func:`v0_batch`).

    >>> flags = BatchFlags(True, "v1", True, False, "server", None, 1, None)
    >>> engine_batch(flags, 80 * GiB, "NVIDIA H100 80GB HBM3", 4096, None)
    (4096, 1)
    """
    if not flags.v1:
        return v0_batch(flags.tokens, flags.seqs, flags.chunked, max_model_len)
    default = release_defaults(flags, gpu_memory_bytes, gpu_name)
    floor = prefix_item_floor(flags, model)
    return settled_batch(default, flags.tokens, flags.seqs, max_model_len, floor, flags.capped)


def prefix_item_floor(flags: BatchFlags, model: ModelSpec | None) -> int:
    """The prefix-LM floor of ``model``'s defaulted tokens under ``flags`` (0: none)."""
    return mm_prefix_item_tokens(model) if flags.floored and model is not None and is_multimodal(model) else 0


def given_step_item(flags: BatchFlags, model: ModelSpec, serves_multimodal: bool) -> int:
    """The largest item a ``--max-num-batched-tokens`` given must hold, or vLLM refuses ("Chunked MM input disabled
    but max_tokens_per_mm_item ... is larger than max_num_batched_tokens"): the prefix-LM item where the server takes
    multimodal input; 0 where it takes none (``--language-model-only``, a limit of 0 for every modality), in every
    release: ``supports_multimodal_inputs`` is then False (0.22.0 and 0.26.0 ``multimodal/registry.py:123-136``), so
    the input processor, the V1 runner and the scheduler build no ``MultiModalBudget`` (0.26.0
    ``v1/engine/input_processor.py:58-62``, ``v1/worker/gpu_model_runner.py:863-866``,
    ``v1/core/sched/scheduler.py:215``; Model Runner V2 builds none, ``v1/worker/gpu/model_runner.py:182-186``) and
    the check
    (``v1/core/encoder_cache_manager.py:288-307``) is never reached. A defaulted step keeps the release's floor
    (:func:`prefix_item_floor`: 0.22-0.26 raise it whatever input is enabled)."""
    return prefix_item_floor(flags, model) if serves_multimodal else 0


def batch_raise_line(flags: BatchFlags, gpu_memory_bytes: int, gpu_name: str | None, model: ModelSpec) -> str | None:
    """The line vLLM logs where it raises its defaulted tokens to a prefix-LM model's largest item (0.22.0
    ``engine/arg_utils.py`` :2531-2539); None where it does not."""
    if not flags.v1 or flags.tokens is not None:
        return None
    default, floor = (
        release_defaults(flags, gpu_memory_bytes, gpu_name)[0],
        prefix_item_floor(flags, model),
    )
    if floor <= default:
        return None
    return (
        f"Raising max_num_batched_tokens from {default} to {floor} to accommodate 'video' input for prefix-LM model "
        f"{model.id}."
    )


def batch_length(flags: BatchFlags, max_model_len: int | None) -> int | None:
    """``max_model_len`` where :func:`engine_batch` may read it on some GPU, else None: V0 always; V1 where the
    release caps defaulted tokens at ``max_num_seqs x max_model_len`` below the largest default
    (:data:`LARGEST_DEFAULT_TOKENS`; an unset ``max_num_seqs`` taken at its smallest default, 256). What keeps a
    stage across lengths keys it by this.

    >>> flags = BatchFlags(True, "v1", True, False, "server", None, 1, None)
    >>> batch_length(flags, 4096), batch_length(flags, 32768), batch_length(flags._replace(capped=False), 4096)
    (4096, None, None)
    """
    if not flags.v1:
        return max_model_len
    if not (flags.capped and max_model_len) or flags.tokens is not None:
        return None
    return max_model_len if (flags.seqs or 256) * max_model_len < LARGEST_DEFAULT_TOKENS else None
