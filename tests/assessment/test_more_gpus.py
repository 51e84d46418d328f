"""The "more GPUs" lever of the nearest set-ups (planner.assessment.alternatives): a model too large for the GPUs
asked is offered the fewest whole set-ups that hold it, split as multi-node serving is split (tensor parallel within
an 8-GPU server, pipeline stages across them: vLLM's distributed-serving guide, "the tensor parallel size to the
number of GPUs in each node, and the pipeline parallel size to the number of nodes").

Found in a browser (2026-12-05): Llama 3.1 405B in BF16 on one H100 said "Nothing close does ... more GPUs (up to
64)" (only 2-7 GPUs were tried; its 756 GiB of weights need more than 9 H100s), and on 8 H100s it offered "16 GPUs
(TP 16)", one tensor-parallel group across two servers, past the model's 8 KV heads."""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.assessment.alternatives import nearest_fitting
from planner.engines.registry import engine_profile
from planner.planning.plan import PlanRequest

H100 = get_gpu("h100-sxm-80gb")
LLAMA_405B = get_model("meta-llama/Llama-3.1-405B").spec


def _request(gpus: int, weights: str = "bf16") -> PlanRequest:
    return PlanRequest(
        model=LLAMA_405B,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        gpu_count=gpus,
        weights=weights,  # type: ignore[arg-type]
        context_tokens=8192,
        overhead=engine_profile("vllm"),
    )


def _more_gpus(gpus: int, weights: str = "bf16") -> list[str]:
    return [a.change for a in nearest_fitting(_request(gpus, weights), 10) if "GPUs (" in a.change]


def test_a_model_larger_than_nine_gpus_is_offered_two_servers() -> None:
    assert _more_gpus(1) == ["16 GPUs (TP 8 × PP 2)"]
    assert _more_gpus(8) == ["16 GPUs (TP 8 × PP 2)"]


def test_within_one_server_the_split_is_as_before() -> None:
    """FP8 weights (~380 GiB) need 8 H100s: one server, tensor parallel 8."""
    assert _more_gpus(1, "fp8") == ["8 GPUs (TP 8)"]


def test_a_mac_is_counted_as_macs() -> None:
    """A Mac is the machine: more of it is more Macs, each holding the whole model under llama.cpp (found as "4 GPUs
    (whole model on one GPU · 4 replicas)" for four Macs)."""
    mac = get_gpu("apple-m4-max")
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.1-70B").spec,
        gpu=mac,
        gpu_memory_bytes=mac.usable_memory_bytes(),
        weights="q8_0",
        context_tokens=32768,
        overhead=engine_profile("llamacpp"),
    )
    changes = [a.change for a in nearest_fitting(request, 8)]
    assert changes[0] == "4 Macs (whole model on each Mac · 4 replicas)", changes


def test_sixteen_gpus_split_as_two_servers_by_default() -> None:
    """Found by an outside review (2026-12-05): 16 H100s defaulted to TP 16 across two servers, which copies Llama 3.1
    405B's 8 KV heads (8 conversations of 32k where TP 8 x PP 2 holds 19). The default is now TP within a server and
    a pipeline stage a server; an asked TP 16 is offered that split when it meets the target; each engine's command
    says how the two servers are started."""
    from planner.assessment.assess import assess
    from planner.engines.launch import launch_commands

    auto = _request(16).model_copy(update={"context_tokens": 32768})
    assert auto.resolved_parallelism == (8, 2)
    a = assess(auto, 15)
    assert a.conversations == 19
    asked = auto.model_copy(update={"tensor_parallel": 16})
    assert assess(asked, 15).conversations == 8
    assert "TP 8 × PP 2 on the same 16 GPUs" in [x.change for x in nearest_fitting(asked, 15)]
    commands = launch_commands(a.request, a.result)
    assert commands["vllm"].startswith("# 2 servers: start a Ray cluster")
    assert "--tensor-parallel-size 8 --pipeline-parallel-size 2" in commands["vllm"]
    assert "--nnodes 2 --node-rank <0 to 1>" in commands["sglang"].splitlines()[0]
    assert "trtllm-llmapi-launch" in commands["trtllm"].splitlines()[0]
    single = assess(_request(8).model_copy(update={"weights": "fp8"}), 1)  # starts on one server
    assert not launch_commands(single.request, single.result)["vllm"].startswith("#")
