"""Every flag of a launch command is one the planned release defines. ``vllm serve`` and SGLang's
``launch_server`` stop at an argument their parser does not know, so a command that passes one does not start what
the plan says. The flags each release defines are read from its PyPI wheel (``bench/engine_flags.py``,
``tests/fixtures/reference/engine-flags.json``); argparse also takes a unique prefix of a flag
(``--kv-cache-memory`` for ``--kv-cache-memory-bytes``, vLLM's own hint) and the ``--no-`` form of a
``BooleanOptionalAction`` flag. A set-up the planner refuses for that release is not launched, and passes."""

from __future__ import annotations

import json
import shlex
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.deploy.options import DeploymentOptions, KvOffloadOptions, LoraOptions, SpeculativeOptions
from planner.engines.registry import get_engine, overhead_profile
from planner.planning.plan import PlanRequest, plan

FLAGS_PATH = Path(__file__).parents[1] / "fixtures" / "reference" / "engine-flags.json"
H100 = get_gpu("h100-sxm-80gb")
LLAMA = get_model("meta-llama/Llama-3.1-8B").spec
DRAFT = get_model("meta-llama/Llama-3.2-1B").spec
QWEN_VL = get_model("Qwen/Qwen3-VL-30B-A3B-Instruct").spec
QWEN3 = get_model("Qwen/Qwen3-8B").spec  # a YaRN its card documents (planner.engines.yarn)


@cache
def defined() -> dict[tuple[str, str], tuple[frozenset[str], frozenset[str]]]:
    """(engine, release) -> (its flags, the flags with a ``--no-`` form), from the fixture's deltas."""
    out = {}
    for engine, releases in json.loads(FLAGS_PATH.read_text()).items():
        flags: set[str] = set()
        negatable: set[str] = set()
        for entry in releases:
            flags = (flags | set(entry["flags_added"])) - set(entry["flags_dropped"])
            negatable = (negatable | set(entry["negatable_added"])) - set(entry["negatable_dropped"])
            out[(engine, entry["version"])] = (frozenset(flags), frozenset(negatable))
    return out


def undefined(tokens: list[str], flags: frozenset[str], negatable: frozenset[str]) -> list[str]:
    """The ``--`` tokens argparse would not take: neither a flag, nor a unique prefix of one, nor ``--no-X`` of a
    negatable ``--X``."""
    bad = []
    for token in tokens:
        if not token.startswith("--"):
            continue
        name = token.split("=", 1)[0]
        if name in flags or (name.startswith("--no-") and "--" + name[5:] in negatable):
            continue
        if len([f for f in flags if f.startswith(name)]) == 1:
            continue
        bad.append(name)
    return bad


# (launch settings, deployment options, request fields): the set-ups each release is asked for
CASES: dict[str, tuple[dict[str, Any], DeploymentOptions | None, dict[str, Any]]] = {
    "defaults": ({}, None, {}),
    "tensor parallel": ({}, None, {"gpu_count": 2, "tensor_parallel": 2}),
    "pipeline parallel": ({}, None, {"gpu_count": 2, "pipeline_parallel": 2}),
    "data parallel": ({}, None, {"gpu_count": 2, "tensor_parallel": 1}),
    "fp8 weights and KV": ({}, None, {"weights": "fp8", "kv_dtype": "fp8"}),
    "awq": ({}, None, {"weights": "int4-awq"}),
    "max-num-seqs": ({"max_num_seqs": 8}, None, {}),
    "enforce-eager": ({"enforce_eager": True}, None, {}),
    "capture size": ({"max_cudagraph_capture_size": 64}, None, {}),
    "kv-cache-memory": ({"kv_cache_memory_bytes": 20 * 2**30}, None, {}),
    "max-total-tokens": ({"max_total_tokens": 100_000}, None, {}),
    "batched tokens": ({"max_num_batched_tokens": 4096}, None, {}),
    "fastsafetensors": ({"load_format": "fastsafetensors"}, None, {}),
    "lazy safetensors": ({"safetensors_load_strategy": "lazy"}, None, {}),
    "prefetch": ({"safetensors_load_strategy": "prefetch"}, None, {}),
    "cold compile cache": ({"compile_cache": "cold"}, None, {}),  # a comment line above the command, no flag
    "language model only": ({"language_model_only": True}, None, {"model": QWEN_VL}),
    "images per prompt": ({"limit_mm_per_prompt": 2}, None, {"model": QWEN_VL}),
    "skip mm profiling": ({"skip_mm_profiling": True}, None, {"model": QWEN_VL}),
    "audio off": ({"limit_mm_audio": 0}, None, {"model": get_model("google/gemma-4-E2B-it").spec}),
    "yarn": ({}, None, {"model": QWEN3, "context_tokens": 131_072, "max_model_len": 131_072}),
    "lora": ({}, DeploymentOptions(lora=LoraOptions(max_loras=2, max_cpu_loras=4)), {}),
    "lora on some modules": ({}, DeploymentOptions(lora=LoraOptions(target_modules=("q_proj", "v_proj"))), {}),
    "cpu offload": ({}, DeploymentOptions(cpu_offload_bytes=4 * 2**30), {}),
    "kv offload": ({}, DeploymentOptions(kv_offload=KvOffloadOptions(size_bytes=8 * 2**30)), {}),
    "draft model": ({}, DeploymentOptions(speculative=SpeculativeOptions(method="draft", draft_model=DRAFT)), {}),
    "eagle-3": ({}, DeploymentOptions(speculative=SpeculativeOptions(method="eagle3", num_speculative_tokens=3)), {}),
}


def _case(engine: str, version: str, case: str) -> list[str] | None:
    """:func:`_command` of one of :data:`CASES`."""
    return _command(engine, version, *CASES[case])


def _command(
    engine: str, version: str, launch: dict[str, Any], options: DeploymentOptions | None, fields: dict[str, Any]
) -> list[str] | None:
    """The launch command and engine settings of a set-up under ``engine`` ``version`` as tokens; ``None`` when
    the planner refuses it (for that release, or the engine)."""
    try:
        profile = overhead_profile(engine, version=version, **launch)
    except PlannerError:
        return None
    request = PlanRequest.model_validate(
        {
            "model": LLAMA,
            "gpu": H100,
            "gpu_memory_bytes": H100.memory_bytes_for(True),
            "context_tokens": 8192,
            "max_model_len": 8192,
            "overhead": profile,
            "deployment": options,
            **fields,
        }
    )
    chosen = get_engine(engine)
    if chosen.refusal(request) is not None:
        return None
    result = plan(request)
    lines = chosen.launch_command(request, result, profile).splitlines()
    command = [line for line in lines if not line.startswith("#")]
    assert len(command) == 1, command  # one command, under its comment lines
    return shlex.split(command[0] + " " + " ".join(chosen.deployment_flags(request, result, 0)))


@pytest.mark.parametrize(("engine", "version"), sorted(defined()))
def test_every_flag_is_one_the_release_defines(engine: str, version: str) -> None:
    flags, negatable = defined()[(engine, version)]
    assert _case(engine, version, "defaults") is not None  # every release is launched at its defaults
    wrong = {}
    for case in CASES:
        tokens = _case(engine, version, case)
        if tokens is not None:
            bad = undefined(tokens, flags, negatable)
            if bad:
                wrong[case] = bad
    assert not wrong, f"{engine} {version} defines none of these flags: {wrong}"


def test_the_check_sees_an_undefined_flag() -> None:
    """The check itself: a flag a release lacks, and the forms argparse takes."""
    flags, negatable = frozenset({"--kv-cache-memory-bytes", "--enable-prefix-caching"}), frozenset()
    assert undefined(["--kv-cache-memory", "1"], flags, negatable) == []
    assert undefined(["--no-enable-prefix-caching"], flags, negatable) == ["--no-enable-prefix-caching"]
    assert undefined(["--no-enable-prefix-caching"], flags, frozenset({"--enable-prefix-caching"})) == []
    assert undefined(["--data-parallel-size", "2"], flags, negatable) == ["--data-parallel-size"]


# a launch setting's case in CASES, for the combinations below
SETTING_CASES = {
    "max_num_seqs": "max-num-seqs",
    "enforce_eager": "enforce-eager",
    "max_cudagraph_capture_size": "capture size",
    "kv_cache_memory_bytes": "kv-cache-memory",
    "max_num_batched_tokens": "batched tokens",
    "load_format": "fastsafetensors",
    "safetensors_load_strategy": "prefetch",
    "compile_cache": "cold compile cache",
}
OPTIONS = ("lora", "lora on some modules", "cpu offload", "kv offload", "draft model", "eagle-3")
LAYOUTS = ("defaults", "tensor parallel", "pipeline parallel", "data parallel", "fp8 weights and KV")


@settings(max_examples=60, deadline=None)
@given(
    release=st.sampled_from(sorted(defined())),
    layout=st.sampled_from(LAYOUTS),
    chosen=st.sets(st.sampled_from(sorted(SETTING_CASES)), max_size=3),
    option=st.sampled_from((None, *OPTIONS)),
)
def test_combined_settings_use_only_defined_flags(
    release: tuple[str, str], layout: str, chosen: set[str], option: str | None
) -> None:
    """Settings, deployment options and layouts together, as a reader combines them: a release runs the command
    the planner gives for them, or the planner refuses them."""
    values = {k: v for name in chosen for k, v in CASES[SETTING_CASES[name]][0].items()}
    tokens = _command(*release, values, CASES[option][1] if option else None, CASES[layout][2])
    if tokens is not None:
        assert undefined(tokens, *defined()[release]) == []
