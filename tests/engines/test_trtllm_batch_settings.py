"""TensorRT-LLM takes the batch settings under its own names: ``--max-num-seqs`` is trtllm-serve's
``--max_batch_size`` (the sequences it runs at once) and ``--max-num-batched-tokens`` its ``--max_num_tokens`` (the
dummy batch its ``KvCacheCreator`` profiles before sizing the cache: a smaller one leaves more for the KV cache),
in the plan, the launch command, the verdict and the sidebar's labels."""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.assessment.assess import assess
from planner.engines.registry import get_engine, launch_values, overhead_profile
from planner.planning.plan import PlanRequest, plan

H100 = get_gpu("h100-sxm-80gb")
LLAMA = get_model("meta-llama/Llama-3.1-8B").spec


def _request(**settings: object) -> PlanRequest:
    return PlanRequest(
        model=LLAMA, gpu=H100, gpu_memory_bytes=H100.memory_bytes_for(True), context_tokens=8192,
        max_model_len=8192, overhead=overhead_profile("trtllm", **settings),
    )  # fmt: skip


def test_the_profile_batch_sizes_the_kv_pool() -> None:
    engine = get_engine("trtllm")
    default, small = _request(), _request(max_num_batched_tokens=2048)
    kv = [engine.report(r, plan(r), r.overhead).available_kv_cache_bytes_per_gpu for r in (default, small)]
    assert kv[1] > kv[0]


def test_the_launch_command_and_the_verdict_use_trtllm_names() -> None:
    request = _request(max_num_seqs=8, max_num_batched_tokens=4096)
    engine = get_engine("trtllm")
    command = engine.launch_command(request, plan(request), request.overhead)
    assert "--max_batch_size 8 --max_num_tokens 4096" in command
    a = assess(request, target_users=12)
    assert a.conversations == 8 and "TensorRT-LLM runs at most 8 at once, --max_batch_size" in a.sentence()


def test_unset_settings_are_not_launch_values() -> None:
    """Their defaults (2048 sequences, 8192 tokens) are the engine's, as when the flags are not given."""
    assert launch_values(overhead_profile("trtllm")) == {"max_attention_window": False, "enable_dp_attention": False}
    assert launch_values(overhead_profile("trtllm", max_num_seqs=8))["max_num_seqs"] == 8


def test_each_engine_spells_its_settings() -> None:
    assert get_engine("trtllm").flag_for("max_num_seqs") == "--max_batch_size"
    assert get_engine("trtllm").flag_for("max_num_batched_tokens") == "--max_num_tokens"
    assert get_engine("vllm").flag_for("max_num_seqs") == "--max-num-seqs"
