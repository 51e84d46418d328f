"""SGLang's windowed layers in a pool of their own (:mod:`planner.engines.sglang_pool`, read in SGLang's packages
0.5.2 to 0.5.23): ``full_tokens = rest // (F x n_full + 0.8 x S x n_swa)``, the SWA pool 0.8 of that. Before, every
release was planned as if every layer kept every token: gpt-oss ~10 % fewer tokens than SGLang holds, Gemma 4 31B
~18 % fewer, and the parsed log read the SWA pool's token count as the scheduler's."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.core.blocks import LayerKind
from planner.core.kv import kv_bytes_per_token_per_layer
from planner.deploy.options import DeploymentOptions, SpeculativeOptions
from planner.engines.base import EngineReport
from planner.engines.logscan import Lines
from planner.engines.registry import get_engine, overhead_profile
from planner.engines.sglang_logparse import parse_sglang
from planner.engines.sglang_pool import swa_split
from planner.engines.sglang_rules import vlm_reserve_bytes
from planner.planning.plan import PlanRequest, plan
from planner.planning.results import PlanResult

SGLANG = get_engine("sglang")
# Per token on one GPU, bf16, from the configs: gpt-oss-20b 24 layers of 8 KV heads of 64 (12 sliding); Gemma 4
# 31B 50 sliding layers of 16 KV heads of 256 and 10 full layers of 4 KV heads of 512 (K = V, both cached); Llama 4
# Scout 48 layers of 8 KV heads of 128 (36 chunked).
GPT_OSS = (12 * 2 * 8 * 64 * 2, 12 * 2 * 8 * 64 * 2)
GEMMA4 = (10 * 2 * 4 * 512 * 2, 50 * 2 * 16 * 256 * 2)
SCOUT = (12 * 2 * 8 * 128 * 2, 36 * 2 * 8 * 128 * 2)


def _planned(
    model: str, version: str, gpu: str = "h100-sxm-80gb", cap: int | None = None, **deployment: object
) -> tuple[PlanResult, EngineReport]:
    """The plan and SGLang's report at ``version`` on one ``gpu`` at 8k (``cap``: ``--max-total-tokens``)."""
    card = get_gpu(gpu)
    settings = {} if cap is None else {"max_total_tokens": cap}
    request = PlanRequest(
        model=get_model(model).spec, gpu=card, gpu_memory_bytes=card.memory_bytes_for(True), context_tokens=8192,
        max_model_len=8192, overhead=overhead_profile("sglang", version=version, **settings),
        weights="fp8" if "Llama-4" in model else None,  # Scout's 109 B in BF16 is more than a B200 holds
        deployment=DeploymentOptions(**deployment) if deployment else None,  # type: ignore[arg-type]
    )  # fmt: skip
    result = plan(request)
    return result, SGLANG.report(request, result, request.overhead)  # type: ignore[arg-type]


def _report(model: str, version: str, gpu: str = "h100-sxm-80gb", **deployment: object) -> EngineReport:
    """SGLang's report at ``version`` on one ``gpu`` at 8k."""
    return _planned(model, version, gpu, **deployment)[1]


def _rest(report: EngineReport, model: str) -> int:
    """The pool's budget: ``mem_fraction_static x pre_model_load_memory`` less what loaded, less the multimodal
    cache a vision-language model keeps from 0.5.18 (:func:`planner.engines.sglang_rules.vlm_reserve_bytes`)."""
    return report.budget_bytes - report.weights_bytes - vlm_reserve_bytes(report.engine_version, get_model(model).spec)


@pytest.mark.parametrize(
    ("model", "version", "split"),
    [
        ("openai/gpt-oss-20b", "0.5.18", GPT_OSS),
        ("openai/gpt-oss-20b", "0.5.11", GPT_OSS),
        ("google/gemma-4-31B-it", "0.5.11", GEMMA4),
        ("google/gemma-4-31B-it", "0.5.23", GEMMA4),
        ("meta-llama/Llama-4-Scout-17B-16E", "0.5.18", SCOUT),
    ],
)
def test_the_full_pool_holds_the_budget_over_full_and_a_share_of_windowed_layers(
    model: str, version: str, split: tuple[int, int]
) -> None:
    full, windowed = split
    report = _report(model, version, "b200-sxm" if model.startswith("meta") else "h100-sxm-80gb")
    tokens = int(_rest(report, model) // (full + 0.8 * windowed))
    swa = int(tokens * 0.8)
    assert report.kv_cache_tokens == tokens
    assert report.lines[0] == f"Use sliding window memory pool. full_layer_tokens={tokens}, swa_layer_tokens={swa}"
    assert report.available_kv_cache_bytes_per_gpu == tokens * full + swa * windowed
    assert report.max_concurrency == tokens / 8192
    unsplit = _rest(report, model) // (full + windowed)
    assert tokens / unsplit == pytest.approx((full + windowed) / (full + 0.8 * windowed), rel=1e-4)


@pytest.mark.parametrize(
    ("model", "version", "gpu", "deployment", "per_token"),
    [
        # server_args.py 0.5.2-0.5.7: disable_hybrid_swa_memory = True for gpt-oss
        ("openai/gpt-oss-20b", "0.5.7", "h100-sxm-80gb", {}, sum(GPT_OSS)),
        ("openai/gpt-oss-20b", "0.5.9", "b200-sxm", {}, sum(GPT_OSS)),  # SM100: trtllm_mha, no split in 0.5.8-0.5.9
        ("meta-llama/Llama-4-Scout-17B-16E", "0.5.7", "b200-sxm", {}, sum(SCOUT)),  # only --hybrid-kvcache-ratio
        ("google/gemma-3-27b-it", "0.5.23", "h100-sxm-80gb", {}, 62 * 2 * 16 * 128 * 2),  # Gemma 2/3: never split
        # 0.5.8: "Disable hybrid SWA memory for GPT-OSS model with speculative decoding" (the drafter's cache too)
        ("openai/gpt-oss-20b", "0.5.8", "h100-sxm-80gb", {"speculative": SpeculativeOptions(method="eagle3")}, None),
    ],
)
def test_releases_and_set_ups_that_keep_one_pool(
    model: str, version: str, gpu: str, deployment: dict[str, object], per_token: int | None
) -> None:
    report = _report(model, version, gpu, **deployment)
    assert report.lines[0].startswith("KV Cache is allocated"), report.lines
    assert "full_layer_tokens" not in " ".join(report.lines)
    if per_token is not None:
        assert report.kv_cache_tokens == _rest(report, model) // per_token


def test_gpt_oss_on_sm100_is_split_from_0_5_10() -> None:
    full, windowed = GPT_OSS
    report = _report("openai/gpt-oss-20b", "0.5.10", "b200-sxm")  # 0.5.10 splits the count over every layer
    every = full + windowed
    assert report.kv_cache_tokens == int(
        _rest(report, "openai/gpt-oss-20b") // every * every // (full + 0.8 * windowed)
    )


def test_a_pasted_split_log_reads_the_full_pool_and_both_sizes() -> None:
    """A public SGLang start-up of Gemma 4 (its split line as published; the two pools' lines as SGLang prints
    them): before, the last pool line, the SWA pool's 1,368 tokens, was read as the scheduler's pool."""
    log = (
        "Load weight end, type=Gemma4ForConditionalGeneration, avail mem=2.74 GB, mem usage=8.74 GB.\n"
        "Use sliding window memory pool. full_layer_tokens=1710, swa_layer_tokens=1368\n"
        "KV Cache is allocated. #tokens: 1710, K size: 0.02 GB, V size: 0.02 GB\n"
        "KV Cache is allocated. #tokens: 1368, K size: 0.10 GB, V size: 0.10 GB\n"
        "max_total_num_tokens=1710, chunked_prefill_size=2048, max_running_requests=48, context_len=8192\n"
    )
    parsed = parse_sglang(Lines(log))
    assert parsed is not None
    assert parsed["kv_cache_tokens"] == 1710 and parsed["kv_cache_gib"] == pytest.approx(0.24)


def test_a_token_cap_caps_the_full_pool_and_the_plan_keeps_both_pools_bytes() -> None:
    """``--max-total-tokens 100000``: the full pool's 100,000 tokens and the SWA pool's 80,000, on the chart too
    (before, the plan capped the pool at 100,000 tokens in every layer: 4.58 GiB where SGLang holds 4.12)."""
    result, report = _planned("openai/gpt-oss-20b", "0.5.18", cap=100_000)
    full, windowed = GPT_OSS
    assert report.kv_cache_tokens == 100_000
    assert (
        report.available_kv_cache_bytes_per_gpu == result.stages[0].kv_cache_bytes == 100_000 * full + 80_000 * windowed
    )


@pytest.mark.parametrize("version", ["0.5.8", "0.5.9", "0.5.10"])
def test_before_0_5_11_the_count_over_every_layer_is_split(version: str) -> None:
    """0.5.8-0.5.10 size the pool over every layer, then split that count (0.5.9 ``init_memory_pool`` ->
    ``set_num_tokens_hybrid_swa``): ``full = tokens x all / (F + 0.8 x S)``, the tokens capped first by
    ``--max-total-tokens`` (a maintainer's review, 2026-12-06: 100,000 had been planned as the full pool's, where
    0.5.9 gives 111,111 full and 88,888 windowed tokens)."""
    full, windowed = GPT_OSS
    every = full + windowed
    report = _report("openai/gpt-oss-20b", version)
    assert report.kv_cache_tokens == int(
        _rest(report, "openai/gpt-oss-20b") // every * every // (full + 0.8 * windowed)
    )
    result, capped = _planned("openai/gpt-oss-20b", version, cap=100_000)
    assert capped.kv_cache_tokens == 111_111 and "swa_layer_tokens=88888" in capped.lines[0]
    assert result.stages[0].kv_cache_bytes == 100_000 * every  # the chart's pool: the count over every layer


def test_a_windowed_pool_too_small_for_one_window_is_refused_from_0_5_16() -> None:
    """Llama 4's window is its 8,192-token attention chunk: a full pool capped at 8,192 tokens leaves 6,553
    windowed ones, which 0.5.16 and later refuse ('SWA pool (6553 tokens) cannot hold even one request')."""
    scout = "meta-llama/Llama-4-Scout-17B-16E"
    for version, refused in (("0.5.15", False), ("0.5.16", True), ("0.5.23", True)):
        report = _planned(scout, version, "b200-sxm", cap=8192)[1]  # in FP8, as _planned plans Llama 4
        assert (report.failure_kind == "kv-cache-too-small") is refused, version
        assert not refused or "SWA pool (6553 tokens) cannot hold even one request" in (report.failure or "")


def test_shared_kv_layers_count_as_sglang_counts_them() -> None:
    """Gemma 4 E4B's last 18 layers reuse earlier layers' KV, but SGLang's split counts every ``layer_types``
    entry (7 full, 35 sliding): the planner had counted the 24 that cache, 1.75x the tokens SGLang holds."""
    spec = get_model("google/gemma-4-E4B-it").spec
    full = sum(k.value == "full" for k in spec.layers) * kv_bytes_per_token_per_layer(spec, "bf16", 1, LayerKind.FULL)
    swa = sum(k.value == "sliding" for k in spec.layers) * kv_bytes_per_token_per_layer(
        spec, "bf16", 1, LayerKind.SLIDING
    )
    assert sum(k.value == "full" for k in spec.layers) == 7 and sum(k.value == "sliding" for k in spec.layers) == 35
    report = _report("google/gemma-4-E4B-it", "0.5.18", "l4")
    assert report.kv_cache_tokens == int(_rest(report, "google/gemma-4-E4B-it") // (full + 0.8 * swa))


def test_a_stage_before_the_last_counts_the_next_stages_first_layer_until_0_5_20() -> None:
    """``range(start_layer, end_layer + 1)`` (0.5.8-0.5.20 ``adjust_hybrid_swa_layer_ids``): gpt-oss-120b's first
    of two stages counts 19 layers, not 18; 0.5.21 counts the layers it owns."""
    spec = get_model("openai/gpt-oss-120b").spec
    layers = range(0, spec.num_hidden_layers // 2)
    early = swa_split(spec, "bf16", 1, (layers, False), 0, "0.5.20")
    owned = swa_split(spec, "bf16", 1, (layers, False), 0, "0.5.21")
    last = swa_split(spec, "bf16", 1, (range(layers.stop, spec.num_hidden_layers), True), 0, "0.5.20")
    per_layer = kv_bytes_per_token_per_layer(spec, "bf16", 1, LayerKind.FULL)
    assert early.full_bytes + early.swa_bytes == owned.full_bytes + owned.swa_bytes + per_layer
    assert last.full_bytes + last.swa_bytes == (spec.num_hidden_layers - layers.stop) * per_layer
