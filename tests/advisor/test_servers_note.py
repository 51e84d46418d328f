"""Replicas bought in several servers are started one server at a time: the advice for Llama-3.1-70B, 50 users of
32,768 tokens, buys 8 x RTX PRO 6000 Max-Q in 2 x Threadripper Pro 4U hosts (up to four GPUs each) and runs TP 4 x 2
replicas, while its Memory page's command is one ``vllm serve ... --tensor-parallel-size 4 --data-parallel-size 2``,
eight ranks on one server: vLLM 0.31.0 puts every data-parallel rank on the local node unless told otherwise
(``engine/arg_utils.py:2428-2429``, "local DP size defaults to global DP size if not set") and serves a dense model
over several servers only as independent instances (``:2356-2358``, "launch independent vLLM instances without
--data-parallel-* arguments"). A review, 2026-12-07."""

from __future__ import annotations

from model_catalog import get_model
from planner.advisor import Workload, rank
from planner.advisor.option_notes import servers_note

LLAMA_70B = get_model("meta-llama/Llama-3.1-70B").spec


def test_two_servers_of_one_replica_each_are_started_one_command_a_server() -> None:
    ranking = rank(LLAMA_70B, Workload.fixed_length(32_768, concurrent_conversations=50), counts=(4, 8))
    best = ranking.options[0]
    assert (best.gpu_id, best.gpu_count, best.tensor_parallel, best.replicas, best.hosts, best.engine) == (
        "rtx-pro-6000-blackwell-max-q",
        8,
        4,
        2,
        2,
        "vllm",
    )
    note = servers_note("vLLM", "--data-parallel-size", best.replicas, best.hosts)
    assert note == (
        "2 servers: start one vLLM server on each without --data-parallel-size (1 replica a server), behind a load "
        "balancer; the Memory page's one command with --data-parallel-size 2 puts every replica on one server"
    )
    assert note in best.warnings and note not in best.undermining
    in_one = [o for o in ranking.options if o.engine == "vllm" and o.replicas > 1 and o.hosts == 1]
    assert in_one and all(not any(w.endswith("on one server") for w in o.warnings) for o in in_one)


def test_the_note_reads_replicas_per_server() -> None:
    assert servers_note("vLLM", "--data-parallel-size", 4, 2) == (
        "2 servers: start one vLLM server on each with --data-parallel-size 2 (2 replicas a server), behind a load "
        "balancer; the Memory page's one command with --data-parallel-size 4 puts every replica on one server"
    )
    assert servers_note("vLLM", "--data-parallel-size", 2, 1) is None
    assert servers_note("vLLM", "--data-parallel-size", 1, 2) is None
    assert servers_note("llama.cpp", "", 2, 2) is None  # its command already runs once per replica


def test_sglangs_dp_replicas_are_started_one_server_at_a_time_too() -> None:
    """SGLang's ``--dp`` starts every whole-copy replica on the GPUs of the server it runs on: 0.5.18
    ``srt/managers/data_parallel_controller.py:363-390`` (``launch_dp_schedulers``, taken without data-parallel
    attention, ``:198-208``) starts replica ``dp_rank`` at ``base_gpu_id``, which adds ``tp_size * pp_size *
    gpu_id_step`` per rank from 0, local GPU ids. The 70B's SGLang set-ups for 50 x 32k in TP 4 x 2 over two hosts
    say so (``--engine sglang``: 8 x RTX PRO 6000 Max-Q in two Threadripper hosts, as vLLM's pick)."""
    workload = Workload.fixed_length(32_768, concurrent_conversations=50).model_copy(update={"engines": ("sglang",)})
    ranking = rank(LLAMA_70B, workload, counts=(8,))  # advise ... --engine sglang
    best = next(o for o in ranking.options if o.hosts == 2 and o.replicas == 2)
    assert (best.gpu_id, best.gpu_count, best.tensor_parallel) == ("rtx-pro-6000-blackwell-max-q", 8, 4)
    note = servers_note("SGLang", "--dp", best.replicas, best.hosts)
    assert note == (
        "2 servers: start one SGLang server on each without --dp (1 replica a server), behind a load balancer; the "
        "Memory page's one command with --dp 2 puts every replica on one server"
    )
    assert note in best.warnings and note not in best.undermining
