"""The engine settings people set at launch, declared once: each with its generic name (the keyword of
:meth:`planner.engines.base.Engine.profile`), the command-line flag and link parameter it is written as, its kind
and bounds, and what it does. An engine takes a setting when its ``setting_fields`` name a profile field for it;
any other engine refuses it with its own reason.

Bounds follow vLLM's argument checks (``vllm/engine/arg_utils.py``, ``vllm/config/scheduler.py``,
``vllm/config/compilation.py``): a sequence count and capture size are positive; ``--kv-cache-memory-bytes`` is bytes.
``--max-attention-window`` is TensorRT-LLM's ``KvCacheConfig.max_attention_window`` (``--max_attention_window_size``
for engines built by ``trtllm-build``) given the model's own windows (:mod:`planner.engines.trtllm`).
``--max-total-tokens`` is SGLang's (``srt/server_args.py`` 0.5.4 :1818, a positive token count).
``--enable-prefix-caching`` is a switch: given on, given off (``--no-enable-prefix-caching``, argparse's
``BooleanOptionalAction``: 0.22.0 ``engine/arg_utils.py:1128-1134`` with :345) or not given, the release's default;
SGLang's counterpart is ``--disable-radix-cache`` (``srt/server_args.py`` 0.5.4 :2853), not planned.
A switch may be an environment variable (its flag in capitals, no dashes): ``VLLM_USE_V2_MODEL_RUNNER=0`` or ``=1``
before the command (``VllmConfig.use_v2_model_runner``, 0.22.0-0.33.0; :mod:`planner.engines.vllm.runner`), typed
on the command line as ``--use-v2-model-runner`` / ``--no-use-v2-model-runner`` (:func:`option_flag`).
``--compile-cache cold|warm`` is the planner's own, not a ``vllm serve`` flag: the state of vLLM's torch.compile
cache at start-up (:mod:`planner.engines.vllm.compile_cache`; ``VLLM_DISABLE_COMPILE_CACHE=1``, 0.28.0
``envs.py:158``, makes every boot cold).
``--enable-dp-attention`` is SGLang's spelling (``srt/server_args.py``); vLLM's is ``--data-parallel-size`` with
``--enable-expert-parallel`` (``docs/serving/data_parallel_deployment.md``), TensorRT-LLM's ``enable_attention_dp``
in its ``--extra_llm_api_options`` file (``tensorrt_llm/llmapi/llm_args.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal, NamedTuple

from planner.bounds.limits import MAX_CONTEXT, MAX_GPU_MEMORY_BYTES
from planner.core.units import GiB

MAX_KV_TOKENS = 1 << 40  # a KV pool's tokens: far above any GPU's (1 TB at one byte a token)

# a switch is on, off or not given (the engine's default), a flag given or not
SettingKind = Literal["count", "flag", "bytes", "choice", "switch"]
SettingValue = int | bool | str  # a count or bytes, a flag given or a switch's side, a choice's value


class EngineSetting(NamedTuple):
    name: str  # Engine.profile() keyword
    flag: str  # as the CLI and the engine spell it
    kind: SettingKind
    low: int  # counts and bytes (flags and choices: 0)
    high: int
    help: str
    choices: tuple[str, ...] = ()  # a choice's values, as the engine spells them after its flag


ENGINE_SETTINGS: tuple[EngineSetting, ...] = (
    EngineSetting(
        "max_num_batched_tokens", "--max-num-batched-tokens", "count", 1, MAX_CONTEXT,
        "tokens per forward step (vLLM's default by GPU and release; TensorRT-LLM: --max_num_tokens, default 8192)",
    ),
    EngineSetting(
        "max_num_seqs", "--max-num-seqs", "count", 1, 1_048_576,
        "sequences run at once (TensorRT-LLM: --max_batch_size); conversations beyond it wait in the queue; in vLLM it "
        "also sizes the CUDA-graph captures and, for hybrid models, the Mamba blocks needed",
    ),
    EngineSetting(
        "enforce_eager", "--enforce-eager", "flag", 0, 1,
        "no torch.compile, no CUDA graphs (no compile or graph memory); SGLang: --disable-cuda-graph",
    ),
    EngineSetting(
        "max_cudagraph_capture_size", "--max-cudagraph-capture-size", "count", 1, 65_536,
        "the largest batch a CUDA graph is captured for",
    ),
    EngineSetting(
        "kv_cache_memory_bytes", "--kv-cache-memory-bytes", "bytes", 1, MAX_GPU_MEMORY_BYTES,
        "a fixed KV-cache size per GPU, instead of the memory fraction (the engine's flag takes bytes)",
    ),
    EngineSetting(
        "max_total_tokens", "--max-total-tokens", "count", 1, MAX_KV_TOKENS,
        "SGLang: at most this many tokens in the KV pool (its memory fraction still sizes the pool when that holds "
        "fewer; a larger cap is dropped with SGLang's warning)",
    ),
    EngineSetting(
        "no_enable_extensible_kv_cache", "--no-enable-extensible-kv-cache", "flag", 0, 1,
        "vLLM 0.34 and later: size the KV cache at the profile run, as 0.33 did, instead of from the memory free "
        "after warm-up and graph capture (the extensible KV cache, on by default on NVIDIA and AMD GPUs)",
    ),
    EngineSetting(
        "language_model_only", "--language-model-only", "flag", 0, 1,
        "load the language model alone: no vision tower, no encoder profile",
    ),
    EngineSetting(
        "skip_mm_profiling", "--skip-mm-profiling", "flag", 0, 1,
        "load the vision tower but skip its encoder's profile run (vLLM 0.10.1 on): the plan then holds no encoder "
        "activation nor the non-torch memory the profile leaves; images at serve time need their own headroom",
    ),
    EngineSetting(
        "limit_mm_per_prompt", "--limit-mm-per-prompt", "count", 0, 1024,
        "items of each modality per prompt the encoder is profiled for: images, videos and, where the model takes "
        "them, audio clips; 0: text only",
    ),
    EngineSetting(
        "limit_mm_audio", "--limit-mm-audio", "count", 0, 1024,
        "audio clips per prompt, apart from --limit-mm-per-prompt's count (written into its JSON as \"audio\"); 0: "
        "vLLM does not load the audio tower (Gemma 4 E2B / E4B: 0.57 GiB in BF16) and the vision tower stays",
    ),
    EngineSetting(
        "enable_prefix_caching", "--enable-prefix-caching", "switch", 0, 1,
        "automatic prefix caching on, or off (--no-enable-prefix-caching); not set: the release's default. For a "
        "hybrid Mamba / Gated DeltaNet model vLLM's default is off until 0.27.1 and on from 0.28.0, and on it keeps "
        "a second state page per running sequence ('align'); SGLang: --disable-radix-cache",
    ),
    EngineSetting(
        "use_v2_model_runner", "VLLM_USE_V2_MODEL_RUNNER", "switch", 0, 1,
        "vLLM 0.22-0.33: the model runner, 1 Model Runner V2 or 0 the V1 runner (an environment variable); not set: "
        "the release's choice for the model. Before 0.29 V2 subtracts no CUDA-graph estimate from the KV budget and "
        "installs no weight offloader before 0.28; 0.34 has only V2",
    ),
    EngineSetting(
        "compile_cache", "--compile-cache", "choice", 0, 0,
        "vLLM 0.22 and later: the torch.compile cache the start-up finds, warm (a restart that finds it; planned when "
        "not given) or cold (a first boot of this model and settings, a container without a kept ~/.cache/vllm, "
        "VLLM_DISABLE_COMPILE_CACHE=1): compiling, Inductor benchmarks the embedding lookup on a random copy of the "
        "embedding table inside vLLM's memory profile, which leaves less for the KV cache",
        ("warm", "cold"),
    ),
    EngineSetting(
        "load_format", "--load-format", "choice", 0, 0,
        "vLLM's weight loader: fastsafetensors or InstantTensor instead of its default safetensors loader; on unified "
        "memory (DGX Spark) they leave less for the KV cache than the default (docs/fidelity.md, 'Unified memory')",
        ("fastsafetensors", "instanttensor"),
    ),
    EngineSetting(
        "safetensors_load_strategy", "--safetensors-load-strategy", "choice", 0, 0,
        "how vLLM reads safetensors files: lazy (memory-mapped, the default on local disks) or prefetch (read into "
        "the page cache first); on unified memory (DGX Spark) prefetch leaves less for the KV cache",
        ("lazy", "prefetch"),
    ),
    EngineSetting(
        "enable_dp_attention", "--enable-dp-attention", "flag", 0, 1,
        "a mixture-of-experts model's attention data-parallel: one rank a GPU attends and caches its own "
        "conversations, the routed experts split over every GPU (vLLM --data-parallel-size with "
        "--enable-expert-parallel; TensorRT-LLM enable_attention_dp); MLA's latent cache is then held once, not on "
        "every tensor-parallel GPU",
    ),
    EngineSetting(
        "max_attention_window", "--max-attention-window", "flag", 0, 1,
        "TensorRT-LLM: kv_cache_config.max_attention_window set to the model's own windows, so sliding-window and "
        "chunked layers keep their window, not every token",
    ),
)  # fmt: skip
BY_NAME: dict[str, EngineSetting] = {s.name: s for s in ENGINE_SETTINGS}


def flag_name(name: str) -> str:
    """A setting as the engine spells it (its flag), for messages; a name not declared here in words.

    >>> flag_name("enforce_eager"), flag_name("tensor_parallel")
    ('--enforce-eager', 'tensor parallel')
    """
    return BY_NAME[name].flag if name in BY_NAME else name.replace("_", " ")


ENVIRONMENT_NAME = re.compile(r"[A-Z][A-Z0-9_]*")  # a switch that is an environment variable, not a flag


def switch_words(flag: str, on: bool) -> str:
    """A switch's side as the engine is started with it: its flag, or the flag's ``--no-`` form; an environment
    variable set to 1 or 0.

    >>> switch_words("--enable-prefix-caching", True), switch_words("--enable-prefix-caching", False)
    ('--enable-prefix-caching', '--no-enable-prefix-caching')
    >>> switch_words("VLLM_USE_V2_MODEL_RUNNER", False)
    'VLLM_USE_V2_MODEL_RUNNER=0'
    """
    if ENVIRONMENT_NAME.fullmatch(flag):
        return f"{flag}={int(on)}"
    return flag if on else "--no-" + flag.removeprefix("--")


def option_flag(setting: EngineSetting) -> str:
    """The command-line option a person types for ``setting``: its flag, or for an environment variable its name
    as an option (argparse takes ``--no-`` of it for off).

    >>> option_flag(BY_NAME["use_v2_model_runner"]), option_flag(BY_NAME["enforce_eager"])
    ('--use-v2-model-runner', '--enforce-eager')
    """
    if ENVIRONMENT_NAME.fullmatch(setting.flag):
        return "--" + setting.name.replace("_", "-")
    return setting.flag


def is_given(setting: EngineSetting, value: object) -> bool:
    """Whether ``value`` asks the engine for something: a flag ticked, a switch either way, any other value set.

    >>> is_given(BY_NAME["enforce_eager"], False), is_given(BY_NAME["enable_prefix_caching"], False)
    (False, True)
    """
    return value not in (None, False) if setting.kind == "flag" else value is not None


def size_argument(flag: str, size_bytes: int) -> str:
    """A size setting as it is pasted, in bytes (the engine's unit, read the same by every release that has the
    flag), with the GiB a person reads beside it.

    >>> size_argument("--kv-cache-memory-bytes", 40 * GiB)
    '--kv-cache-memory-bytes 42949672960 (40 GiB)'
    """
    return f"{flag} {size_bytes} ({size_bytes / GiB:g} GiB)"


def shown_name(setting: EngineSetting) -> str:
    """The name a person types the setting under (a link parameter, a CLI destination): sizes in GiB.

    >>> shown_name(BY_NAME["kv_cache_memory_bytes"]), shown_name(BY_NAME["max_num_seqs"])
    ('kv_cache_memory_gib', 'max_num_seqs')
    """
    return setting.name.removesuffix("_bytes") + "_gib" if setting.kind == "bytes" else setting.name


def profile_value(setting: EngineSetting, shown: float | bool | str) -> SettingValue:
    """The :meth:`Engine.profile` value of a setting as a person gives it (``--kv-cache-memory-gib 4``, a link's
    ``kv_cache_memory_gib=4``): bytes for a size, whole numbers for a count, a choice as it is.

    >>> profile_value(BY_NAME["kv_cache_memory_bytes"], 1.5), profile_value(BY_NAME["enforce_eager"], True)
    (1610612736, True)
    """
    if setting.kind == "choice":
        return str(shown)
    if setting.kind in ("flag", "switch"):
        return bool(shown)
    if setting.kind == "bytes":
        return round(float(shown) * GiB)
    return int(shown)


def profile_shown(setting: EngineSetting, value: SettingValue) -> float | bool | str:
    """The inverse of :func:`profile_value`: a profile's value as a person gives it (GiB for a size).

    >>> profile_shown(BY_NAME["kv_cache_memory_bytes"], 1610612736), profile_shown(BY_NAME["max_num_seqs"], 2)
    (1.5, 2)
    """
    if setting.kind == "choice":
        return str(value)
    if setting.kind in ("flag", "switch"):
        return bool(value)
    if setting.kind == "bytes":
        return round(int(value) / GiB, 2)
    return int(value)


def profile_values(shown: Mapping[str, object]) -> dict[str, SettingValue]:
    """The launch settings among ``shown`` (keyed by the names a person types: ``kv_cache_memory_gib``, as the
    CLI's options and the dashboard's links hold them), as :meth:`Engine.profile` takes them
    (``kv_cache_memory_bytes``); unset ones, and a choice's value it does not offer, are left out.

    >>> profile_values({"max_num_seqs": 2, "kv_cache_memory_gib": 1.5, "enforce_eager": None})
    {'max_num_seqs': 2, 'kv_cache_memory_bytes': 1610612736}
    >>> profile_values({"load_format": "fastsafetensors", "safetensors_load_strategy": "mmap"})
    {'load_format': 'fastsafetensors'}
    """
    taken: dict[str, SettingValue] = {}
    for declared in ENGINE_SETTINGS:
        value = shown.get(shown_name(declared))
        if declared.kind == "choice":
            if isinstance(value, str) and value in declared.choices:
                taken[declared.name] = value
        elif value is not None and isinstance(value, int | float | bool):
            taken[declared.name] = profile_value(declared, value)
    return taken
