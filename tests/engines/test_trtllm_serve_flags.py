"""Every flag of a TensorRT-LLM launch command (the PyTorch flow, 1.0 on) is one ``trtllm-serve`` defines: its click
options read in two revisions of ``tensorrt_llm/commands/serve.py`` (NVIDIA/TensorRT-LLM; the index keeps no release
tag with them): 4c05a74891e4df8066f08ed4ce14b0972abe4e25 (``--tp_size``, ``--kv_cache_free_gpu_memory_fraction``,
``--extra_llm_api_options`` under those names only) and 00209af149e7774406881a37283dce303571eb11 (the same, now
aliases of ``--tensor_parallel_size``, ``--free_gpu_memory_fraction``, ``--config``). click stops at an option it
does not know ("No such option"), so a command that passes one does not start what the plan says.

The ``--extra_llm_api_options`` file's keys are held to 1.0's LLM API in ``tests/engines/test_speculative_flags.py``.
"""

from __future__ import annotations

import shlex

import pytest

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.deploy.options import DeploymentOptions, SpeculativeOptions
from planner.engines.registry import engine_profile, get_engine
from planner.planning.plan import PlanRequest, plan

SERVE_4C05A74 = frozenset(
    {
        "--tokenizer",
        "--host",
        "--port",
        "--backend",
        "--log_level",
        "--max_beam_width",
        "--max_batch_size",
        "--max_num_tokens",
        "--max_seq_len",
        "--tp_size",
        "--pp_size",
        "--ep_size",
        "--cluster_size",
        "--gpus_per_node",
        "--kv_cache_free_gpu_memory_fraction",
        "--num_postprocess_workers",
        "--trust_remote_code",
        "--extra_llm_api_options",
        "--reasoning_parser",
        "--metadata_server_config_file",
        "--server_role",
        "--fail_fast_on_attention_window_too_large",
        "--disagg_cluster_uri",
        "--enable_chunked_prefill",
        "--media_io_kwargs",
    }
)
SERVE_00209AF = frozenset(
    {
        "--tokenizer",
        "--custom_tokenizer",
        "--host",
        "--port",
        "--backend",
        "--custom_module_dirs",
        "--log_level",
        "--max_beam_width",
        "--max_batch_size",
        "--max_num_tokens",
        "--max_seq_len",
        "--tensor_parallel_size",
        "--tp_size",
        "--pipeline_parallel_size",
        "--pp_size",
        "--context_parallel_size",
        "--cp_size",
        "--moe_expert_parallel_size",
        "--ep_size",
        "--moe_cluster_parallel_size",
        "--cluster_size",
        "--gpus_per_node",
        "--free_gpu_memory_fraction",
        "--kv_cache_free_gpu_memory_fraction",
        "--num_postprocess_workers",
        "--trust_remote_code",
        "--revision",
        "--config",
        "--extra_llm_api_options",
        "--reasoning_parser",
        "--tool_parser",
        "--metadata_server_config_file",
        "--server_role",
        "--fail_fast_on_attention_window_too_large",
        "--otlp_traces_endpoint",
        "--disagg_cluster_uri",
        "--enable_chunked_prefill",
        "--media_io_kwargs",
        "--chat_template",
    }
)

H100 = get_gpu("h100-sxm-80gb")
MODELS = ("meta-llama/Llama-3.1-8B", "google/gemma-3-27b-it", "Qwen/Qwen3-30B-A3B", "openai/gpt-oss-20b")
SPECULATION = (None, "draft", "eagle3", "mtp")
# A draft of each target's own tokenizer (planner.deploy.speculative.check_draft_vocabulary); gpt-oss has no
# smaller sibling, so its own checkpoint stands in (the flags are what is checked).
DRAFTS = {
    "meta-llama/Llama-3.1-8B": "meta-llama/Llama-3.2-1B",
    "google/gemma-3-27b-it": "google/gemma-3-4b-it",
    "Qwen/Qwen3-30B-A3B": "Qwen/Qwen3-0.6B",
    "openai/gpt-oss-20b": "openai/gpt-oss-20b",
}


def _command(model: str, weights: str, speculation: str | None, windows: bool) -> str | None:
    """The full launch command (the deployment's flags included), ``None`` where the engine refuses the set-up."""
    options = None
    if speculation is not None:
        draft = get_model(DRAFTS[model]).spec if speculation == "draft" else None
        method = SpeculativeOptions(method=speculation, draft_model=draft)  # type: ignore[arg-type]
        options = DeploymentOptions(speculative=method)
    profile = engine_profile("trtllm", max_attention_window=windows, max_num_seqs=64, max_num_batched_tokens=4096)
    request = PlanRequest(
        model=get_model(model).spec, gpu=H100, gpu_memory_bytes=H100.memory_bytes, gpu_count=2, weights=weights,
        context_tokens=8192, max_model_len=8192, overhead=profile, deployment=options,
    )  # fmt: skip
    engine = get_engine("trtllm")
    if engine.refusal(request) is not None:
        return None
    result = plan(request)
    return " ".join([engine.launch_command(request, result, profile), *engine.deployment_flags(request, result, 0)])


def _flags(command: str) -> set[str]:
    """The ``--`` options of the command's ``trtllm-serve`` line (the options file's lines are the file's)."""
    line = next(line for line in command.splitlines() if line.startswith("trtllm-serve "))
    return {word.split("=", 1)[0] for word in shlex.split(line.partition("<(")[0]) if word.startswith("--")}


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("speculation", SPECULATION)
def test_every_flag_is_one_trtllm_serve_defines(model: str, speculation: str | None) -> None:
    launched = 0
    for weights in ("bf16", "fp8", "nvfp4"):
        for windows in (False, True):
            try:
                command = _command(model, weights, speculation, windows)
            except PlannerError:  # a format the model or GPU does not take
                continue
            if command is None:
                continue
            launched += 1
            flags = _flags(command)
            assert flags <= SERVE_4C05A74 and flags <= SERVE_00209AF, sorted(flags - (SERVE_4C05A74 & SERVE_00209AF))
    assert launched or speculation == "mtp", "no set-up of this model was launched"  # MTP: models with MTP layers
