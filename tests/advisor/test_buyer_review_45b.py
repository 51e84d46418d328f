"""An outside buyer's review of ``python -m planner advise`` (the forty-fifth session's, /tmp/review45b): each
finding a test that fails on the tree before its fix, on the review's own commands."""

from __future__ import annotations

import csv
import io
import json

import pytest

from planner.cli import main
from ui.advisor_rows import option_row
from ui.report import csv_text

LLAMA_33 = "meta-llama/Llama-3.3-70B-Instruct"
PRICE_UNKNOWN = "price unknown: no sourced price for this set-up, so it is ranked by its GPU count"
FOUR_BIT = "4-bit weights: nothing serves the workload at 8 bits or more"
H200_SGLANG = "4 x H200 SXM 141GB (TP 1 x 4 replicas), mxfp4 weights, fp8 KV"


def _advise(capsys: pytest.CaptureFixture[str], *args: str) -> dict:  # type: ignore[type-arg]
    assert main(["advise", *args, "--json"]) == 0
    data: dict = json.loads(capsys.readouterr().out)  # type: ignore[type-arg]
    return data


def _csv_caveats(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    """The CSV's caveats column, row by row, as the page writes it (ui.advisor_rows.option_row)."""
    from model_catalog import get_model
    from planner.advisor import rank
    from planner.cli import build_parser
    from planner.cli.advise import workload_from_args

    parsed = build_parser().parse_args(["advise", *args])
    spec = get_model(parsed.model).spec
    counts = [c for c in (1, 2, 4, 8) if c <= parsed.gpus_max]
    ranking = rank(spec, workload_from_args(parsed, spec.max_position_embeddings), counts=counts)
    rows = [option_row(i, o, cloud=False) for i, o in enumerate(ranking.options, start=1)]
    return [row["caveats"] for row in csv.DictReader(io.StringIO(csv_text(rows)))]


def test_an_unknown_price_is_a_caveat_of_the_row_the_verdict_names_it_on(capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 2 (a): H100 PCIe (no sourced price) and L40S for Llama 3.3 70B, 50 users at 32k. The verdict was
    amber on 'price unknown' while ``options[0].undermining`` and the table's and the CSV's caveats were empty."""
    args = ("--model", LLAMA_33, "--users", "50", "--context", "32k", "--gpu", "h100-pcie-80gb", "--gpu", "l40s")
    data = _advise(capsys, *args)
    best = data["options"][0]
    assert data["verdict"] == "caution" and best["purchase_usd"] is None
    assert best["undermining"] == [PRICE_UNKNOWN] == data["caveats"]
    assert all(PRICE_UNKNOWN in o["undermining"] for o in data["options"])  # every unpriced row, not the best alone
    assert "Main caveat: price unknown: no sourced price for this set-up" in data["summary"][-1]
    assert _csv_caveats(capsys, *args)[0] == PRICE_UNKNOWN
    assert main(["advise", *args]) == 0
    text = capsys.readouterr().out
    assert "#1 caveats: price unknown: no sourced price" in text
    first_row = next(line for line in text.splitlines() if line.startswith("1  8 x H100 PCIe 80GB"))
    assert first_row.endswith("1 (below)"), first_row


def test_a_four_bit_fallback_is_a_caveat_of_every_row(capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 2 (b): Llama 3.3 70B for one user on at most two RTX 4090s: nothing serves at 8 bits, so every option
    is 4-bit. The verdict said 'Main caveat: 4-bit weights: ...' over a row with no caveat; each row carries it now,
    first, and the order is the one the rows' own caveats gave (llama.cpp's q4_k_m, then the two int4-awq). The third
    was vLLM's until FlashInfer's 394 MiB decode workspace was planned in vLLM's CUDA-graph estimate (80c3084,
    2026-12-07): vLLM's int4-awq no longer fits 23.5 GiB a GPU by 0.00 GiB, and TensorRT-LLM's BF16-KV one is third.
    Since the mechanistic non-torch model (2026-12-07, fifty-third session: no desktop share on the RTX 4090s) vLLM's
    two int4-awq rows fit again; since llama.cpp's q8_0 cache is tried (issue 21, the same day) its q4_k_m comes
    twice, f16 and q8_0 cache, both with the one caveat. Since a tie is timed on the modelled speeds, not the whole
    tokens/s shown (order.reply_seconds), the sooner of each pair goes first: q8_0 cache 18.99 tokens/s (55.5 s for
    1,000 tokens) before f16's 18.74 (56.2 s), both shown as 19; vLLM's FP8 cache 30.12 (35.8 s) before BF16's
    29.69 (36.3 s), both shown as 30; before, the equal shown figures fell to the label."""
    args = ("--model", LLAMA_33, "--users", "1", "--context", "4k", "--gpu", "rtx-4090", "--gpus-max", "2")
    data = _advise(capsys, *args)
    assert data["four_bit_fallback"] and data["verdict"] == "caution"
    assert [(o["engine"], o["weights"], o["kv_dtype"]) for o in data["options"]] == [
        ("llamacpp", "q4_k_m", "int8"),
        ("llamacpp", "q4_k_m", "fp16"),
        ("vllm", "int4-awq", "fp8"),
        ("vllm", "int4-awq", "bf16"),
    ]
    assert data["options"][0]["undermining"] == [FOUR_BIT] == data["caveats"] == data["options"][1]["undermining"]
    assert all(o["undermining"][0] == FOUR_BIT and len(o["undermining"]) == 2 for o in data["options"][2:])
    assert _csv_caveats(capsys, *args)[0] == FOUR_BIT


def test_a_pool_that_runs_out_too_often_is_a_caveat_of_its_row_and_ranks_it_so() -> None:
    """The verdict's third caveat of its own, a KV pool that runs out more than 5 % of the time at the target: Qwen3
    32B, long documents for 200 users planned at the mean length. Eight B200 (TP 1 x 8) were the pick with no caveat
    on the row while the verdict said its pool runs out 96 % of the time (95 %, and 13 % for TP 2 x 4 where it was 15,
    since compute capability 10.x's graph estimate is fitted, 2026-12-07: a smaller estimate, a larger pool); that
    row carries it now, ranked after the set-ups without a caveat, and the pick's own pool runs out less than 5 % of
    the time. Of the two caveated B200 rows (one price), TP 2 x 4 (first token 1.0 s) goes before TP 1 x 8 (1.9 s)
    since the reply tolerance is the speed model's held-out error (2026-12-07): TP 1 x 8's reply is no sooner, and
    TP 2 x 4 has the more room."""
    from model_catalog import get_model
    from planner.advisor import Workload, caveats, rank, verdict

    spec = get_model("Qwen/Qwen3-32B").spec
    ranking = rank(spec, Workload.from_preset("long-document", concurrent_conversations=200, plan_at="mean"))
    best = ranking.best
    assert best is not None and ranking.best_overflow_probability is not None
    assert ranking.best_overflow_probability <= 0.05 and caveats(ranking) == list(best.undermining)
    marked = [(o.label, o.undermining) for o in ranking.options if any("KV pool runs out" in u for u in o.undermining)]
    b200 = "8 x B200 (HGX/DGX B200) (TP {}), fp8 weights, fp8 KV"
    assert marked == [
        (b200.format("2 x 4 replicas"), ("the KV pool runs out 13% of the time at 200 conversations",)),
        (b200.format("1 x 8 replicas"), ("the KV pool runs out 95% of the time at 200 conversations",)),
    ]
    # the two B200 set-ups were first and second; the B300s without a caveat come first now, at $469,819
    assert best.label.startswith("8 x B300") and round(best.tco_usd or 0) == 469_819 and not best.undermining
    assert verdict(ranking) == "met"


def test_a_pick_is_compared_on_the_speed_it_is_checked_against(capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 3: gpt-oss-120b for 5 users at 32k. Four RTX A5000s ("95 tokens/s per user modelled (at most ~67 as
    public runs of this model on its engine measure)", $25,544, 8 conversations) were pick 2 beside one RTX PRO 6000
    Max-Q at 87 tokens/s, $21,949 and 18 conversations: on the speed the floor is checked against, it is beaten on
    every figure, so it is no pick; the picks are the RTX PRO 6000 and the four H100s and H200s beyond it. Since
    gpt-oss keeps an FP8 KV cache on Ada (vLLM's Triton backend from 0.11.0), two RTX 6000 Ada are within reach but
    carry a caveat (their reported memory unconfirmed), so the picks without one come first; eight L40s at 94 tokens/s
    per user against 87 are no performance pick (within the speed model's error, planner.advisor.picks.faster).
    Since TensorRT-LLM's HBM share is its own and the shared constants were refitted (2026-12-07) the RTX PRO 6000
    runs at 89, the A5000s at 97 (at most ~73, the gap re-stated 0.40-0.75), the L40s at 102: the same picks."""
    from planner.advisor.picks import Dominance, dominates

    data = _advise(capsys, "--model", "openai/gpt-oss-120b", "--users", "5", "--context", "32k")
    assert [p["label"] for p in data["top_picks"]] == [
        "1 x RTX PRO 6000 Blackwell Max-Q Workstation Edition (TP 1), mxfp4 weights, fp8 KV",
        "4 x H100 SXM5 80GB (TP 4), mxfp4 weights, fp8 KV",
        "4 x H200 SXM 141GB (TP 4), mxfp4 weights, fp8 KV",
    ]
    from model_catalog import get_model
    from planner.advisor import Option, Workload, rank

    ranking = rank(get_model("openai/gpt-oss-120b").spec, Workload.fixed_length(32_768, concurrent_conversations=5))
    best = ranking.best
    a5000 = next(o for o in ranking.options if o.label == "4 x RTX A5000 (TP 4), mxfp4 weights, bf16 KV")
    assert isinstance(best, Option) and round(best.decode_tokens_per_s_per_user or 0) == 89
    assert (
        round(a5000.decode_tokens_per_s_per_user or 0) == 97 and round(a5000.counted_tokens_per_s_per_user or 0) == 73
    )
    assert dominates(best, a5000) and Dominance(ranking.options).beaten(a5000)


def test_a_pick_beyond_reach_is_a_faster_one(capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 3, under SGLang for 50 users: four A100s at $123,958 (3.9 x the pick), at most 15 tokens/s per user as
    public runs of gpt-oss on SGLang on Ampere measure, were pick 3 beside two RTX PRO 6000s at 30 and $32,095, for
    one conversation more (91 against 90) and a sooner first token. A pick beyond three times the first's cost is
    the performance pick: faster than the first on the checked speed (four H200s, at most 39). Since TensorRT-LLM's
    HBM share is its own and the shared constants were refitted (2026-12-07, vLLM's and SGLang's HBM share 0.92 ->
    0.82) the H200s are at most ~37 against the first's 30, within the speed model's error (37 <= 30 x 1.25,
    planner.advisor.picks.faster), so no pick: nothing beyond reach is faster by more than the model can tell. Since
    SGLang's gpt-oss experts take the Triton MoE kernels' time on Hopper (SGLang 0.5.4 srt/server_args.py:951-966,
    2026-12-07) the H200s are 93 modelled (133 before), at most ~26."""
    data = _advise(capsys, "--model", "openai/gpt-oss-120b", "--users", "50", "--context", "32k", "--engine", "sglang")
    labels = [p["label"] for p in data["top_picks"]]
    assert labels == [
        "2 x RTX PRO 6000 Blackwell Max-Q Workstation Edition (TP 2), mxfp4 weights, fp8 KV",
        "8 x Instinct MI300X (TP 1 x 8 replicas), mxfp4 weights, fp8 KV",
    ]  # the MI300X ahead of the H200s since AMD's vLLM row measures CDNA 3 (no "speed unmeasured", 2026-12-06)
    assert not any(label.startswith("4 x A100") for label in labels)
    from model_catalog import get_model
    from planner.advisor import Workload, rank
    from planner.advisor.picks import faster
    from planner.advisor.recommend import why_beats

    workload = Workload.fixed_length(32_768, concurrent_conversations=50, engines=("sglang",))
    ranking = rank(get_model("openai/gpt-oss-120b").spec, workload)
    h200, mi300x = (next(o for o in ranking.options if o.label == label) for label in (H200_SGLANG, labels[1]))
    assert ranking.best is not None and round(ranking.best.counted_tokens_per_s_per_user or 0) == 30
    assert round(h200.counted_tokens_per_s_per_user or 0) == 26 and not faster(h200, ranking.best)
    # why one beats another compares the checked speeds too: the H200s' 93 modelled are at most ~26 (since hosts
    # draw their maximum power, 2026-12-06, eight RTX 5090s in a PCIe server are no longer a pick here)
    why = why_beats(mi300x, h200, False)
    # since SGLang's CDNA 3 gap (sgl-project/sglang PR #31216, 2026-12-07) the MI300Xs' 210 are at most ~149
    assert (
        "(210 tokens/s per user modelled (at most ~149 as public runs of Gemma 4 31B BF16 at TP 1 on its engine "
        "measure) against 93 tokens/s per user modelled (at most ~26 as" in why
    ), why
    # both carry a speed caveat since SGLang's CDNA 3 gap, so neither is named as the one that does
    assert "holds 776 against 232" in why and "carries a caveat" not in why, why


def test_a_budget_that_leaves_nothing_names_the_cheapest_set_up_without_4_bit_weights(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Finding 9: Mistral Small 3.2 for 5 users at 32k under a $10,000 budget. "Closest: a budget of $11,996 buys 4 x
    Arc Pro B60 24GB (TP 4), int4-awq weights" named a 4-bit set-up as the budget to raise to, though two RTX A5000s
    in FP8 hold the workload for $14,500; that one is named first now, and the Arc set-up only as 4-bit, with its
    caveats. Since the shared constants' refit (2026-12-07) four L4s in FP8 run at 9.9 tokens/s per user, under the
    floor of 10: over the budget 1,001 -> 997 (998 since FlashInfer's workspace was planned, 80c3084), the speed
    target 1 -> 2, and the closest under it is that FP8 set-up, not the 4-bit pair of L4s (a 4-bit one is named
    only where it is closer, planner.advisor.near.near_misses). The two A5000s are named in INT8 since, at one price and
    the same room, the sooner modelled reply goes before the label (planner.advisor.order, 2026-12-07): INT8's W8A8
    prompt is the faster on Ampere, where FP8 is weight-only; both are 8-bit, the finding's point."""
    from model_catalog import get_model
    from planner.advisor import Workload, rank, recommendation

    spec = get_model("mistralai/Mistral-Small-3.2-24B-Instruct-2506").spec
    ranking = rank(spec, Workload.fixed_length(32_768, concurrent_conversations=5, budget_usd=10_000.0))
    assert ranking.best is None
    over = next(m for m in ranking.near_misses if m.reason == "over-budget")
    # 997 until the mechanistic non-torch model (2026-12-07, fifty-third session): more desktop-card set-ups fit
    # 1,001 until FlashInfer's decode workspace sat in FULL's first capture (2026-12-07, fifty-fourth session)
    assert over.count == ranking.rejection_counts()["over-budget"] == 1002
    assert (over.closest.label, over.closest.purchase_usd) == ("2 x RTX A5000 (TP 2), int8 weights, fp8 KV", 14_500)
    assert over.four_bit is not None and round(over.four_bit.purchase_usd or 0) == 11_996
    assert over.four_bit.label == "4 x Arc Pro B60 24GB (TP 4), int4-awq weights, bf16 KV"
    paragraph = recommendation(ranking)
    assert (
        "Closest: a budget of $14,500 buys 2 x RTX A5000 (TP 2), int8 weights, fp8 KV; a budget of $11,996 buys a "
        "4-bit set-up, 4 x Arc Pro B60 24GB (TP 4), int4-awq weights, bf16 KV (caveats: 4-bit AWQ weights: a small, "
        "model-dependent quality loss"
    ) in paragraph, paragraph
    assert "unverified catalog figures for Arc Pro B60 24GB" in paragraph
    assert (
        "(the cheapest without 4-bit weights, 2 x RTX A5000 (TP 2), int8 weights, fp8 KV, $14,500; with them, 4 x Arc "
        "Pro B60 24GB (TP 4), int4-awq weights, bf16 KV, $11,996)"
    ) in paragraph
    # two set-ups a speed target left out; the closest is at 8 bits, named without the 4-bit one it is closer than
    speed = next(m for m in ranking.near_misses if m.reason == "latency-target-missed")
    assert speed.count == 2 and speed.four_bit is None
    assert "(the closest, 4 x L4 (TP 2 x 2 replicas), fp8 weights, bf16 KV: 9.9 tokens/s per user" in paragraph
    assert main(["advise", "--model", spec.id, "--users", "5", "--context", "32k", "--budget", "10000", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)  # nothing serves: exit 1, the JSON on stdout
    misses = {m["reason"]: m for m in data["near_misses"]}
    assert misses["over-budget"]["closest"]["weights"] == "int8" and misses["over-budget"]["four_bit"]["gpu_count"] == 4


def test_a_long_first_prompt_is_held_to_mlperfs_bound_scaled_to_its_length(capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 1: Llama 3.3 70B for 5 users at 128k. MLPerf's 6 s first-token bound (its Llama 3.1 405B server
    scenario, prompts of ~9,500 tokens at the median) applied unscaled to the 98,304-token first prompt put only
    8-GPU baseboards in the top three (8 x H100 at $324,570, 8 x H200, 8 x B200): every 4-GPU set-up carried the
    caveat. Scaled to the prompt (62 s), four RTX PRO 6000s lead at $53,459 (hosts at their maximum power) with
    their 29 s stated as a note; eight RTX A6000s at 72 s keep the caveat; a buyer's own --max-ttft still filters
    (10 s: four H100s, four H200s). The four H100s' INT8 and FP8 weights hold as many and cost the same; since the
    tie is timed on the modelled speeds (order.reply_seconds), INT8's 43.722 tokens/s (30.824 s for 1,000 tokens)
    had gone before FP8's 43.719 (30.826 s) by the tie's modelled reply; a difference within the speed model's
    error, so FP8 goes first, as the defaults try it on a card with FP8 tensor cores (order.format_rank; the same
    for the four H200s under --max-ttft)."""
    args = ("--model", LLAMA_33, "--users", "5", "--context", "128k")
    data = _advise(capsys, *args)
    assert [p["label"] for p in data["top_picks"]] == [
        "4 x RTX PRO 6000 Blackwell Max-Q Workstation Edition (TP 4), fp8 weights, fp8 KV",
        "4 x A100 SXM4 80GB (TP 4), int8 weights, fp8 KV",
        "4 x H100 SXM5 80GB (TP 4), fp8 weights, fp8 KV",
    ]
    best = data["options"][0]
    assert round(best["tco_usd"]) == 53_459 and round(best["prefill_seconds"], 1) == 29.4 and not best["undermining"]
    (note,) = [w for w in best["warnings"] if w.startswith("first token after")]
    assert note.startswith(
        "first token after about 29 s for a 98,304-token prompt (read whole once a conversation; each later turn "
        "prefills 1,000 new tokens): within MLPerf Inference's server bound scaled to this prompt's length, 62 s"
    )
    h200 = next(o for o in data["options"] if o["gpu_id"] == "h200-sxm-141gb" and o["gpu_count"] == 4)
    assert round(h200["prefill_seconds"], 1) == 8.0 and not any("first token" in u for u in h200["undermining"])
    a6000 = next(o for o in data["options"] if o["gpu_id"] == "rtx-a6000" and o["gpu_count"] == 8)
    (slow,) = [u for u in a6000["undermining"] if u.startswith("first token after")]
    assert slow.startswith(
        "first token after about 72 s (1.2 min) for a 98,304-token prompt: slower than MLPerf Inference's server bound "
        "scaled to this prompt's length, 62 s (1 min)"
    )
    targeted = _advise(capsys, *args, "--max-ttft", "10")
    assert [p["label"] for p in targeted["top_picks"]] == [
        "4 x H100 SXM5 80GB (TP 4), fp8 weights, fp8 KV",
        "4 x H200 SXM 141GB (TP 4), fp8 weights, fp8 KV",
        # 8 x B200 before AMD's vLLM row (2026-12-06); TP 8 in INT8 (5 users a replica) before vLLM's CDNA 3 gap
        # from 5 users a replica (AMD's latency tables, 2026-12-07): two replicas of TP 4 serve 3 each
        "8 x Instinct MI300X (TP 4 x 2 replicas), fp8 weights, fp8 KV",
    ]
    assert targeted["rejection_counts"]["latency-target-missed"] == 212  # 224 before the two-a-host edition
    assert all(o["prefill_seconds"] <= 10 for o in targeted["options"])
