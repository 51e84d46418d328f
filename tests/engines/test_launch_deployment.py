"""The launch command carries the deployment the page planned (planner.engines.launch.with_deployment).

Found by an outside review (2026-12-05): every engine's ready-to-paste command left out the deployment's flags, which
only a separate "engine settings" row listed. llama.cpp's contradicted its plan: Llama 3.1 70B in Q4_K_M on one
RTX 4090 with 40 layers on the GPU was planned "offloaded 40/81 layers to GPU" and launched with ``-ngl 99`` (all 81
layers, ~40 GiB, on a 24 GB card); gpt-oss-120b with 30 layers' experts in host RAM lost ``--n-cpu-moe 30``;
SGLang's and vLLM's ``--cpu-offload-gb 20`` and every engine's speculative flags were missing too."""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.assessment.assess import assess
from planner.core.units import GiB
from planner.deploy.options import DeploymentOptions, SpeculativeOptions
from planner.engines.launch import launch_commands
from planner.engines.registry import engine_profile
from planner.planning.plan import PlanRequest

RTX_4090, H100 = get_gpu("rtx-4090"), get_gpu("h100-sxm-80gb")


def _commands(model: str, gpu: object, engine: str, options: DeploymentOptions, **fields: object) -> dict[str, str]:
    request = PlanRequest(
        model=get_model(model).spec,
        gpu=gpu,  # type: ignore[arg-type]
        gpu_memory_bytes=gpu.memory_bytes,  # type: ignore[attr-defined]
        overhead=engine_profile(engine),
        deployment=options,
        **fields,  # type: ignore[arg-type]
    )
    a = assess(request, 1)
    return launch_commands(a.request, a.result)


def _line(command: str) -> str:
    return command.splitlines()[-1]


def test_llamacpp_puts_the_planned_layers_on_the_gpu() -> None:
    options = DeploymentOptions(gpu_layers=40)
    commands = _commands(
        "meta-llama/Llama-3.1-70B", RTX_4090, "llamacpp", options, weights="q4_k_m", context_tokens=8192
    )
    line = _line(commands["llamacpp"])
    assert " -ngl 40 " in f"{line} " and "-ngl 99" not in line, line


def test_expert_offload_and_weight_offload_are_in_the_command() -> None:
    moe = _commands(
        "openai/gpt-oss-120b", RTX_4090, "llamacpp", DeploymentOptions(cpu_moe_layers=30), context_tokens=32768
    )
    assert _line(moe["llamacpp"]).endswith(" --n-cpu-moe 30")
    assert moe["vllm"].startswith("# not runnable as planned")  # vLLM keeps no layers in host RAM: said, not added
    assert "--n-cpu-moe" not in _line(moe["vllm"])
    offload = _commands(
        "meta-llama/Llama-3.1-70B",
        H100,
        "sglang",
        DeploymentOptions(cpu_offload_bytes=20 * GiB),
        weights="fp8",
        context_tokens=8192,
    )
    assert _line(offload["sglang"]).endswith(" --cpu-offload-gb 20")
    assert _line(offload["vllm"]).endswith(" --cpu-offload-gb 20")


def test_speculative_decoding_is_in_every_engine_that_runs_it() -> None:
    draft = SpeculativeOptions(
        method="draft", draft_model=get_model("meta-llama/Llama-3.2-1B").spec, num_speculative_tokens=4
    )
    commands = _commands(
        "meta-llama/Llama-3.1-8B",
        H100,
        "trtllm",
        DeploymentOptions(speculative=draft),
        kv_dtype="fp8",
        context_tokens=8192,
    )
    trt = _line(commands["trtllm"])
    assert trt.count("--extra_llm_api_options") == 1  # one file: the cache's dtype and the speculative config
    assert "'  dtype: fp8'" in trt and "speculative_config:" in trt and "'  max_draft_len: 4'" in trt
    assert '"method": "draft_model", "num_speculative_tokens": 4' in _line(commands["vllm"])
    assert "--speculative-algorithm STANDALONE" in _line(commands["sglang"])
