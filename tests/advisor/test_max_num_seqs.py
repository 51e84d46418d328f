"""Hybrid models are planned as a buyer launches them: where vLLM refuses at its default ``--max-num-seqs`` for a
reason fewer sequences cure (a hybrid's Mamba blocks, the graph profiling's KV cache, the sampler's warm-up), the
advisor plans the set-up with ``--max-num-seqs`` at the users a replica serves raised to what its pool holds (since
2026-12-05: at the users alone, a reviewer found Qwen3.6 on two RTX 3090s held '2, +0 %' where the pool holds 14),
says so in its label and assumptions, and its Memory-page link carries the setting. Before, Qwen3.8-27B for 8 users
rejected one H100 PCIe 80GB at FP8 (vLLM's 1,024 default sequences exceed its 290-odd Mamba blocks) while with 8
its pool holds 32 conversations (33 before the catalog took the card's CUDA total, 79.11 GiB, for nvidia-smi's
79.65), and vLLM serves what it runs at once (tests/assessment/test_running_cap.py).
"""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor import Ranking, Workload, headline, rank, summary_lines
from planner.assessment.assess import VerdictState
from tests.advisor.test_surfaces import check_surfaces
from ui.advisor_rows import option_selection
from ui.state import Selection

MODEL = "Qwen/Qwen3.8-27B"


@pytest.fixture(scope="module")
def ranking() -> Ranking:
    return rank(get_model(MODEL).spec, Workload.fixed_length(32768, concurrent_conversations=8))


def test_an_h100_serves_eight_users_with_eight_sequences(ranking: Ranking) -> None:
    h100 = [o for o in ranking.options if o.key == ("h100-pcie-80gb", 1, 1, "fp8", "fp8")]
    assert len(h100) == 1
    option = h100[0]
    assert option.engine == "vllm" and option.engine_max_num_seqs == 32
    assert option.conversations == 32 and int(option.concurrency) == 32
    assert option.label.endswith(", --max-num-seqs 32")
    assert "--max-num-seqs 32" in option.assumptions["memory"]
    sel = option_selection(Selection(model_id=MODEL), option)
    assert sel.max_num_seqs == 32 and sel.assessment().conversations == option.conversations
    at_default = sel.model_copy(update={"max_num_seqs": None}).assessment()
    assert at_default.state is VerdictState.ENGINE_REFUSES
    assert at_default.report is not None and at_default.report.failure_kind == "mamba-blocks"


def test_every_lowered_option_is_what_its_link_plans(ranking: Ranking) -> None:
    lowered = [o for o in ranking.options if o.engine_max_num_seqs is not None]
    assert len(lowered) >= 20
    for option in lowered[:20]:
        seqs = option.engine_max_num_seqs
        assert seqs >= -(-8 // option.replicas) and option.conversations <= seqs * option.replicas
        sel = option_selection(Selection(model_id=MODEL), option)
        assert sel.assessment().conversations == option.conversations


def test_every_surface_agrees_on_a_hybrid_model() -> None:
    """The verdict's sentence and the summary's "what to buy" name the setting the pick needs to start: on RTX PRO
    6000 cards in BF16, the one that holds the 8 users needs --max-num-seqs (8 or more: what its pool holds). (Over
    the whole catalog the cheapest such pick, 2 x RTX 3090 holding 9.3 against 8, now ranks after set-ups whose
    margin exceeds the planner's KV error on graphics dies: tests/engines/test_accuracy.py.)"""
    workload = Workload.fixed_length(32768, concurrent_conversations=8)
    ranking = rank(get_model(MODEL).spec, workload, gpus=[get_gpu("rtx-pro-6000-blackwell")], weights=["bf16"])
    best = ranking.best
    assert best is not None and best.engine_max_num_seqs is not None and best.engine_max_num_seqs >= 8
    seqs = best.engine_max_num_seqs
    check_surfaces(MODEL, ranking)
    assert f"on vLLM, --max-num-seqs {seqs}:" in headline(ranking)
    assert summary_lines(ranking)[0].endswith(f"KV cache, --max-num-seqs {seqs}).")


def test_dense_models_keep_the_defaults() -> None:
    llama = rank(get_model("meta-llama/Llama-3.1-8B").spec, Workload.fixed_length(8192, concurrent_conversations=8))
    assert llama.options and all(o.engine_max_num_seqs is None for o in llama.options)


def test_a_default_limit_below_the_users_is_raised() -> None:
    """vLLM runs at most 256 sequences at once on a card under 70 GiB (its default --max-num-seqs): Qwen3-0.6B for
    300 users at 512 tokens fits one RTX 5090's pool but not its default limit, so the option is planned with
    --max-num-seqs 300, as a buyer would launch it, and its link opens the same count. (It was the RTX 3090's,
    whose 3-slot cooler no rack server's bays now take.)"""
    small = "Qwen/Qwen3-0.6B"
    ranking = rank(get_model(small).spec, Workload.fixed_length(512, concurrent_conversations=300))
    raised = [o for o in ranking.options if o.gpu_id == "rtx-5090" and o.gpu_count == 1]
    assert raised and all(o.engine_max_num_seqs == 300 and o.conversations == 300 for o in raised)
    assert raised[0].label.endswith(", --max-num-seqs 300")
    sel = option_selection(Selection(model_id=small), raised[0])
    assert sel.max_num_seqs == 300 and sel.assessment().conversations == 300
    at_default = sel.model_copy(update={"max_num_seqs": None}).assessment()
    assert at_default.conversations == 256 and at_default.running_cap == 256


def test_a_hybrids_flag_is_raised_to_what_the_pool_holds() -> None:
    """Found by an outside review (2026-12-05): Qwen3.6-35B-A3B for 2 users on two RTX 3090s was planned with
    --max-num-seqs 2 (vLLM's default 256 refuses: too few Mamba blocks) and so held '2, +0 % headroom' where the same
    GPUs with --max-num-seqs 14 hold 14 (fit says so): the flag is now raised to the pool's count, which the row's
    link opens with. 12 since FlashInfer's decode workspace is planned in the graph estimate (2026-12-07, fifty-first
    session): the flag first raised to 13, which holds 12, is lowered to 12, so the flag is the count it holds; 14
    since that workspace sits in FULL's first capture, which the estimate takes by the larger (fifty-fourth session)."""
    from model_catalog import get_gpu, get_model
    from planner.advisor import Workload, rank
    from planner.cli import main as cli

    ranking = rank(
        get_model("Qwen/Qwen3.6-35B-A3B").spec,
        Workload.fixed_length(32768, concurrent_conversations=2),
        gpus=[get_gpu("rtx-3090")],
        counts=[2],
        weights=["int8"],
        kv_dtypes=["fp8"],
    )
    (best, *_) = [o for o in ranking.options if o.engine == "vllm"]
    # (12, 12) until the mechanistic non-torch model planned no desktop share (2026-12-07, fifty-third session);
    # (13, 13) until FlashInfer's decode workspace sat in FULL's first capture (fifty-fourth session: 0.09 GiB less)
    assert (best.engine_max_num_seqs, best.conversations) == (14, 14), (best.engine_max_num_seqs, best.conversations)
    assert best.headroom == pytest.approx(6.0)  # 5.0 before; 5.5 until the workspace sat in FULL's first capture
    argv = ["fit", "--model", "Qwen/Qwen3.6-35B-A3B", "--gpu", "rtx-3090", "--gpus", "2", "--weights", "int8"]
    argv += ["--kv-dtype", "fp8", "--engine", "vllm", "--context", "32768", "--users", "2", "--max-num-seqs", "13"]
    assert cli(argv) == 0
